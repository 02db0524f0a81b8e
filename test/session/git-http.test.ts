/**
 * Issue #11: the action pushes with a token handed to that one git process (an HTTP header in its
 * environment): never in argv, never in `.git/config`, and without the header actions/checkout
 * persists. Real git against git's own http-backend on 127.0.0.1 behind a server that admits only
 * the expected Authorization header.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitWorktree, pushHead } from '../../src/action/publish/commits.js';
import { createGitRefStore } from '../../src/session/git-ref-store.js';
import { GIT_IDENTITY, makeTempDir, writeFiles } from '../support/git-repo.js';
import {
  basicCredentials,
  startGitHttpServer,
  startRecordingProxy,
  type GitHttpServer,
} from '../support/git-http-server.js';
import { sampleSession, TEST_KEY } from './fixture.js';

const TOKEN = 'ghs_perProcessToken000000000000000000001';
const CHECKOUT_TOKEN = 'ghs_persistedByCheckout00000000000000002';
const basic = (token: string) => `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
const credentials = (token: string) => Buffer.from(`x-access-token:${token}`).toString('base64');

const made: string[] = [];
const closers: Array<() => Promise<void>> = [];
const tempDir = (prefix: string) => {
  const d = makeTempDir(prefix);
  made.push(d);
  return d;
};
const savedPath = process.env.PATH;
afterEach(async () => {
  process.env.PATH = savedPath;
  for (const close of closers.splice(0)) await close();
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

const cleanGit = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...GIT_IDENTITY, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
/** Asynchronous: the server answering it runs in this process. */
const cleanGitAsync = (cwd: string, ...args: string[]) =>
  promisify(execFile)('git', args, {
    cwd,
    env: { ...process.env, ...GIT_IDENTITY, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
/** Plain git with the repository's config in force, asynchronous (the server is in this process). */
const plainGit = async (cwd: string, ...args: string[]) => {
  try {
    await promisify(execFile)('git', args, {
      cwd,
      env: { ...process.env, ...GIT_IDENTITY, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
    });
  } catch {
    // What ran before git failed is what the test looks at.
  }
};

interface Served {
  server: GitHttpServer;
  bare: string;
  url: string;
  dir: string;
}

/**
 * A bare repository served over HTTP, and a clone of it the way actions/checkout leaves one with
 * persist-credentials left on: `http.<server>/.extraheader` in `.git/config` (here with a token the
 * server does not accept, so a push that used it would fail).
 */
async function servedClone(): Promise<Served> {
  const root = tempDir('agent-action-http-root-');
  const bare = join(root, 'repo.git');
  mkdirSync(bare);
  cleanGit(bare, 'init', '-q', '--bare', '-b', 'main');
  const seed = tempDir('agent-action-seed-');
  cleanGit(seed, 'init', '-q', '-b', 'main');
  writeFiles(seed, { 'a.txt': 'one\n' });
  cleanGit(seed, 'add', '-A');
  cleanGit(seed, 'commit', '-q', '-m', 'initial');
  cleanGit(seed, 'push', '-q', bare, 'main');
  const server = await startGitHttpServer({ root, token: TOKEN });
  closers.push(server.close);
  const url = `${server.url}repo.git`;
  const dir = tempDir('agent-action-http-clone-');
  await cleanGitAsync(dir, '-c', `http.extraHeader=AUTHORIZATION: ${basic(TOKEN)}`, 'clone', '-q', url, '.');
  cleanGit(dir, 'config', `http.${server.url}.extraheader`, `AUTHORIZATION: ${basic(CHECKOUT_TOKEN)}`);
  server.requests.length = 0;
  return { server, bare, url, dir };
}

/** A `git` first on PATH that logs its argv (one line per call) and runs the real one. */
function spyOnGitArgv(): () => string {
  const bin = tempDir('agent-action-spy-');
  const log = join(bin, 'argv.log');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  writeFileSync(log, '');
  process.env.PATH = `${bin}:${savedPath}`;
  return () => readFileSync(log, 'utf8');
}

/** Every file under .git, as text, to search for the token. */
function gitDirText(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!p.includes('/objects/')) out.push(readFileSync(p, 'latin1'));
    }
  };
  walk(join(dir, '.git'));
  return out.join('\n');
}

describe('pushing with a per-process token over smart HTTP', () => {
  it('push, session store and fetch work with only the per-process token; the persisted header is never sent', async () => {
    const s = await servedClone();
    const argv = spyOnGitArgv();
    const remote = { url: s.url, token: TOKEN };

    writeFiles(s.dir, { 'a.txt': 'two\n' });
    const { sha } = await commitWorktree(s.dir, { subject: 'agent-action: fix' });
    expect(await pushHead(s.dir, 'feature', { remote })).toEqual({ sha, rebased: false });
    expect(cleanGit(s.bare, 'rev-parse', 'feature')).toBe(sha);

    const store = createGitRefStore({ root: s.dir, remote, key: TEST_KEY });
    expect((await store.create(sampleSession())).ok).toBe(true);
    expect((await store.read('s-1f2e3d'))?.parsed.ok).toBe(true);
    expect(await store.list()).toHaveLength(1);

    expect(s.server.requests.length).toBeGreaterThan(4);
    expect(s.server.requests.filter((r) => basicCredentials(r.authorization) !== credentials(TOKEN))).toEqual([]);
    // The token is in no process's argv and nowhere in the repository's files.
    const calls = argv();
    expect(calls).toContain('push');
    expect(calls).not.toContain(TOKEN);
    expect(calls).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'));
    const stored = gitDirText(s.dir);
    expect(stored).not.toContain(TOKEN);
    expect(stored).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'));
  });

  it('with persist-credentials: false (no header in .git/config) the push works the same', async () => {
    const s = await servedClone();
    cleanGit(s.dir, 'config', '--unset-all', `http.${s.server.url}.extraheader`);
    writeFiles(s.dir, { 'a.txt': 'three\n' });
    await commitWorktree(s.dir, { subject: 'x' });
    await pushHead(s.dir, 'feature', { remote: { url: s.url, token: TOKEN } });
    expect(cleanGit(s.bare, 'show', 'feature:a.txt')).toBe('three');
  });

  it('without the token the push fails; no credential helper or askpass from .git/config runs', async () => {
    const s = await servedClone();
    const markers = tempDir('agent-action-markers-');
    const askpass = join(s.dir, '.git', 'askpass.sh');
    writeFileSync(askpass, `#!/bin/sh\ntouch '${join(markers, 'askpass')}'\n`);
    chmodSync(askpass, 0o755);
    cleanGit(s.dir, 'config', 'credential.helper', `!touch '${join(markers, 'credential-helper')}'; true`);
    cleanGit(s.dir, 'config', 'core.askPass', askpass);
    cleanGit(s.dir, 'config', '--unset-all', `http.${s.server.url}.extraheader`);
    writeFiles(s.dir, { 'a.txt': 'four\n' });
    await commitWorktree(s.dir, { subject: 'x' });
    await expect(pushHead(s.dir, 'feature', { remote: { url: s.url } })).rejects.toThrow(/git push to feature failed/);
    expect(readdirSync(markers)).toEqual([]);
    // Control: plain git asks both for the credentials the server wants.
    await plainGit(s.dir, 'push', '-q', s.url, 'HEAD:refs/heads/feature');
    expect(readdirSync(markers).sort()).toEqual(['askpass', 'credential-helper']);
  });

  it('an http.proxy written into .git/config never sees the push or its header', async () => {
    const s = await servedClone();
    const proxy = await startRecordingProxy();
    closers.push(proxy.close);
    cleanGit(s.dir, 'config', 'http.proxy', proxy.url);
    cleanGit(s.dir, 'config', `http.${s.url}.proxy`, proxy.url);
    writeFiles(s.dir, { 'a.txt': 'five\n' });
    await commitWorktree(s.dir, { subject: 'x' });
    await pushHead(s.dir, 'feature', { remote: { url: s.url, token: TOKEN } });
    expect(cleanGit(s.bare, 'show', 'feature:a.txt')).toBe('five');
    expect(proxy.requests).toEqual([]);
    // Control: plain git sends the request, persisted header included, to the proxy.
    await plainGit(s.dir, 'push', '-q', s.url, 'HEAD:refs/heads/other');
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(basicCredentials(String(proxy.requests[0].headers.authorization))).toBe(credentials(CHECKOUT_TOKEN));
  });
});
