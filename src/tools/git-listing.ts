/**
 * `git ls-files` of a directory, remembered between calls while nothing git would see has changed.
 * A glob, a list_directory or a JS grep asks git for the files it may see; the git process costs
 * more than the rest of a small search. A session asks again
 * and again about a tree that mostly stands still, so the listing is kept and checked instead.
 *
 * The check is stats, no git: a file appears, vanishes or is renamed only by changing its
 * directory, so the listing holds while every directory under the search directory, the
 * .gitignore files in them and above them up to the work tree's top, and git's index,
 * info/exclude and config keep their inode and change time. The change time (ctime) moves with
 * every write and rename and cannot be set back by a program (unlike mtime).
 *
 * Racing writes: a file system stamps changes from a coarse clock, so a change made while the
 * listing ran can carry the same ctime as the state git saw. As git does for its racily clean
 * index entries, a listing is kept only when every stamp it relies on is older than its start
 * by `racyMs`; a tree written to just now is listed by git again next time.
 *
 * What is watched comes from a walk made after the listing, in the background (the caller has its
 * answer already): every directory except `.git` and those git reports as ignored as a whole
 * (`ls-files --others --ignored --directory`), which a file can only join ignored. Trees of more
 * than `maxDirs` directories, a `.git` file (linked work trees, submodules) and repository configs
 * that name another excludes file or include other configs are never kept: git is asked each time.
 */
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { dirname, join } from 'node:path';

/** git in `cwd` with `args`, stdout; rejects on a non-zero exit. */
type GitRunner = (cwd: string, args: string[], signal?: AbortSignal) => Promise<Buffer>;

export interface GitListingOptions {
  runGit: GitRunner;
  /** Milliseconds since the epoch, on the clock the file system stamps with. */
  now?: () => number;
  /** How much older than the listing's start a stamp must be to be trusted. Default 100 ms. */
  racyMs?: number;
  /** A tree with more directories is listed by git every time. Default 2,000. */
  maxDirs?: number;
  /** Directories remembered at once (the least recently used is forgotten). Default 8. */
  maxEntries?: number;
}

export interface GitListing {
  /** Files under absDir relative to it, `/`-separated, as `git ls-files` lists them; rejects as git does. */
  list(absDir: string, signal?: AbortSignal): Promise<string[]>;
  /** Resolves when the background work of earlier calls is done (tests). */
  settled(): Promise<void>;
}

const LIST_ARGS = [
  '-c',
  'core.quotepath=off',
  'ls-files',
  '-z',
  '--cached',
  '--others',
  '--exclude-standard',
  '--deduplicate',
];
const IGNORED_DIRS_ARGS = [
  '-c',
  'core.quotepath=off',
  'ls-files',
  '-z',
  '--others',
  '--ignored',
  '--exclude-standard',
  '--directory',
];

/** A path's identity and change time, or '-' when it does not exist. */
type Stamp = string;

interface Entry {
  files: string[];
  /** Every path the listing relies on, with its stamp when the listing was taken. */
  watched: Map<string, Stamp>;
}

const splitZ = (out: Buffer): string[] => {
  const items = out.toString('utf8').split('\0');
  if (items[items.length - 1] === '') items.pop();
  return items;
};

