/**
 * Bounds on every sandboxed call, in the real bubblewrap: a fork bomb ends its call (and only its
 * call) with `exceeded: 'processes'`, a memory fill fails its allocation, a file past the size bound
 * ends its writer with SIGXFSZ, and the limits are what a command reads with `ulimit`. The bug each
 * names: a bound not set inside (prlimit missing from argv, set before bwrap made its namespace), a
 * watchdog that never fires or fires on an ordinary command.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  boundedArgv,
  describeBounds,
  formatBytes,
  parseHardLimits,
  type ProcessBounds,
} from '../../src/sandbox/bounds.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import type { ExitStatus, Sandbox } from '../../src/sandbox/types.js';
import { makeBindableDir } from '../support/bindable-dir.js';

const GiB = 1024 ** 3;

describe('boundedArgv', () => {
  const bounds: ProcessBounds = { processes: 1024, memoryBytes: 8 * GiB, fileSizeBytes: GiB, openFiles: 8192 };

  it('puts prlimit with every bound (and no core dumps) before the command', () => {
    expect(boundedArgv({ prlimit: '/usr/bin/prlimit', bounds, hard: {} }, ['bash', '-c', 'npm test'])).toEqual([
      '/usr/bin/prlimit',
      '--nproc=1024',
      `--as=${8 * GiB}`,
      `--fsize=${GiB}`,
      '--nofile=8192',
      '--core=0',
      '--',
      'bash',
      '-c',
      'npm test',
    ]);
  });

  it('never above a hard limit already in force (a process cannot raise one), and an unbounded one is left out', () => {
    expect(
      boundedArgv(
        {
          prlimit: '/usr/bin/prlimit',
          bounds: { processes: 1024, openFiles: 8192 },
          hard: { nproc: 500, nofile: 4096, as: 4 * GiB },
        },
        ['true'],
      ),
    ).toEqual(['/usr/bin/prlimit', '--nproc=500', '--nofile=4096', '--core=0', '--', 'true']);
  });
});

describe('parseHardLimits', () => {
  it("reads the hard column of /proc/<pid>/limits, 'unlimited' as absent", () => {
    const text = [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      'Max cpu time              unlimited            unlimited            seconds   ',
      'Max file size             unlimited            unlimited            bytes     ',
      'Max processes             96367                96367                processes ',
      'Max open files            1024                 524288               files     ',
      'Max address space         unlimited            17179869184          bytes     ',
    ].join('\n');
    expect(parseHardLimits(text)).toEqual({ nproc: 96367, nofile: 524288, as: 17179869184 });
  });
});

describe('describeBounds', () => {
  it('says each bound in words', () => {
    expect(describeBounds({ processes: 1024, memoryBytes: 8 * GiB, fileSizeBytes: 512 * 1024 ** 2 })).toBe(
      '1024 processes and threads a call, 8 GiB of address space a process, files up to 512 MiB',
    );
    expect(describeBounds({ processes: 64 })).toBe(
      '64 processes and threads a call, unbounded address space, files of any size',
    );
    expect(formatBytes(1536)).toBe('1536 bytes');
  });
});

describe('in the sandbox', () => {
  let dir: string;
  let sandbox: Sandbox;
  beforeAll(() => {
    dir = makeBindableDir('bounds-test-');
    sandbox = createSandbox({
      mode: 'required',
      hostEnv: {},
      bounds: { processes: 96, memoryBytes: 4 * GiB, fileSizeBytes: 1024 ** 2, openFiles: 256 },
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function run(command: string): Promise<{ status: ExitStatus; out: string }> {
    const p = await sandbox.spawn({
      argv: ['bash', '-c', command],
      workspace: dir,
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
    });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    p.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    return { status: await p.closed, out };
  }

  it('a command reads the bounds with ulimit', async () => {
    const r = await run('echo "$(ulimit -u) $(ulimit -v) $(ulimit -f) $(ulimit -n) $(ulimit -c)"');
    // ulimit -v and -f count KiB.
    expect(r.out).toBe(`96 ${4 * 1024 * 1024} 1024 256 0\n`);
    expect(r.status).toEqual({ code: 0, signal: null });
  });

  it('a fork bomb ends its call: every process killed, the status says why; the next call runs', async () => {
    const r = await run(':(){ :|:& };:; sleep 600');
    expect(r.status).toMatchObject({ signal: 'SIGKILL', exceeded: 'processes' });
    expect(await run('echo next')).toEqual({ status: { code: 0, signal: null }, out: 'next\n' });
  }, 120_000);

  it('a process that keeps forking (python) ends its call the same way', async () => {
    const r = await run(
      'python3 -c "import os, time\nwhile True:\n  try:\n    os.fork()\n  except OSError:\n    time.sleep(0.01)"',
    );
    expect(r.status).toMatchObject({ exceeded: 'processes' });
  }, 120_000);

  it('a memory fill fails its allocation; the call ends with the process', async () => {
    const r = await run('python3 -c "x = bytearray(6 << 30)"');
    expect(r.out).toContain('MemoryError');
    expect(r.status).toEqual({ code: 1, signal: null });
  });

  it('a file past the size bound ends its writer with SIGXFSZ, the file cut at the bound', async () => {
    const r = await run('head -c 3000000 /dev/zero > big.bin');
    expect(r.status).toEqual({ code: null, signal: 'SIGXFSZ' });
    expect((await run('stat -c %s big.bin')).out).toBe(`${1024 ** 2}\n`);
  });

  it('an ordinary command with a few processes and threads is not stopped', async () => {
    const r = await run('for i in $(seq 20); do sleep 0.3 & done; wait; echo done');
    expect(r).toEqual({ status: { code: 0, signal: null }, out: 'done\n' });
  });
});
