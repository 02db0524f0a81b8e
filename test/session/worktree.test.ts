import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureWorktree, restoreWorktree } from '../../src/session/worktree.js';
import { createRepo, git, makeTempDir, writeFiles } from '../support/git-repo.js';

/** Every file under dir except .git: path -> mode and bytes (symlinks by target). */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (name === '.git') continue;
      const abs = join(d, name);
      const st = lstatSync(abs);
      if (st.isDirectory()) walk(abs);
      else if (st.isSymbolicLink()) out[relative(dir, abs)] = `link -> ${readlinkSync(abs)}`;
      else out[relative(dir, abs)] = `${(st.mode & 0o111) !== 0 ? 'x' : '-'} ${readFileSync(abs).toString('base64')}`;
    }
  };
  walk(dir);
  return out;
}

const binary = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 37 + 11) % 256));

function changedRepo() {
  const { dir, remote } = createRepo(
    {
      'README.md': '# hello\n',
      'src/app.ts': 'export const a = 1;\n',
      'src/gone.ts': 'export const gone = true;\n',
      'assets/logo.bin': binary,
      'scripts/run.sh': '#!/bin/sh\necho hi\n',
      '.gitignore': 'node_modules/\n',
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    },
    { remote: true },
  );
  writeFiles(dir, {
    'src/app.ts': 'export const a = 2;\nexport const b = 3;\n',
    'deep/new/folder/file.txt': 'new file in new folders\n',
    'assets/logo.bin': Buffer.concat([binary, Buffer.from([0, 1, 2, 255])]),
    'assets/new.bin': Buffer.from([0, 0, 0, 7, 255, 254]),
    'latin1.txt': Buffer.from([0x6e, 0x61, 0xef, 0x76, 0x65, 0x0a]),
    'node_modules/dep/index.js': 'ignored\n',
  });
  rmSync(join(dir, 'src/gone.ts'));
  chmodSync(join(dir, 'scripts/run.sh'), 0o755);
  symlinkSync('src/app.ts', join(dir, 'app-link.ts'));
  git(dir, 'add', 'src/app.ts'); // a staged change as well as unstaged ones
  return { dir, remote: remote! };
}

describe('work-tree snapshot', () => {
  it('restores a fresh clone byte-identical: binary, deleted, new folders, modes, symlinks', async () => {
    const { dir, remote } = changedRepo();
    const headBefore = git(dir, 'rev-parse', 'HEAD');
    const indexBefore = git(dir, 'diff', '--cached', '--name-only');
    const snap = await captureWorktree(dir);
    expect(snap.baseCommit).toBe(headBefore);
    // Capture leaves the repository's own index and HEAD alone.
    expect(git(dir, 'diff', '--cached', '--name-only')).toBe(indexBefore);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(headBefore);

    const clone = makeTempDir('agent-action-clone-');
    git(clone, 'clone', '-q', remote, '.');
    writeFileSync(join(clone, 'stray.txt'), 'left over from the checkout\n');
    await restoreWorktree(clone, snap, { branch: 'agent/fix-7' });

    const expected = listing(dir);
    delete expected['node_modules/dep/index.js']; // ignored files are not part of a snapshot
    expect(listing(clone)).toEqual(expected);
    expect(git(clone, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('agent/fix-7');
  });

  it('captures an unchanged tree as an empty patch and restores it', async () => {
    const { dir, remote } = createRepo({ 'a.txt': 'a\n' }, { remote: true });
    const snap = await captureWorktree(dir);
    expect(snap.patchBase64).toBe('');
    const clone = makeTempDir('agent-action-clone-');
    git(clone, 'clone', '-q', remote!, '.');
    await restoreWorktree(clone, snap);
    expect(git(clone, 'status', '--porcelain')).toBe('');
  });

  it('fetches a base commit a shallow clone lacks', async () => {
    const { dir, remote } = createRepo({ 'a.txt': 'a\n' }, { remote: true });
    writeFiles(dir, { 'a.txt': 'b\n' });
    const snap = await captureWorktree(dir);
    writeFiles(dir, { 'later.txt': 'x\n' });
    git(dir, 'checkout', '-q', '--', 'a.txt');
    git(dir, 'add', 'later.txt');
    git(dir, 'commit', '-q', '-m', 'later');
    git(dir, 'push', '-q', 'origin', 'main');

    const clone = makeTempDir('agent-action-clone-');
    git(clone, 'clone', '-q', '--depth=1', `file://${remote}`, '.');
    expect(() => git(clone, 'cat-file', '-e', `${snap.baseCommit}^{commit}`)).toThrow();
    await expect(restoreWorktree(clone, snap)).rejects.toThrow(
      /is not in this clone and could not be fetched: no remote/,
    );
    await restoreWorktree(clone, snap, { remote: { url: `file://${remote}` } });
    expect(readFileSync(join(clone, 'a.txt'), 'utf8')).toBe('b\n');
    expect(lstatSync(join(clone, 'later.txt'), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('fails with the reason when the patch no longer applies', async () => {
    const { dir } = changedRepo();
    const snap = await captureWorktree(dir);
    const broken = Buffer.from(snap.patchBase64, 'base64')
      .toString('latin1')
      .replace('export const a = 1;', 'export const a = 9;');
    await expect(
      restoreWorktree(dir, { ...snap, patchBase64: Buffer.from(broken, 'latin1').toString('base64') }),
    ).rejects.toThrow(/the saved work-tree patch no longer applies on [0-9a-f]{12}: .*src\/app\.ts/s);
  });

  it('fails when the restored tree differs from the recorded one', async () => {
    const { dir } = changedRepo();
    const snap = await captureWorktree(dir);
    await expect(restoreWorktree(dir, { ...snap, tree: 'c'.repeat(40) })).rejects.toThrow(
      /differs from the saved one \(tree cccccccccccc\)/,
    );
  });

  it('fails when the base commit is unknown everywhere', async () => {
    const { dir } = createRepo({ 'a.txt': 'a\n' }, { remote: true });
    const snap = await captureWorktree(dir);
    await expect(restoreWorktree(dir, { ...snap, baseCommit: 'd'.repeat(40) })).rejects.toThrow(
      /base commit d{40} is not in this clone/,
    );
  });

  it('restores over a dirty work tree of the same repository', async () => {
    const { dir } = changedRepo();
    const before = listing(dir);
    const snap = await captureWorktree(dir);
    writeFiles(dir, { 'src/app.ts': 'scribbled\n', 'other/new.txt': 'x\n' });
    mkdirSync(join(dir, 'empty-dir'));
    await restoreWorktree(dir, snap);
    expect(listing(dir)).toEqual(before);
  });
});
