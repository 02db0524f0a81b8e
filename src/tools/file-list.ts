import { execFile } from 'node:child_process';
import { existsSync, type Dirent } from 'node:fs';
import { dirname, join } from 'node:path';
import { hasHiddenFiles, isHiddenFile } from './hidden-files.js';
import { closeOpened, listOpenedDir, openDirIn, openFileIn, readOpenedSync } from './confined-fs.js';
import { createGitListing } from './git-listing.js';
import { createIgnoreRules, type IgnoreRules } from './ignore-rules.js';
import { createWorkTreeCheck } from './work-tree-check.js';
import { createGitEnv } from '../git/env.js';
import { relativeTo } from './workspace.js';
import { AgentError } from '../common/errors.js';

/**
 * Which files a search may see. Inside a git work tree git itself answers (tracked plus untracked,
 * minus what .gitignore and .git/info/exclude say; no global config is read, see
 * src/git/env.ts), which is both exact and fast, and its answer is kept while the tree
 * stands still (git-listing.ts); outside one a walker applies every
 * .gitignore it meets. `.geminiignore` at the root is honoured on top, as Gemini CLI does.
 */
export interface ListOptions {
  respectGitIgnore: boolean;
  respectGeminiIgnore: boolean;
  signal: AbortSignal;
  /** A path naming absDir itself, opened and checked (/proc/self/fd/N): the walker goes through it. Default: absDir. */
  dirPath?: string;
}

const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** A hard stop for the walker: a tree bigger than this is not walked to the end. */
const WALK_LIMIT = 300_000;

/**
 * git, no shell, stdout as a Buffer; rejects on a non-zero exit. Hardened like the action's own git
 * (src/git/env.ts): `ls-files` reads the index, which runs a `core.fsmonitor` command a model
 * could have written into the repository's config.
 */
function runGit(cwd: string, args: string[], signal?: AbortSignal): Promise<Buffer> {
  return new Promise((resolveP, reject) => {
    execFile(
      'git',
      args,
      {
        cwd,
        signal,
        encoding: 'buffer',
        maxBuffer: 512 * 1024 * 1024,
        env: createGitEnv({ base: process.env, extra: { GIT_OPTIONAL_LOCKS: '0' } }),
      },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`git ${args[0]}: ${stderr.toString().trim() || err.message}`));
        else resolveP(stdout);
      },
    );
  });
}

/** One per process: git's answer for the directories searched last, while their `.git` entries stand still. */
const workTrees = createWorkTreeCheck({
  askGit: async (dir) => {
    try {
      return (await runGit(dir, ['rev-parse', '--is-inside-work-tree'])).toString().trim() === 'true';
    } catch {
      return false;
    }
  },
});

/** try*: never throws. True when dir is inside a git work tree (and git is installed). */
export function tryIsGitWorkTree(dir: string): Promise<boolean> {
  return workTrees.isWorkTree(dir);
}

/**
 * Files (not directories) under absDir, as root-relative `/` paths, unsorted. Inside a work tree
 * one `git ls-files` answers; it fails outside one (or with no git), and the walker answers then.
 */
export async function listFiles(root: string, absDir: string, opts: ListOptions): Promise<string[]> {
  const gemini = opts.respectGeminiIgnore ? readIgnoreFile(root, join(root, '.geminiignore')) : undefined;
  const files =
    (opts.respectGitIgnore ? await tryListGitFiles(root, absDir, opts.signal) : undefined) ??
    (await walkFiles(root, absDir, opts)).files;
  // git lists the credentials file as any untracked file: it is left out here (hidden-files.ts).
  const shown = hasHiddenFiles(root) ? files.filter((f) => !isHiddenFile(root, join(root, f))) : files;
  return gemini ? shown.filter((f) => !gemini.ignores(f)) : shown;
}

/** One per process: the listings of the directories searched last, while their trees stand still. */
const gitListing = createGitListing({ runGit });

/** try*: undefined when absDir is not in a git work tree or git cannot list it (but an abort throws). */
async function tryListGitFiles(root: string, absDir: string, signal: AbortSignal): Promise<string[] | undefined> {
  if (!hasGitAbove(absDir)) return undefined;
  let files: string[];
  try {
    files = await gitListing.list(absDir, signal);
  } catch {
    if (signal.aborted) throw new AgentError('cancelled', 'aborted');
    return undefined;
  }
  const prefix = relativeTo(root, absDir);
  return prefix === '.' ? files : files.map((f) => `${prefix}/${f}`);
}

/**
 * git finds its work tree by a `.git` in the folder or a folder above it: the environment it runs in
 * names no other (src/git/env.ts passes no GIT_DIR). Without one, git's answer is known without
 * starting it, and a listing outside a repository is a walk, not a failed process and a walk.
 */
