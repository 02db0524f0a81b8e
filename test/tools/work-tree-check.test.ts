/**
 * grep_search's "is this a git work tree?" (src/tools/work-tree-check.ts): git's own answer, asked
 * again whenever a `.git` entry on the way up appears, goes or is replaced, and every time for a
 * `.git` file. Real git, real folders; the counter wraps the real `git rev-parse`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkTreeCheck } from '../../src/tools/work-tree-check.js';
import { git, makeTempDir } from '../support/git-repo.js';

function counted() {
  const asked: string[] = [];
  const check = createWorkTreeCheck({
    askGit: async (dir) => {
      asked.push(dir);
      try {
        return (
          execFileSync('git', ['rev-parse', '--is-inside-work-tree'], {
            cwd: dir,
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
          }).trim() === 'true'
        );
      } catch {
        return false;
      }
    },
  });
  return { check, asked };
}

describe('whether a folder is in a git work tree', () => {
  it("keeps git's answer while the .git entries above stay, and asks again when one appears, goes or is replaced", async () => {
    const root = makeTempDir('work-tree-');
    const sub = join(root, 'a/b');
    mkdirSync(sub, { recursive: true });
    const { check, asked } = counted();

    expect(await check.isWorkTree(sub)).toBe(false);
    expect(await check.isWorkTree(sub)).toBe(false);
    expect(asked).toEqual([sub]);

    // A repository made above: the folder is in its work tree now.
    git(root, 'init', '-q');
    expect(await check.isWorkTree(sub)).toBe(true);
    expect(await check.isWorkTree(sub)).toBe(true);
    expect(asked).toEqual([sub, sub]);
    // Another folder is its own entry.
    expect(await check.isWorkTree(root)).toBe(true);
    expect(asked).toEqual([sub, sub, root]);

    // A repository nearer the folder: asked again.
    git(join(root, 'a'), 'init', '-q');
    expect(await check.isWorkTree(sub)).toBe(true);
    expect(asked).toEqual([sub, sub, root, sub]);

    // Both gone: asked again, and it is no work tree.
    rmSync(join(root, 'a/.git'), { recursive: true });
    rmSync(join(root, '.git'), { recursive: true });
    expect(await check.isWorkTree(sub)).toBe(false);
    expect(asked).toHaveLength(5);

    // Replaced by another repository in the same place (a new inode): asked again.
    git(root, 'init', '-q');
    expect(await check.isWorkTree(root)).toBe(true);
    const before = asked.length;
    renameSync(join(root, '.git'), join(root, 'old-git'));
    git(root, 'init', '-q');
    expect(await check.isWorkTree(root)).toBe(true);
    expect(asked).toHaveLength(before + 1);
  });

  it('says what git says inside .git itself: not a work tree', async () => {
    const root = makeTempDir('work-tree-');
    git(root, 'init', '-q');
    const { check } = counted();
    expect(await check.isWorkTree(join(root, '.git'))).toBe(false);
    expect(await check.isWorkTree(root)).toBe(true);
  });

  it('asks git every time under a .git file (a linked work tree) or a symlinked .git, whose targets it cannot watch', async () => {
    const root = makeTempDir('work-tree-');
    const main = join(root, 'main');
    mkdirSync(main);
    git(main, 'init', '-q', '-b', 'main');
    git(main, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x');
    const linked = join(root, 'linked');
    git(main, 'worktree', 'add', '-q', linked);
    const viaLink = join(root, 'via-link');
    mkdirSync(viaLink);
    symlinkSync(join(main, '.git'), join(viaLink, '.git'));
    const { check, asked } = counted();
    for (let i = 0; i < 2; i++) {
      expect(await check.isWorkTree(linked)).toBe(true);
      expect(await check.isWorkTree(viaLink)).toBe(true);
    }
    expect(asked).toEqual([linked, viaLink, linked, viaLink]);
  });

  it('forgets the least recently used folder past its size', async () => {
    const root = makeTempDir('work-tree-');
    const dirs = ['a', 'b', 'c'].map((d) => join(root, d));
    for (const d of dirs) mkdirSync(d);
    const asked: string[] = [];
    const check = createWorkTreeCheck({ askGit: async (d) => (asked.push(d), false), maxEntries: 2 });
    for (const d of dirs) await check.isWorkTree(d);
    await check.isWorkTree(dirs[2]);
    await check.isWorkTree(dirs[1]);
    expect(asked).toEqual(dirs);
    // b and c were used last (c before b): a comes back in c's place.
    await check.isWorkTree(dirs[0]);
    expect(asked).toEqual([...dirs, dirs[0]]);
    await check.isWorkTree(dirs[1]);
    await check.isWorkTree(dirs[2]);
    expect(asked).toEqual([...dirs, dirs[0], dirs[2]]);
  });
});
