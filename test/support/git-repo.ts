import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** git with a fixed identity: CI has no global one. */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.test',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...GIT_IDENTITY, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trimEnd();
}

/** Every temporary directory made through makeTempDir in this test file, removed after the file. */
const madeTempDirs = new Set<string>();

/**
 * A fresh directory under the OS temp dir, removed after the test file that made it (by
 * test/support/remove-temp-dirs.ts, a setup file of every vitest config).
 */
export function makeTempDir(prefix = 'agent-action-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  madeTempDirs.add(dir);
  return dir;
}

/** Remove every directory makeTempDir made so far. Never throws: a cleanup failure must not hide a test's result. */
export function removeTempDirs(): void {
  for (const dir of madeTempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Left behind: the suite's temp census reports it.
    }
  }
  madeTempDirs.clear();
}

/** Write files (path -> content) under dir, creating folders. */
export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/** A work tree with one commit on `main`, and optionally a bare `origin` it pushed to. */
export function createRepo(
  files: Record<string, string | Buffer> = { 'README.md': '# test\n' },
  opts: { remote?: boolean } = {},
) {
  const dir = makeTempDir('agent-action-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  let remote: string | undefined;
  if (opts.remote) {
    remote = makeTempDir('agent-action-remote-');
    git(remote, 'init', '-q', '--bare', '-b', 'main');
    git(dir, 'remote', 'add', 'origin', remote);
    git(dir, 'push', '-q', 'origin', 'main');
  }
  return { dir, remote };
}
