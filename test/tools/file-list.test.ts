import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listFiles } from '../../src/tools/file-list.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';

// A `git` first on PATH that notes each start, then runs the real one: which listings start git.
let log: string;
let savedPath: string | undefined;
beforeEach(() => {
  const bin = makeTempDir('agent-action-git-spy-');
  log = join(bin, 'starts.log');
  const real = ['/usr/bin/git', '/bin/git', '/usr/local/bin/git'].find((p) => existsSync(p))!;
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$PWD" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}:${savedPath}`;
});
afterEach(() => {
  process.env.PATH = savedPath;
});
const starts = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
const list = (root: string, dir = root) =>
  listFiles(root, dir, { respectGitIgnore: true, respectGeminiIgnore: false, signal: new AbortController().signal });

describe('listFiles and git', () => {
  it('outside any work tree walks the folder without starting git, and still applies .gitignore', async () => {
    const dir = makeTempDir('agent-action-no-git-');
    writeFileSync(join(dir, '.gitignore'), 'build/\n');
    mkdirSync(join(dir, 'build'));
    writeFileSync(join(dir, 'build', 'out.js'), '');
    writeFileSync(join(dir, 'a.ts'), '');
    expect((await list(dir)).sort()).toEqual(['.gitignore', 'a.ts']);
    expect(starts()).toEqual([]);
  });

  it('in a work tree, and in a folder deep inside one, asks git', async () => {
    const { dir: repo } = createRepo({ 'a.ts': '', 'src/deep/b.ts': '', '.gitignore': 'skip.txt\n' });
    writeFileSync(join(repo, 'skip.txt'), '');
    expect((await list(repo)).sort()).toEqual(['.gitignore', 'a.ts', 'src/deep/b.ts']);
    expect(starts().length).toBeGreaterThan(0);
    const before = starts().length;
    expect(await list(repo, join(repo, 'src', 'deep'))).toEqual(['src/deep/b.ts']);
    expect(starts().length).toBeGreaterThan(before);
  });
});
