import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { closeOpened, openDirIn } from '../confined-fs.js';
import { defineTool, ToolFailure } from '../define-tool.js';
import { readIgnoreFile, tryIsGitWorkTree } from '../file-list.js';
import { createGlobMatcher } from '../glob-matcher.js';
import { gitGrep, jsGrep, type GrepMatch, type GrepQuery } from '../grep-engines.js';
import { systemGrep } from '../system-grep.js';
import { compileLinearRegex, type LinearRegex } from '../linear-regex.js';
import { guardRun, okOutput, plural } from '../tool-output.js';
import { resolveInWorkspace } from '../workspace.js';
import { redactSecrets } from '../../common/redact.js';

/** A matched line longer than this is cut in the result (minified files). */
const MAX_MATCH_CHARS = 500;

const DEFAULT_MAX_MATCHES = 100;

const params = {
  type: 'object',
  required: ['pattern'],
  properties: {
    pattern: { type: 'string', minLength: 1, description: "Regex, e.g. 'function\\s+myFunction'." },
    dir_path: { type: 'string' },
    include_pattern: { type: 'string', description: "Glob of the files to search, e.g. '*.{ts,tsx}'." },
    exclude_pattern: { type: 'string', description: 'Leave out lines that also match this regex.' },
    names_only: { type: 'boolean', description: 'Only the paths of files with matches.' },
    case_sensitive: { type: 'boolean' },
    max_matches_per_file: { type: 'integer', minimum: 1 },
    total_max_matches: { type: 'integer', minimum: 1, maximum: 1000, description: `Default ${DEFAULT_MAX_MATCHES}.` },
  },
  additionalProperties: false,
} as const;

export const grepSearchTool = defineTool({
  name: 'grep_search',
  aliases: ['search_file_content'],
  kind: 'search',
  description: `Searches file contents for a regex (RE2: no lookahead or backreferences), case-insensitive by default; returns matching lines by file. Respects .gitignore; skips binary files.`,
  params,
  async prepare(args, env) {
    const ignoreCase = !(args.case_sensitive ?? false);
    const regex = compileLinearRegex('pattern', args.pattern, ignoreCase);
    const exclude = args.exclude_pattern
      ? compileLinearRegex('exclude_pattern', args.exclude_pattern, ignoreCase)
      : undefined;
    const include = args.include_pattern ? createGlobMatcher(args.include_pattern, true) : undefined;
    const dir = await resolveInWorkspace(env.root, args.dir_path ?? '.', 'read');
    if (!dir.exists) throw new ToolFailure('not_found', `directory not found: ${args.dir_path}`);
    if (!(await stat(dir.abs)).isDirectory())
      throw new ToolFailure(
        'invalid_args',
        `${args.dir_path} is not a directory; give its directory and an include_pattern`,
      );
    const total = args.total_max_matches ?? DEFAULT_MAX_MATCHES;
    const perFile = args.max_matches_per_file ?? Infinity;
    return {
      title: `grep ${JSON.stringify(args.pattern)}${dir.rel === '.' ? '' : ` in ${dir.rel}`}${args.include_pattern ? ` (${args.include_pattern})` : ''}`,
      paths: [dir.rel],
      policyArgs: {
        pattern: args.pattern,
        dir_path: dir.rel,
        ...(args.include_pattern ? { include_pattern: args.include_pattern } : {}),
      },
      run: ({ signal }) =>
        guardRun(
          signal,
          async () => {
            // Opened and checked now (confined-fs.ts), and git runs in the opened directory itself:
            // a folder swapped for a link out since the call was checked is refused. What the
            // processes print is confirmed line by line against reads made here (grep-engines.ts).
            const opened = openDirIn(env.root, dir.abs, { shown: dir.rel });
            try {
              const where = { root: env.root, absDir: dir.abs, dirPath: opened.path, rel: dir.rel };
              const text = await search(where, {
                pattern: args.pattern,
                includePattern: args.include_pattern,
                namesOnly: args.names_only ?? false,
                regex,
                exclude,
                include,
                ignoreCase,
                total,
                perFile,
                signal,
              });
              return okOutput(redactSecrets(text.forModel, env.secrets), text.forHuman);
            } finally {
              closeOpened(opened);
            }
          },
          // git grep or grep run: the call ends once their processes are gone.
          { endsOnAbort: true },
        ),
    };
  },
});

/** Where a search runs: the workspace, the directory (its path, and the opened directory itself). */
interface SearchPlace {
  root: string;
  absDir: string;
  dirPath: string;
  rel: string;
}

