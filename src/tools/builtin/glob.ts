import { statSync, type Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { closeOpened, openDirIn, tryOpenDirIn, type OpenedDir } from '../confined-fs.js';
import { defineTool, ToolFailure } from '../define-tool.js';
import { listFiles } from '../file-list.js';
import { assertNotAborted, guardRun, okOutput, plural } from '../tool-output.js';
import { createGlobMatcher } from '../glob-matcher.js';
import { relativeTo, resolveInWorkspace } from '../workspace.js';

export const MAX_GLOB_RESULTS = 200;

const params = {
  type: 'object',
  required: ['pattern'],
  properties: {
    pattern: { type: 'string', minLength: 1, description: "Glob, e.g. '**/*.py' or 'src/**/*.{ts,tsx}'." },
    dir_path: { type: 'string' },
    case_sensitive: { type: 'boolean' },
    respect_git_ignore: { type: 'boolean' },
    respect_gemini_ignore: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

export const globTool = defineTool({
  name: 'glob',
  kind: 'search',
  description: `Finds files whose paths match a glob; respects .gitignore. Up to ${MAX_GLOB_RESULTS}, newest first (by path when more match).`,
  params,
  async prepare(args, env) {
    const dir = await resolveInWorkspace(env.root, args.dir_path ?? '.', 'read');
    if (!dir.exists) throw new ToolFailure('not_found', `directory not found: ${args.dir_path}`);
    if (!(await stat(dir.abs)).isDirectory())
      throw new ToolFailure('invalid_args', `${args.dir_path} is not a directory`);
    // Checked here, before policy: a pattern the linear-time matcher cannot take is refused now.
    const isMatch = createGlobMatcher(args.pattern, args.case_sensitive ?? false);
    return {
      title: `glob ${args.pattern}${dir.rel === '.' ? '' : ` in ${dir.rel}`}`,
      paths: [dir.rel],
      policyArgs: { pattern: args.pattern, dir_path: dir.rel },
      run: ({ signal }) =>
        guardRun(
          signal,
          async () => {
            // Checked now on its descriptor (confined-fs.ts): a folder swapped for a link out since the call was checked is refused.
            closeOpened(openDirIn(env.root, dir.abs, { shown: dir.rel }));
            const files = await listFiles(
              env.root,
              await narrowest(env.root, dir.abs, {
                pattern: args.pattern,
                caseSensitive: args.case_sensitive ?? false,
              }),
              {
                respectGitIgnore: args.respect_git_ignore ?? true,
                respectGeminiIgnore: args.respect_gemini_ignore ?? true,
                signal,
              },
            );
            const prefix = dir.rel === '.' ? '' : `${dir.rel}/`;
            const matched = files.filter((f) => isMatch(f.slice(prefix.length)));
            assertNotAborted(signal);
            const where = dir.rel === '.' ? 'the workspace' : dir.rel;
            // All of them fit: newest first (at most MAX_GLOB_RESULTS stats). More: the first ones by
            // path, stat'ed only to drop the vanished, as `find` lists them; dates over a whole tree
            // cost more than the listing, and in a fresh checkout they are all the same anyway.
            const fits = matched.length <= MAX_GLOB_RESULTS;
            const listed = fits
              ? newestFirst(env.root, matched)
              : firstExisting(env.root, matched.sort(byPath), MAX_GLOB_RESULTS);
            if (listed.shown.length === 0) {
              return okOutput(
                `No files found matching pattern "${args.pattern}" in ${where}.`,
                `glob ${args.pattern}: no files`,
              );
            }
            const count = matched.length - listed.vanished;
            const order = fits
              ? ', newest first'
              : count > listed.shown.length
                ? ` (showing the first ${listed.shown.length} by path; narrow the pattern to see the rest)`
                : ', by path';
            const head = `Found ${plural(count, 'file')} matching "${args.pattern}" in ${where}${order}:`;
            return okOutput(`${head}\n${listed.shown.join('\n')}`, `glob ${args.pattern}: ${plural(count, 'file')}`);
          },
          // git lists the files: the call ends once that process is gone.
          { endsOnAbort: true },
        ),
    };
  },
});

/** The glob pattern as given, and whether its names match case-sensitively. */
interface GlobPattern {
  pattern: string;
  caseSensitive: boolean;
}

/**
 * Where the listing can start: the pattern's leading literal folders (`src/app` of
 * `src/app/**\/*.ts`), when they are a directory in the workspace, as `find src/app` would start
 * there; else the search directory. Case-insensitive, a folder is taken only when it is the one
 * name of its parent that matches (ASCII names only: RE2 folds some other letters differently).
 * A negated pattern can match anywhere.
 */
async function narrowest(root: string, absDir: string, glob: GlobPattern): Promise<string> {
  const { pattern, caseSensitive } = glob;
  const clean = pattern.startsWith('./') ? pattern.slice(2) : pattern;
  if (clean.startsWith('!')) return absDir;
  const parts = clean.split('/');
  parts.pop(); // the last part names files, not a folder to start in
  let at = absDir;
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..' || /[\\*?[\]{}()!+@|]/.test(part)) break;
    const name = caseSensitive ? part : await onlyCaseVariant(at, part);
    if (name === undefined) break;
    const sub = await resolveInWorkspace(root, relativeTo(root, join(at, name)), 'read').catch(() => undefined);
    if (!sub?.exists || !(await stat(sub.abs).catch(() => undefined))?.isDirectory()) break;
    at = sub.abs;
  }
  return at;
}

/** The one entry of `dir` named `part` ignoring ASCII case; undefined when none, several, or not ASCII. */
async function onlyCaseVariant(dir: string, part: string): Promise<string | undefined> {
  if (!/^[\x20-\x7e]+$/.test(part)) return undefined;
  const lower = part.toLowerCase();
  const names = (await readdir(dir).catch(() => [] as string[])).filter(
    (n) => n.toLowerCase() === lower || !/^[\x20-\x7e]+$/.test(n),
  );
  return names.length === 1 && names[0].toLowerCase() === lower ? names[0] : undefined;
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Sorted by mtime descending, ties by path (code units, as git sorts); files that vanished since
 * the listing (or cannot be stat'ed) are dropped. Synchronous stats: each is a cached-inode lookup,
 * where the thread pool's round trip per file costs more than the stat.
 */
function newestFirst(root: string, rels: readonly string[]): { shown: string[]; vanished: number } {
  const dated: Array<{ rel: string; t: number }> = [];
  const stats = createListedStat(root);
  try {
    for (const rel of rels) {
      const s = stats.stat(rel);
      if (s && !s.isDirectory()) dated.push({ rel, t: s.mtimeMs });
    }
  } finally {
    stats.close();
  }
  dated.sort((a, b) => b.t - a.t || byPath(a.rel, b.rel));
  return { shown: dated.map((d) => d.rel), vanished: rels.length - dated.length };
}

/** The first `n` of `rels` that are still files (a listing can name a file deleted since, or a submodule). */
function firstExisting(root: string, rels: readonly string[], n: number): { shown: string[]; vanished: number } {
  const shown: string[] = [];
  let vanished = 0;
  const stats = createListedStat(root);
  try {
    for (const rel of rels) {
      if (shown.length === n) break;
      const s = stats.stat(rel);
      if (s && !s.isDirectory()) shown.push(rel);
      else vanished++;
    }
  } finally {
    stats.close();
  }
  return { shown, vanished };
}

/**
 * Stats of listed files through their folder, opened and checked (confined-fs.ts): a name is shown
 * only when the folder it is in is inside the workspace now. git lists by path (its walk can pass
 * through a folder swapped for a link out while it runs); the walker lists through descriptors.
 * The last folder is kept open: a listing names a folder's files together.
 */
function createListedStat(root: string): { stat(rel: string): Stats | undefined; close(): void } {
  let held: { rel: string; dir: OpenedDir | undefined } | undefined;
  const close = () => {
    if (held?.dir) closeOpened(held.dir);
    held = undefined;
  };
  return {
    stat(rel) {
      const slash = rel.lastIndexOf('/');
      const parent = slash === -1 ? '' : rel.slice(0, slash);
      if (held?.rel !== parent) {
        close();
        held = { rel: parent, dir: tryOpenDirIn(root, parent === '' ? root : join(root, parent)) };
      }
      // The name's own stat follows a last link, as before: the name is inside; a link to a folder is dropped as one.
      return held.dir ? tryStat(join(held.dir.path, rel.slice(slash + 1))) : undefined;
    },
    close,
  };
}

function tryStat(abs: string): Stats | undefined {
  try {
    return statSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
