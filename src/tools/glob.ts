import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RE2JS } from 're2js';
import { Type } from 'typebox';
import { defineTool, ToolFailure } from './define-tool.js';
import { listFiles } from './file-list.js';
import { assertNotAborted, guardRun, okOutput, plural } from './tool-output.js';
import { GlobSyntaxError, translateGlob } from './glob-pattern.js';
import { resolveInWorkspace } from './workspace.js';

export const MAX_GLOB_RESULTS = 200;

const Params = Type.Object(
  {
    pattern: Type.String({ minLength: 1, description: "Glob, e.g. '**/*.py' or 'src/**/*.{ts,tsx}'." }),
    dir_path: Type.Optional(Type.String()),
    case_sensitive: Type.Optional(Type.Boolean()),
    respect_git_ignore: Type.Optional(Type.Boolean()),
    respect_gemini_ignore: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const globTool = defineTool({
  name: 'glob',
  kind: 'search',
  description: `Finds files whose paths match a glob, newest first; respects .gitignore; at most ${MAX_GLOB_RESULTS}.`,
  params: Params,
  async prepare(args, env) {
    const dir = await resolveInWorkspace(env.root, args.dir_path ?? '.', 'read');
    if (!dir.exists) throw new ToolFailure('not_found', `directory not found: ${args.dir_path}`);
    if (!(await stat(dir.abs)).isDirectory()) throw new ToolFailure('invalid_args', `${args.dir_path} is not a directory`);
    // Checked here, before policy: a pattern the linear-time matcher cannot take is refused now.
    const isMatch = createGlobMatcher(args.pattern, args.case_sensitive ?? false);
    return {
      title: `glob ${args.pattern}${dir.rel === '.' ? '' : ` in ${dir.rel}`}`,
      paths: [dir.rel],
      policyArgs: { pattern: args.pattern, dir_path: dir.rel },
      run: ({ signal }) =>
        guardRun(signal, async () => {
          const files = await listFiles(env.root, dir.abs, {
            respectGitIgnore: args.respect_git_ignore ?? true,
            respectGeminiIgnore: args.respect_gemini_ignore ?? true,
            signal,
          });
          const prefix = dir.rel === '.' ? '' : `${dir.rel}/`;
          const matched = files.filter((f) => isMatch(f.slice(prefix.length)));
          assertNotAborted(signal);
          const dated = await newestFirst(env.root, matched, signal);
          const where = dir.rel === '.' ? 'the workspace' : dir.rel;
          if (dated.length === 0) {
            return okOutput(`No files found matching pattern "${args.pattern}" in ${where}.`, `glob ${args.pattern}: no files`);
          }
          const shown = dated.slice(0, MAX_GLOB_RESULTS);
          const more = dated.length - shown.length;
          const head = `Found ${plural(dated.length, 'file')} matching "${args.pattern}" in ${where}, newest first${more > 0 ? ` (showing the first ${shown.length}; narrow the pattern to see the rest)` : ''}:`;
          return okOutput(`${head}\n${shown.join('\n')}`, `glob ${args.pattern}: ${plural(dated.length, 'file')}`);
        }),
    };
  },
});

/**
 * A pattern without a slash matches a file name at any depth (`*.ts`), as the model usually means;
 * one with a slash matches the path from the search directory. A leading `!` negates. Matching
 * runs in RE2 (linear time): see glob-pattern.ts. A pattern it cannot take is `invalid_args`.
 */
export function createGlobMatcher(pattern: string, caseSensitive: boolean): (rel: string) => boolean {
  let clean = pattern.startsWith('./') ? pattern.slice(2) : pattern;
  const negate = clean.startsWith('!') && !clean.startsWith('!(');
  if (negate) clean = clean.slice(1);
  let source: string;
  try {
    source = translateGlob(clean, 'glob');
  } catch (e) {
    if (e instanceof GlobSyntaxError) throw new ToolFailure('invalid_args', `glob pattern ${JSON.stringify(pattern)}: ${e.message}`);
    throw e;
  }
  const anchored = clean.includes('/') ? `^(?:${source})$` : `^(?:.*/)?(?:${source})$`;
  const re = RE2JS.compile(anchored, (caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE) | RE2JS.DOTALL);
  return (rel) => re.test(rel) !== negate;
}

/** Sorted by mtime descending, ties by path; files that vanished since the listing are dropped. */
async function newestFirst(root: string, rels: string[], signal: AbortSignal): Promise<string[]> {
  const dated: Array<{ rel: string; t: number }> = [];
  const CHUNK = 256; // bounded parallelism: 10,000 stats at once would exhaust file handles
  for (let i = 0; i < rels.length; i += CHUNK) {
    assertNotAborted(signal);
    const part = await Promise.all(
      rels.slice(i, i + CHUNK).map(async (rel) => {
        const s = await stat(join(root, rel)).catch(() => undefined);
        return s && !s.isDirectory() ? { rel, t: s.mtimeMs } : undefined;
      }),
    );
    for (const p of part) if (p) dated.push(p);
  }
  dated.sort((a, b) => b.t - a.t || a.rel.localeCompare(b.rel));
  return dated.map((d) => d.rel);
}