export function createGitListing(o: GitListingOptions): GitListing {
  const now = o.now ?? Date.now;
  const racyMs = o.racyMs ?? 100;
  const maxDirs = o.maxDirs ?? 2_000;
  const maxEntries = o.maxEntries ?? 8;
  const entries = new Map<string, Entry>();
  const tooBig = new Set<string>();
  const building = new Map<string, Promise<void>>();
  let background: Promise<void> = Promise.resolve();

  function remember(absDir: string, entry: Entry): void {
    entries.delete(absDir);
    entries.set(absDir, entry);
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
  }

  /** The watch list of a fresh listing, or undefined when it cannot be kept. */
  async function watchListOf(absDir: string, startedAt: number): Promise<Map<string, Stamp> | undefined> {
    const gitDir = findGitDir(absDir);
    if (!gitDir || !configIsPlain(join(gitDir, 'config'))) return undefined;
    const ignored = new Set(
      splitZ(await o.runGit(absDir, IGNORED_DIRS_ARGS))
        .filter((p) => p.endsWith('/'))
        .map((p) => join(absDir, p.slice(0, -1))),
    );
    const watched = new Map<string, Stamp>();
    const oldEnough = (path: string): boolean => {
      const s = statSync(path, { bigint: true, throwIfNoEntry: false });
      watched.set(path, s ? `${s.ino}:${s.ctimeNs}:${s.mtimeNs}:${s.size}` : '-');
      return (
        !s ||
        (s.ctimeNs < BigInt(startedAt - racyMs) * 1_000_000n && s.mtimeNs < BigInt(startedAt - racyMs) * 1_000_000n)
      );
    };
    for (const name of ['index', 'info/exclude', 'config']) if (!oldEnough(join(gitDir, name))) return undefined;
    // The folders above, up to the work tree's top: their .gitignore files apply here too.
    const top = dirname(gitDir);
    for (let dir = absDir; dir !== top;) {
      dir = dirname(dir);
      if (!oldEnough(dir) || !oldEnough(join(dir, '.gitignore'))) return undefined;
    }
    const queue = [absDir];
    for (let i = 0; i < queue.length; i++) {
      if (queue.length > maxDirs) {
        tooBig.add(absDir);
        return undefined;
      }
      const dir = queue[i];
      // Stamped before it is read: an entry added after the read changes the stamp.
      if (!oldEnough(dir)) return undefined;
      let names: Dirent[];
      try {
        names = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue; // unreadable: git cannot list it either; its stamp is watched
      }
      for (const e of names) {
        if (e.name === '.git') continue;
        const path = join(dir, e.name);
        if (e.isDirectory() && !ignored.has(path)) queue.push(path);
        else if (e.name === '.gitignore' && !oldEnough(path)) return undefined;
      }
    }
    return watched;
  }

  const fresh = (entry: Entry): boolean => {
    for (const [path, stamp] of entry.watched) {
      const s = statSync(path, { bigint: true, throwIfNoEntry: false });
      if ((s ? `${s.ino}:${s.ctimeNs}:${s.mtimeNs}:${s.size}` : '-') !== stamp) return false;
    }
    return true;
  };

  return {
    async list(absDir, signal) {
      // A watch list still being made for this directory is nearer than a new git process.
      await building.get(absDir);
      const hit = entries.get(absDir);
      if (hit && fresh(hit)) {
        remember(absDir, hit);
        return hit.files.slice();
      }
      entries.delete(absDir);
      const startedAt = now();
      const files = splitZ(await o.runGit(absDir, LIST_ARGS, signal));
      if (!tooBig.has(absDir) && !building.has(absDir)) {
        // After the answer: the caller does not wait for the watch list. A failure only means no cache.
        const built = new Promise((resolve) => setImmediate(resolve))
          .then(() => watchListOf(absDir, startedAt))
          .then(
            (watched) => {
              if (watched) remember(absDir, { files: files.slice(), watched });
            },
            () => undefined,
          );
        building.set(absDir, built);
        background = Promise.all([background, built.finally(() => building.delete(absDir))]).then(() => undefined);
      }
      return files;
    },
    settled: () => background,
  };
}

/** The `.git` folder of the work tree absDir is in; undefined for a `.git` file or none. */
function findGitDir(absDir: string): string | undefined {
  for (let dir = absDir; ; dir = dirname(dir)) {
    const s = statSync(join(dir, '.git'), { throwIfNoEntry: false });
    if (s) return s.isDirectory() ? join(dir, '.git') : undefined;
    if (dirname(dir) === dir) return undefined;
  }
}

/** No other excludes file and no included config whose changes the stamps would not see. */
function configIsPlain(path: string): boolean {
  try {
    return !/excludesfile|\binclude/i.test(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
}
