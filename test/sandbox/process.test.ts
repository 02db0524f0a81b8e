/**
 * The two ways a process starts (src/sandbox/process-direct.ts, process-bwrap.ts) and the probe
 * (src/sandbox/probe.ts), each against a real program: the real bubblewrap where the behaviour is
 * the sandbox's, and small bash scripts standing in for a bwrap that reports, fails or lies in a
 * particular way where the code under test is what reads bwrap's reports.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBwrapArgs } from '../../src/sandbox/bwrap-args.js';
import { readSystemEntries } from '../../src/sandbox/layout.js';
import { DATA_FD, STATUS_FD, spawnBwrap } from '../../src/sandbox/process-bwrap.js';
import { spawnDirect } from '../../src/sandbox/process-direct.js';
import { classifyBwrapFailure, probeBwrap, readBwrapVersion, supportsDisableUserns } from '../../src/sandbox/probe.js';
import type { ConfinedProcess } from '../../src/sandbox/types.js';
import { processAlive } from '../../src/sandbox/check.js';

let root: string;
beforeAll(() => {
  mkdirSync(join(process.cwd(), 'tmp'), { recursive: true });
  root = realpathSync(mkdtempSync(join(process.cwd(), 'tmp', 'process-test-')));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An executable bash script under root. */
function script(name: string, body: string): string {
  const path = join(root, name);
  writeFileSync(path, `#!/bin/bash\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Everything the process wrote on stdout and stderr, once it has closed. */
async function outputOf(p: ConfinedProcess): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  p.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  await p.closed;
  return { stdout, stderr };
}

const marker = () => `1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;

describe('spawnDirect', () => {
  it('runs the command in its folder with exactly the given environment, and reads its exit code', async () => {
    const p = spawnDirect({
      argv: ['bash', '-c', 'pwd; echo "v=$V home=${HOME-unset}"; echo err >&2; exit 3'],
      workspace: root,
      cwd: root,
      env: { V: 'x', PATH: '/usr/bin:/bin' },
    });
    expect(p.sandboxed).toBe(false);
    expect(p.pid).toBeGreaterThan(0);
    expect(p.stdin).toBeNull();
    const out = await outputOf(p);
    expect(out).toEqual({ stdout: `${root}\nv=x home=unset\n`, stderr: 'err\n' });
    expect(await p.exited).toEqual({ code: 3, signal: null });
    expect(await p.closed).toEqual({ code: 3, signal: null });
  });

  it('talks on stdin when asked to', async () => {
    const p = spawnDirect({
      argv: ['bash', '-c', 'read l; echo "got $l"'],
      workspace: root,
      cwd: root,
      env: { PATH: '/usr/bin:/bin' },
      stdin: 'pipe',
    });
    p.stdin!.end('hi\n');
    expect((await outputOf(p)).stdout).toBe('got hi\n');
  });

  it('a program that does not exist: a start error on both promises, naming it', async () => {
    const p = spawnDirect({ argv: ['/nonexistent/prog', 'a'], workspace: root, cwd: root, env: {} });
    const startError = 'failed to start /nonexistent/prog: spawn /nonexistent/prog ENOENT';
    expect(await p.exited).toEqual({ code: null, signal: null, startError });
    expect(await p.closed).toEqual({ code: null, signal: null, startError });
    expect(p.hasStragglers()).toBe(false);
  });

  it('a background process left in the group after the command exited is a straggler until it is killed', async () => {
    const m = marker();
    const p = spawnDirect({
      argv: ['bash', '-c', `sleep ${m} >/dev/null 2>&1 &`],
      workspace: root,
      cwd: root,
      env: { PATH: '/usr/bin:/bin' },
    });
    p.stdout.resume();
    p.stderr.resume();
    expect(await p.exited).toEqual({ code: 0, signal: null });
    expect(p.hasStragglers()).toBe(true);
    p.kill();
    while (p.hasStragglers()) await new Promise((r) => setTimeout(r, 10)); // the test's timeout bounds the wait
    expect(p.hasStragglers()).toBe(false);
    expect(await processAlive(m)).toBe(false);
  });

  it('terminate and kill signal the whole group; stragglers are seen until then', async () => {
    const m = marker();
    const p = spawnDirect({
      argv: ['bash', '-c', `sleep ${m} & echo started; wait`],
      workspace: root,
      cwd: root,
      env: { PATH: '/usr/bin:/bin' },
    });
    const started = new Promise<void>((r) => p.stdout.once('data', () => r()));
    p.stderr.resume();
    await started;
    expect(p.hasStragglers()).toBe(true);
    p.terminate();
    expect(await p.exited).toEqual({ code: null, signal: 'SIGTERM' });
    // The background sleep held the output open: closed means it is gone too.
    expect(await p.closed).toEqual({ code: null, signal: 'SIGTERM' });
    expect(await processAlive(m)).toBe(false);
    // Until init reaps it, the dead sleep still counts as a member of the group: wait for that.
    while (p.hasStragglers()) await new Promise((r) => setTimeout(r, 10)); // the test's timeout bounds the wait
    expect(p.hasStragglers()).toBe(false);

    const q = spawnDirect({
      argv: ['bash', '-c', `trap '' TERM; sleep ${m} & echo started; wait`],
      workspace: root,
      cwd: root,
      env: { PATH: '/usr/bin:/bin' },
    });
    const qStarted = new Promise<void>((r) => q.stdout.once('data', () => r()));
    q.stderr.resume();
    await qStarted;
    q.kill();
    expect(await q.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await q.closed;
    expect(await processAlive(m)).toBe(false);
  });
});

/** A minimal real plan: the system read-only, the workspace writable, nothing else. */
async function realArgs(argv: string[], over: { network?: boolean; gitConfig?: string } = {}): Promise<string[]> {
  return buildBwrapArgs({
    argv,
    workspace: root,
    cwd: root,
    home: '/home/sandbox',
    network: over.network ?? false,
    system: await readSystemEntries(),
    readOnly: [],
    writable: [],
    protectedPaths: [],
    gitConfig: over.gitConfig === undefined ? undefined : { path: over.gitConfig, dataFd: DATA_FD },
    hidden: [],
    statusFd: STATUS_FD,
    disableUserns: true,
  });
}

describe('spawnBwrap with the real bubblewrap', () => {
  it('reports the sandbox pid and namespaces, feeds the data descriptor, and gives the exit code', async () => {
    writeFileSync(join(root, 'target.txt'), 'on disk\n');
    const p = spawnBwrap({
      bwrap: '/usr/bin/bwrap',
      args: await realArgs(['bash', '-c', 'cat target.txt; echo $$; exit 4'], { gitConfig: join(root, 'target.txt') }),
      env: { PATH: '/usr/bin:/bin' },
      data: 'from fd 4\n',
    });
    expect(p.sandboxed).toBe(true);
    const info = await p.started;
    expect(info?.childPid).toBeGreaterThan(0);
    expect(Object.keys(info?.namespaces ?? {}).sort()).toEqual(
      expect.arrayContaining([
        'cgroup-namespace',
        'ipc-namespace',
        'mnt-namespace',
        'net-namespace',
        'pid-namespace',
        'uts-namespace',
      ]),
    );
    expect(Object.keys(info?.namespaces ?? {}).every((k) => k.endsWith('-namespace'))).toBe(true);
    const out = await outputOf(p);
    // The file bound with --ro-bind-data reads what was written to descriptor 4; the command is PID 2 (bwrap's init is 1).
    expect(out.stdout).toBe('from fd 4\n2\n');
    expect(await p.exited).toEqual({ code: 4, signal: null });
    expect(await p.closed).toEqual({ code: 4, signal: null });
    expect(p.hasStragglers()).toBe(false);
  });

  it('a command killed by a signal reads as that signal, not as 128+N', async () => {
    const p = spawnBwrap({
      bwrap: '/usr/bin/bwrap',
      args: await realArgs(['bash', '-c', 'kill -KILL $$']),
      env: { PATH: '/usr/bin:/bin' },
    });
    await outputOf(p);
    expect(await p.closed).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('terminate sends SIGTERM to the command; kill ends everything, including what left the group', async () => {
    const m = marker();
    const p = spawnBwrap({
      bwrap: '/usr/bin/bwrap',
      args: await realArgs(['bash', '-c', `setsid sleep ${m} & echo started; wait`]),
      env: { PATH: '/usr/bin:/bin' },
    });
    const started = new Promise<void>((r) => p.stdout.once('data', () => r()));
    p.stderr.resume();
    await started;
    p.terminate();
    expect(await p.closed).toEqual({ code: null, signal: 'SIGTERM' });
    expect(await processAlive(m)).toBe(false);
    p.terminate(); // over: nothing to signal, no throw
    p.kill();

    const q = spawnBwrap({
      bwrap: '/usr/bin/bwrap',
      args: await realArgs(['bash', '-c', `trap '' TERM; setsid sleep ${m} & echo started; wait`]),
      env: { PATH: '/usr/bin:/bin' },
    });
    const qStarted = new Promise<void>((r) => q.stdout.once('data', () => r()));
    q.stderr.resume();
    await qStarted;
    q.kill();
    const s = await q.closed;
    expect(s.signal ?? s.code).not.toBe(0);
    expect(await processAlive(m)).toBe(false);
  });
});

describe('spawnBwrap reading what a bwrap reports', () => {
  it('a bwrap that does not exist: a start error naming it', async () => {
    const p = spawnBwrap({ bwrap: '/nonexistent/bwrap', args: ['--', 'true'], env: {} });
    const startError = 'failed to start /nonexistent/bwrap: spawn /nonexistent/bwrap ENOENT';
    expect(await p.exited).toEqual({ code: null, signal: null, startError });
    expect(await p.closed).toEqual({ code: null, signal: null, startError });
    expect(await p.started).toBeUndefined();
  });

  it('a bwrap that fails before the sandbox is up, closing the data descriptor unread: its status, no crash', async () => {
    const bwrap = script('fails-early', 'exec 4<&-\necho "bwrap: Can\'t mount tmpfs" >&2\nexit 1');
    // More than a pipe holds, so the write is still pending when the reader goes away (EPIPE).
    const p = spawnBwrap({ bwrap, args: [], env: {}, data: 'x'.repeat(1 << 20) });
    const out = await outputOf(p);
    expect(out.stderr).toBe("bwrap: Can't mount tmpfs\n");
    expect(await p.closed).toEqual({ code: 1, signal: null, startError: 'bubblewrap could not set up the sandbox' });
    expect(await p.started).toBeUndefined();
    // Not started: terminate ends bwrap's own group (no sandbox to clean up); nothing is left to signal.
    p.terminate();
    p.kill();
  });

  it('before the sandbox is up, terminate and kill end bwrap itself (SIGKILL: there is nothing to clean up)', async () => {
    for (const how of ['terminate', 'kill'] as const) {
      const bwrap = script(`hangs-${how}`, 'echo setting-up\nexec sleep 1000');
      const p = spawnBwrap({ bwrap, args: [], env: { PATH: '/usr/bin:/bin' } });
      await new Promise<void>((r) => p.stdout.once('data', () => r()));
      p.stderr.resume();
      p[how]();
      expect(await p.closed).toEqual({
        code: null,
        signal: 'SIGKILL',
        startError: 'bubblewrap could not set up the sandbox',
      });
    }
  });

  it('reads status lines split across writes, skips blank and foreign lines, and prefers the reported exit code', async () => {
    const bwrap = script(
      'reports',
      [
        `printf '{"child-pid": %d, "mnt-namespace": 11, "pid-namespace": "x", "other": 3}' $$ >&3`,
        `sleep 0.05; printf '\\n\\nnot json\\n{"cgroup-namespace": 12}\\n' >&3`,
        `printf '{"exit-code": 143}\\n' >&3`,
        'exit 0',
      ].join('\n'),
    );
    const p = spawnBwrap({ bwrap, args: [], env: { PATH: '/usr/bin:/bin' } });
    const info = await p.started;
    expect(info).toEqual({ childPid: expect.any(Number) as unknown, namespaces: { 'mnt-namespace': 11 } });
    await outputOf(p);
    // exit-code 143 is SIGTERM's 128+15, whatever bwrap's own exit code was.
    expect(await p.closed).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('a later status line without a child pid leaves the sandbox pid as it was: terminate still reaches the command', async () => {
    const bwrap = script(
      'reports-more',
      `echo "{\\"child-pid\\": $$}" >&3\necho '{"cgroup-namespace": 5}' >&3\necho ready\nexec sleep 1000`,
    );
    const p = spawnBwrap({ bwrap, args: [], env: { PATH: '/usr/bin:/bin' } });
    await new Promise<void>((r) => p.stdout.once('data', () => r()));
    expect(await p.started).toMatchObject({ namespaces: {} });
    p.stderr.resume();
    p.terminate();
    expect(await p.closed).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('an exit code bwrap reports as is when it is no signal', async () => {
    const bwrap = script('reports-7', `echo "{\\"child-pid\\": $$}" >&3\necho '{"exit-code": 7}' >&3\nexit 0`);
    const p = spawnBwrap({ bwrap, args: [], env: {} });
    await outputOf(p);
    expect(await p.exited).toEqual({ code: 7, signal: null });
    expect(await p.closed).toEqual({ code: 7, signal: null });
  });
});

describe('probeBwrap and readBwrapVersion', () => {
  it('the real bubblewrap: its version, and ok when the probe command ran', async () => {
    const v = await readBwrapVersion('/usr/bin/bwrap');
    expect(v).toEqual({ ok: true, version: expect.stringMatching(/^\d+\.\d+(\.\d+)?$/) as unknown });
    const seen: string[] = [];
    const r = await probeBwrap('/usr/bin/bwrap', async (dir, version) => {
      seen.push(dir, version);
      return { code: 0, stderr: '', started: true };
    });
    expect(r).toEqual({ ok: true, bwrap: '/usr/bin/bwrap', version: v.ok ? v.version : '' });
    expect(seen[0]).toMatch(/\/agent-action-probe-[^/]+$/);
    expect(seen[1]).toBe(v.ok ? v.version : '');
  });

  it('a missing bwrap, and one whose --version fails', async () => {
    expect(await readBwrapVersion('/nonexistent/bwrap')).toEqual({
      ok: false,
      message: 'bubblewrap is not installed (/nonexistent/bwrap not found)',
    });
    const broken = script('broken-version', 'echo no >&2; exit 2');
    const v = await readBwrapVersion(broken);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.message.startsWith(`${broken} --version failed: Command failed: ${broken} --version`)).toBe(true);
    expect(await readBwrapVersion(script('odd-version', 'echo "  custom build  "'))).toEqual({
      ok: true,
      version: 'custom build',
    });
    expect(await readBwrapVersion(script('two-part-version', 'echo "bubblewrap 1.2"'))).toEqual({
      ok: true,
      version: '1.2',
    });
    expect(await readBwrapVersion(script('long-version', 'echo "bubblewrap 10.12.345 (git)"'))).toEqual({
      ok: true,
      version: '10.12.345',
    });
    let ran = false;
    const r = await probeBwrap(
      '/nonexistent/bwrap',
      async () => ((ran = true), { code: 0, stderr: '', started: true }),
    );
    expect(r).toEqual({
      ok: false,
      kind: 'missing',
      bwrap: '/nonexistent/bwrap',
      message: 'bubblewrap is not installed (/nonexistent/bwrap not found)',
    });
    expect(ran).toBe(false);
  });

  it.each([
    [
      { code: 1, stderr: '  bwrap: setting up uid map: Permission denied\n', started: false },
      'userns_denied',
      'bwrap: setting up uid map: Permission denied',
    ],
    [{ code: 1, stderr: '', started: false }, 'failed', 'exit code 1'],
    [{ code: null, stderr: '', started: false }, 'failed', 'exit code null'],
    [{ code: 0, stderr: '', started: false }, 'failed', 'exit code 0'],
    [{ code: 2, stderr: 'x', started: true }, 'failed', 'x'],
  ])('a probe run of %j is %s', async (run, kind, message) => {
    const r = await probeBwrap('/usr/bin/bwrap', async () => run);
    expect(r).toEqual({ ok: false, kind, bwrap: '/usr/bin/bwrap', message });
  });

  it('a probe run that throws is a failure with its message, and the scratch folder is removed either way', async () => {
    let dir = '';
    const r = await probeBwrap('/usr/bin/bwrap', async (d) => {
      dir = d;
      throw new Error('spawn went wrong');
    });
    expect(r).toEqual({ ok: false, kind: 'failed', bwrap: '/usr/bin/bwrap', message: 'spawn went wrong' });
    const { existsSync } = await import('node:fs');
    expect(existsSync(dir)).toBe(false);
  });

  it.each([
    ['bwrap: setting up UID MAP: permission denied', 'userns_denied'],
    ['bwrap: Creating new namespace failed: Permission denied', 'userns_denied'],
    ['bwrap: Creating new namespace failed: No space left on device', 'failed'],
    ['kernel does not allow unprivileged user namespaces', 'userns_denied'],
    ['write to uid_map failed: Operation not permitted', 'userns_denied'],
    ['write to uid_map failed: Invalid argument', 'failed'],
    ['setting up uid map: No such file', 'failed'],
  ])('%s is %s', (stderr, kind) => {
    expect(classifyBwrapFailure(stderr)).toBe(kind);
  });

  it.each([
    ['0.7.9', false],
    ['0.8', true],
    ['0.9.0', true],
    ['2.0.0', true],
    ['custom build', false],
  ])('bwrap %s supports --disable-userns: %s', (v, yes) => {
    expect(supportsDisableUserns(v)).toBe(yes);
  });
});
