/**
 * The parts of process-bwrap.ts that need no sandbox: the /proc polling loop (with an injected
 * probe, so no clock), the status-line reader (on a PassThrough), and the pure helpers. Where
 * behaviour needs a process, a tiny bash script stands in for bwrap, or the real /usr/bin/bwrap runs.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  fromExitCode,
  procProbe,
  processState,
  readJsonLines,
  spawnBwrap,
  waitForNamespaceEnd,
  type NamespaceProbe,
} from '../../src/sandbox/process-bwrap.js';

let root: string;
beforeAll(() => {
  mkdirSync(join(process.cwd(), 'tmp'), { recursive: true });
  root = realpathSync(mkdtempSync(join(process.cwd(), 'tmp', 'process-bwrap-test-')));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function script(name: string, body: string): string {
  const path = join(root, name);
  writeFileSync(path, `#!/bin/bash\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A probe answering from lists (the last answer repeats), recording every read and pause. */
function scripted(links: string[], stats: string[]) {
  const calls: string[] = [];
  let reads = 0;
  let statReads = 0;
  const probe: NamespaceProbe = {
    readNsLink: (pid) => {
      calls.push(`link ${pid}`);
      return Promise.resolve(links[Math.min(reads++, links.length - 1)]!);
    },
    readStat: (pid) => {
      calls.push(`stat ${pid}`);
      return Promise.resolve(stats[Math.min(statReads++, stats.length - 1)]!);
    },
    pause: () => {
      calls.push('pause');
      return Promise.resolve();
    },
  };
  return { probe, calls };
}

const info = { childPid: 4242, namespaces: { 'pid-namespace': 777, 'mnt-namespace': 5 } };

describe('waitForNamespaceEnd', () => {
  it('returns at once when the pid names a process of another namespace', async () => {
    const s = scripted(['pid:[778]'], ['4242 (bwrap) S 1']);
    await waitForNamespaceEnd(info, s.probe);
    expect(s.calls).toEqual(['link 4242', 'stat 4242']);
  });

  it('returns at once when there is no such process (empty link and stat)', async () => {
    const s = scripted([''], ['']);
    await waitForNamespaceEnd(info, s.probe);
    expect(s.calls).toEqual(['link 4242', 'stat 4242']);
  });

  it('returns at once when PID 1 is a zombie, dead, or its stat is empty, though the namespace is the same', async () => {
    for (const stat of ['4242 (bwrap) Z 1', '4242 (bwrap) X 1', '']) {
      const s = scripted(['pid:[777]'], [stat]);
      await waitForNamespaceEnd(info, s.probe);
      expect(s.calls).toEqual(['link 4242', 'stat 4242']);
    }
  });

  it('keeps polling, one pause between reads, while PID 1 is alive in the same namespace', async () => {
    const s = scripted(
      ['pid:[777]', 'pid:[777]', 'pid:[777]'],
      ['4242 (bwrap) S 1', '4242 (bwrap) R 1', '4242 (bwrap) Z 1'],
    );
    await waitForNamespaceEnd(info, s.probe);
    expect(s.calls).toEqual([
      'link 4242',
      'stat 4242',
      'pause',
      'link 4242',
      'stat 4242',
      'pause',
      'link 4242',
      'stat 4242',
    ]);
  });

  it('stops when the link changes while the process stays alive', async () => {
    const s = scripted(['pid:[777]', 'pid:[9]'], ['4242 (bwrap) S 1']);
    await waitForNamespaceEnd(info, s.probe);
    expect(s.calls).toEqual(['link 4242', 'stat 4242', 'pause', 'link 4242', 'stat 4242']);
  });

  it('gives up after exactly 400 polls', async () => {
    const s = scripted(['pid:[777]'], ['4242 (sleep) S 1']);
    await waitForNamespaceEnd(info, s.probe);
    expect(s.calls.filter((c) => c === 'pause')).toHaveLength(400);
    expect(s.calls.filter((c) => c === 'link 4242')).toHaveLength(400);
    expect(s.calls.filter((c) => c === 'stat 4242')).toHaveLength(400);
  });

  it('does not poll without info or without a pid namespace', async () => {
    const s = scripted(['pid:[777]'], ['4242 (sleep) S 1']);
    await waitForNamespaceEnd(undefined, s.probe);
    await waitForNamespaceEnd({ childPid: 4242, namespaces: { 'mnt-namespace': 5 } }, s.probe);
    expect(s.calls).toEqual([]);
  });

  it('a pid namespace numbered 0 is still a namespace to wait on', async () => {
    const s = scripted(['pid:[0]', 'pid:[1]'], ['4242 (sleep) S 1']);
    await waitForNamespaceEnd({ childPid: 4242, namespaces: { 'pid-namespace': 0 } }, s.probe);
    expect(s.calls).toEqual(['link 4242', 'stat 4242', 'pause', 'link 4242', 'stat 4242']);
  });
});