function hasGitAbove(absDir: string): boolean {
  for (let d = absDir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return true;
    if (dirname(d) === d) return false;
  }
}

/**
 * try*: the rules of an ignore file, opened confined to the workspace (confined-fs.ts; a link to a
 * file inside is followed). The model can write these files: their rules match in linear time
 * (ignore-rules.ts).
 */
export function readIgnoreFile(root: string, abs: string): IgnoreRules | undefined {
  try {
    const f = openFileIn(root, abs, { shown: abs, follow: true });
    try {
      // A FIFO or a device would block the read forever; a huge file is not an ignore file.
      if (!f.stats.isFile() || f.stats.size > MAX_IGNORE_FILE_BYTES) return undefined;
      return createIgnoreRules().add(readOpenedSync(f).toString('utf8'));
    } finally {
      closeOpened(f);
    }
  } catch {
    return undefined;
  }
}

interface Rules {
  /** Root-relative directory the .gitignore sits in ('' for the root). */
  base: string;
  ig: IgnoreRules;
}

/**
 * Breadth-first walk that never follows symlinked directories (no escapes, no cycles). Every
 * directory it descends into is opened and checked first (confined-fs.ts) and listed through its
 * descriptor, so a folder swapped for a link out of the workspace while the walk runs is not
 * listed. `symlinks` are the listed files that are symbolic links (a searcher that opens files
 * must confine them).
 */
export async function walkFiles(
  root: string,
  absDir: string,
  opts: ListOptions,
): Promise<{ files: string[]; symlinks: Set<string> }> {
  const out: string[] = [];
  const symlinks = new Set<string>();
  const fromRoot = relativeTo(root, absDir);
  const startRel = fromRoot === '.' ? '' : fromRoot;
  const start = opts.dirPath ?? absDir;
  // Where a directory of the walk is opened: through the start itself, which was opened and checked.
  // The start as `<it>/.`: /proc/self/fd/N is a link to O_NOFOLLOW; `.` in the directory it names is not.
  const pathOf = (rel: string) =>
    rel === startRel ? `${start}/.` : join(start, startRel === '' ? rel : rel.slice(startRel.length + 1));
  const queue: Array<{ rel: string; rules: Rules[] }> = [{ rel: startRel, rules: [] }];
  if (opts.respectGitIgnore) queue[0].rules = ancestorRules(root, queue[0].rel);
  while (queue.length > 0 && out.length < WALK_LIMIT) {
    if (opts.signal.aborted) throw new AgentError('cancelled', 'aborted');
    const { rel, rules: inherited } = queue.shift()!;
    const listed = await tryListDir(root, { rel, path: pathOf(rel) }, opts.respectGitIgnore);
    if (!listed) continue; // unreadable, gone, or no longer inside: skip it, as git skips what it cannot read
    const { entries, own } = listed;
    const rules = own ? [...inherited, { base: rel, ig: own }] : inherited;
    for (const e of entries) {
      if (e.name === '.git') continue;
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      const isDir = e.isDirectory();
      if (rules.some((r) => r.ig.ignores(pathUnder(r.base, childRel) + (isDir ? '/' : '')))) continue;
      if (isDir) queue.push({ rel: childRel, rules });
      else if (e.isFile()) out.push(childRel);
      else if (e.isSymbolicLink()) {
        out.push(childRel);
        symlinks.add(childRel);
      }
    }
  }
  return { files: out, symlinks };
}

/** One directory of the walk, opened and checked, listed through its descriptor, with its own .gitignore. */
async function tryListDir(
  root: string,
  at: { rel: string; path: string },
  withIgnore: boolean,
): Promise<{ entries: Dirent[]; own: IgnoreRules | undefined } | undefined> {
  let dir;
  try {
    dir = openDirIn(root, at.path, { shown: at.rel || '.' });
  } catch {
    return undefined;
  }
  try {
    const entries = await listOpenedDir(root, dir);
    const own =
      withIgnore && entries.some((e) => e.name === '.gitignore' && e.isFile())
        ? readIgnoreFile(root, join(dir.path, '.gitignore'))
        : undefined;
    return { entries, own };
  } catch {
    return undefined;
  } finally {
    closeOpened(dir);
  }
}

/** .gitignore files of the directories above the start (the walk may begin below the root). */
function ancestorRules(root: string, startRel: string): Rules[] {
  const rules: Rules[] = [];
  const parts = startRel === '' ? [] : startRel.split('/');
  for (let i = 0; i < parts.length; i++) {
    const base = parts.slice(0, i).join('/');
    const ig = readIgnoreFile(root, join(root, base, '.gitignore'));
    if (ig) rules.push({ base, ig });
  }
  return rules;
}

function pathUnder(base: string, rel: string): string {
  return base === '' ? rel : rel.slice(base.length + 1);
}
