/**
 * Whether a directory is inside a git work tree, as `git rev-parse --is-inside-work-tree` says,
 * remembered while the `.git` entries git's discovery would meet stay the same. grep_search asks
 * before every search (git grep inside a work tree, the system's grep elsewhere), and the git
 * process costs more than the check: a fork of this process (dearer as the heap grows, since the
 * kernel copies the page tables) plus git's own start.
 *
 * git finds its repository by looking for `.git` in the directory and each one above it, so the
 * answer can change only when one of those appears, goes or is replaced. The check is an lstat of
 * `.git` in each directory from this one up to the first that has one (or to `/`): its identity
 * (device, inode, kind) or its absence. A `.git` file (a linked work tree, a submodule) or symlink
 * points elsewhere, whose changes these stamps would not see: git is asked every time.
 *
 * What the stamps cannot see makes only git grep fail (a `.git` emptied in place, `core.bare`
 * set), and grep_search then searches with its own walker: a slower search, never a wrong one.
 */
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `git rev-parse --is-inside-work-tree` in dir: true, or false (not a work tree, no git). */
type AskGit = (dir: string) => Promise<boolean>;

export interface WorkTreeCheckOptions {
  askGit: AskGit;
  /** Directories remembered at once (the least recently used is forgotten). Default 16. */
  maxEntries?: number;
}

export interface WorkTreeCheck {
  isWorkTree(absDir: string): Promise<boolean>;
}

export function createWorkTreeCheck(o: WorkTreeCheckOptions): WorkTreeCheck {
  const maxEntries = o.maxEntries ?? 16;
  const known = new Map<string, { stamps: string; answer: boolean }>();
  return {
    async isWorkTree(absDir) {
      // Stamped before git is asked: a change while it runs makes the next call ask again.
      const stamps = gitEntryStamps(absDir);
      const hit = known.get(absDir);
      known.delete(absDir);
      const answer = stamps !== undefined && hit?.stamps === stamps ? hit.answer : await o.askGit(absDir);
      if (stamps === undefined) return answer;
      // Last in the map: the most recently used.
      known.set(absDir, { stamps, answer });
      while (known.size > maxEntries) known.delete(known.keys().next().value!);
      return answer;
    },
  };
}

/** The `.git` entries from absDir up to the first directory that has one, or undefined when one is not a plain directory. */
function gitEntryStamps(absDir: string): string | undefined {
  const stamps: string[] = [];
  for (let dir = absDir; ; dir = dirname(dir)) {
    let s;
    try {
      s = lstatSync(join(dir, '.git'), { throwIfNoEntry: false, bigint: true });
    } catch {
      return undefined; // a folder it may not look into: git is asked
    }
    if (s) return s.isDirectory() ? [...stamps, `${s.dev}:${s.ino}`].join('/') : undefined;
    stamps.push('-');
    if (dirname(dir) === dir) return stamps.join('/');
  }
}