describe('procProbe (the real /proc)', () => {
  it('reads this process: its pid namespace link and a stat line naming its state', async () => {
    expect(await procProbe.readNsLink(process.pid)).toMatch(/^pid:\[\d+\]$/);
    const stat = await procProbe.readStat(process.pid);
    expect(stat.startsWith(`${process.pid} (`)).toBe(true);
    expect(processState(stat)).toBe('alive');
  });

  it('a pid with no process: both read as empty', async () => {
    expect(await procProbe.readNsLink(2 ** 31 - 1)).toBe('');
    expect(await procProbe.readStat(2 ** 31 - 1)).toBe('');
  });

  it('pause resolves (a timer, not a hang)', async () => {
    await expect(procProbe.pause()).resolves.toBeUndefined();
  });
});

describe('readJsonLines', () => {
  it('parses lines split across chunks, skips blank and non-JSON lines, holds a trailing partial line', () => {
    const s = new PassThrough();
    const docs: unknown[] = [];
    readJsonLines(s, (d) => docs.push(d));
    s.write('{"a":');
    expect(docs).toEqual([]);
    s.write('1}\n\n   \nnot json\n  {"b": 2}  \n{"c"');
    expect(docs).toEqual([{ a: 1 }, { b: 2 }]);
    s.write(': 3}\n');
    expect(docs).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('the first line of the first chunk counts', () => {
    const s = new PassThrough();
    const docs: unknown[] = [];
    readJsonLines(s, (d) => docs.push(d));
    s.write('{"child-pid":1}\n');
    expect(docs).toEqual([{ 'child-pid': 1 }]);
  });

  it('reads bytes as UTF-8 text, a character split across chunks included', () => {
    const s = new PassThrough();
    const docs: unknown[] = [];
    readJsonLines(s, (d) => docs.push(d));
    const bytes = Buffer.from('{"k":"é"}\n');
    s.write(bytes.subarray(0, 7));
    s.write(bytes.subarray(7));
    expect(docs).toEqual([{ k: 'é' }]);
  });

  it('a stream error is swallowed, not thrown', () => {
    const s = new PassThrough();
    readJsonLines(s, () => undefined);
    expect(() => s.emit('error', new Error('EBADF'))).not.toThrow();
  });
});

describe('fromExitCode and processState', () => {
  it('128+N is signal N; 128, other codes and null are codes', () => {
    expect(fromExitCode(137, null)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(fromExitCode(129, null)).toEqual({ code: null, signal: 'SIGHUP' });
    expect(fromExitCode(128, null)).toEqual({ code: 128, signal: null });
    expect(fromExitCode(3, null)).toEqual({ code: 3, signal: null });
    expect(fromExitCode(null, 'SIGTERM')).toEqual({ code: null, signal: 'SIGTERM' });
    expect(fromExitCode(0, null)).toEqual({ code: 0, signal: null });
  });

  it('reads the state after the last closing parenthesis', () => {
    expect(processState('12 (a) Z) S 1 2')).toBe('alive');
    expect(processState('12 (a) S) Z 1 2')).toBe('over');
    expect(processState('12 (x) X 1')).toBe('over');
    expect(processState('12 (x) R 1')).toBe('alive');
    expect(processState('12 (x) D 1')).toBe('alive');
    expect(processState('')).toBe('over');
    expect(processState('12 (x)')).toBe('over');
  });
});

describe('spawnBwrap with a script standing in for bwrap', () => {
  it('started: the child pid and only the numeric *-namespace entries; stdin ignored by default; exactly the given env', async () => {
    const bwrap = script(
      'reports-ns',
      `echo "{\\"child-pid\\": 99999999, \\"pid-namespace\\": 21, \\"user-namespace\\": 22, \\"net-namespace\\": \\"n\\", \\"namespace\\": 3, \\"x-namespaces\\": 4}" >&3\necho "v=$V home=\${HOME-unset}"`,
    );
    const p = spawnBwrap({ bwrap, args: [], env: { V: 'x', PATH: '/usr/bin:/bin' } });
    expect(p.stdin).toBeNull();
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    p.stderr.resume();
    expect(await p.started).toEqual({ childPid: 99999999, namespaces: { 'pid-namespace': 21, 'user-namespace': 22 } });
    // pid 99999999 is no process: the namespace wait returns at once.
    expect(await p.closed).toEqual({ code: 0, signal: null });
    expect(out).toBe('v=x home=unset\n');
  });

  it('stdin: pipe gives a writable stdin the command reads', async () => {
    const bwrap = script('reads', 'echo \'{"child-pid": 99999998}\' >&3\nread l; echo "got $l"');
    const p = spawnBwrap({ bwrap, args: [], env: { PATH: '/usr/bin:/bin' }, stdin: 'pipe' });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    p.stdin!.end('hi\n');
    expect(await p.closed).toEqual({ code: 0, signal: null });
    expect(out).toBe('got hi\n');
  });

  it('after the end, terminate and kill signal nothing (the pids may name other processes by now)', async () => {
    const bwrap = script('ends', `echo "{\\"child-pid\\": $$}" >&3\nexit 0`);
    const p = spawnBwrap({ bwrap, args: [], env: {} });
    p.stdout.resume();
    p.stderr.resume();
    await p.exited;
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    p.terminate();
    p.kill();
    expect(kill).not.toHaveBeenCalled();
  });

  it('a bwrap that cannot start: exited and closed both carry the start error, and nothing is signalled', async () => {
    const p = spawnBwrap({ bwrap: join(root, 'missing-bwrap'), args: [], env: {} });
    const startError = `failed to start ${join(root, 'missing-bwrap')}: spawn ${join(root, 'missing-bwrap')} ENOENT`;
    expect(await p.closed).toEqual({ code: null, signal: null, startError });
    expect(await p.exited).toEqual({ code: null, signal: null, startError });
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    p.terminate();
    p.kill();
    expect(kill).not.toHaveBeenCalled();
  });

  it('a status line without an exit code after the one with it keeps the reported code', async () => {
    const bwrap = script(
      'reports-then-more',
      `echo "{\\"child-pid\\": 99999997}" >&3\necho '{"exit-code": 6}' >&3\necho '{"other": 1}' >&3\nexit 0`,
    );
    const p = spawnBwrap({ bwrap, args: [], env: {} });
    p.stdout.resume();
    p.stderr.resume();
    expect(await p.closed).toEqual({ code: 6, signal: null });
  });
  it("kill sends SIGKILL to the sandbox PID 1 itself and to bwrap's group", async () => {
    const bwrap = script('waits', 'echo \'{"child-pid": 99999996}\' >&3\necho ready\nexec sleep 1000');
    const p = spawnBwrap({ bwrap, args: [], env: { PATH: '/usr/bin:/bin' } });
    await new Promise<void>((r) => p.stdout.once('data', () => r()));
    p.stderr.resume();
    await p.started;
    const real = process.kill.bind(process);
    const calls: unknown[][] = [];
    vi.spyOn(process, 'kill').mockImplementation((pid, sig) => {
      calls.push([pid, sig]);
      return real(pid, sig);
    });
    p.kill();
    expect(calls).toEqual([
      [99999996, 'SIGKILL'],
      [-p.pid!, 'SIGKILL'],
    ]);
    vi.restoreAllMocks();
    expect(await p.closed).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