interface SearchRequest {
  pattern: string;
  includePattern: string | undefined;
  namesOnly: boolean;
  regex: LinearRegex;
  exclude: LinearRegex | undefined;
  include: ((rel: string) => boolean) | undefined;
  ignoreCase: boolean;
  total: number;
  perFile: number;
  signal: AbortSignal;
}

/** git grep in a work tree, the system's grep elsewhere; the RE2 walker when either cannot finish. */
async function search(at: SearchPlace, s: SearchRequest): Promise<{ forModel: string; forHuman: string }> {
  const keepPath = createPathFilter(at.root, at.rel, s.include);
  const matches: GrepMatch[] = [];
  const perFileCount = new Map<string, number>();
  let capped = false;
  const onMatch = (m: GrepMatch): boolean => {
    if (s.exclude?.test(m.text)) return true;
    const n = perFileCount.get(m.file) ?? 0;
    if (n >= s.perFile) return true;
    if (matches.length >= s.total) {
      capped = true;
      return false;
    }
    perFileCount.set(m.file, n + 1);
    matches.push(m);
    return true;
  };
  const q: GrepQuery = {
    root: at.root,
    absDir: at.absDir,
    dirPath: at.dirPath,
    regex: s.regex,
    ignoreCase: s.ignoreCase,
    keepPath,
    signal: s.signal,
  };
  let skippedLarge = 0;
  const viaProcess =
    ((await tryIsGitWorkTree(at.absDir)) ? await gitGrep(q, onMatch) : await systemGrep(q, onMatch)) === 'done';
  if (!viaProcess) {
    matches.length = 0;
    perFileCount.clear();
    capped = false;
    skippedLarge = (await jsGrep(q, onMatch)).skippedLarge;
  }
  const forModel = formatMatches(matches, {
    pattern: s.pattern,
    where: at.rel,
    include: s.includePattern,
    namesOnly: s.namesOnly,
    capped,
    total: s.total,
    skippedLarge,
  });
  return {
    forModel,
    forHuman: `grep ${s.pattern}: ${plural(matches.length, 'match', 'matches')}${capped ? ' (capped)' : ''} in ${plural(perFileCount.size, 'file')}`,
  };
}

/** include_pattern relative to the searched directory, and the root's .geminiignore. */
function createPathFilter(
  root: string,
  dirRel: string,
  inc: ((rel: string) => boolean) | undefined,
): (rel: string) => boolean {
  const prefix = dirRel === '.' ? '' : `${dirRel}/`;
  const gemini = readIgnoreFile(root, join(root, '.geminiignore'));
  return (rel) => (!inc || inc(rel.slice(prefix.length))) && !(gemini && gemini.ignores(rel));
}

function formatMatches(
  matches: readonly GrepMatch[],
  o: {
    pattern: string;
    where: string;
    include?: string;
    namesOnly: boolean;
    capped: boolean;
    total: number;
    skippedLarge: number;
  },
): string {
  const place = o.where === '.' ? 'the workspace' : o.where;
  const filter = o.include ? ` (filter: "${o.include}")` : '';
  const notes: string[] = [];
  if (o.capped)
    notes.push(
      `[results capped at ${o.total} matches; narrow pattern, dir_path or include_pattern, or raise total_max_matches]`,
    );
  if (o.skippedLarge > 0) notes.push(`[${plural(o.skippedLarge, 'file')} over 4 MB not searched]`);
  if (matches.length === 0)
    return [`No matches found for pattern "${o.pattern}" in ${place}${filter}.`, ...notes].join('\n');
  const byFile = new Map<string, GrepMatch[]>();
  for (const m of matches) byFile.set(m.file, [...(byFile.get(m.file) ?? []), m]);
  const head = `Found ${plural(matches.length, 'match', 'matches')} in ${plural(byFile.size, 'file')} for pattern "${o.pattern}" in ${place}${filter}:`;
  if (o.namesOnly) return [head, ...byFile.keys(), ...notes].join('\n');
  const blocks = [...byFile].map(([file, ms]) =>
    [`File: ${file}`, ...ms.map((m) => `L${m.line}: ${cut(m.text)}`)].join('\n'),
  );
  return [head, '---', blocks.join('\n---\n'), '---', ...notes].join('\n');
}

function cut(line: string): string {
  const t = line.replace(/\r$/, '');
  return t.length > MAX_MATCH_CHARS ? `${t.slice(0, MAX_MATCH_CHARS)}… [cut]` : t;
}
