/**
 * `agent-action sandbox check` (src/sandbox/check.ts), both ways: with the real bubblewrap every
 * finding is ok; with a "bubblewrap" that confines nothing (a script that runs the command as it
 * is, reporting a child pid as bwrap does) every finding it can judge is a failure, each saying
 * what got through. That second run is what shows the check can fail at all.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive, runSandboxCheck } from '../../src/sandbox/check.js';
import type { ProbeResult } from '../../src/sandbox/types.js';

const CANARY = 'check-test-canary-7f3a9c21';
let root: string;
beforeAll(() => {
  mkdirSync(join(process.cwd(), 'tmp'), { recursive: true });
  root = mkdtempSync(join(process.cwd(), 'tmp', 'check-test-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const PATH = '/usr/local/bin:/usr/bin:/bin';

describe('runSandboxCheck with the real bubblewrap', () => {
  it('finds every protection in place and says so, item by item', async () => {
    const r = await runSandboxCheck({ env: { PATH, HOME: '/home/checker', CHECK_CANARY: 'not-a-secret-value' }, secretValues: [CANARY, 'abc'] });
    expect(r.usable).toBe(true);
    expect(r.network).toBe(false);
    expect(r.status).toMatchObject({ kind: 'sandboxed', bwrap: '/usr/bin/bwrap', network: false });
    const ns = (n: string) => ({ name: `${n} namespace`, ok: true, detail: expect.stringMatching(new RegExp(`^new \\(${n}:\\[\\d+\\]\\)$`)) as unknown });
    expect(r.items).toEqual([
      { name: 'bubblewrap', ok: true, detail: expect.stringMatching(/^\/usr\/bin\/bwrap \d+\.\d+/) as unknown },
      ns('user'),
      ns('mnt'),
      ns('pid'),
      ns('ipc'),
      ns('uts'),
      ns('net'),
      { name: 'capabilities', ok: true, detail: 'none' },
      { name: 'remount read-only binds', ok: true, detail: 'refused' },
      { name: 'workspace', ok: true, detail: 'writable, changes persist' },
      { name: '.git read-only', ok: true, detail: 'writing .git/config failed' },
      { name: '.git/config credentials', ok: true, detail: 'extraheader removed from the copy inside' },
      { name: '.gemini and .github read-only', ok: true, detail: 'writing policies and workflows failed (an absent .gemini too)' },
      { name: 'runner file commands', ok: true, detail: 'GITHUB_ENV and RUNNER_TEMP unreachable' },
      { name: 'home', ok: true, detail: 'empty' },
      { name: 'fresh /proc', ok: true, detail: expect.stringMatching(/^[1-9] processes visible; this process's environ is not$/) as unknown },
      { name: 'secrets', ok: true, detail: 'none of 2 secret values visible (env, /proc/*/environ)' },
      { name: 'kill on exit', ok: true, detail: 'a setsid background process died with the call' },
      { name: 'network off', ok: true, detail: 'connecting to a loopback server of the host failed' },
    ]);
    expect(r.hiddenPathEntries).toEqual([]);
  });

  it('with the network allowed: the network namespace is shared and no network item is judged', async () => {
    const r = await runSandboxCheck({ env: { PATH }, secretValues: [], network: true });
    expect(r.network).toBe(true);
    expect(r.items.find((i) => i.name === 'network namespace')).toEqual({ name: 'network namespace', ok: true, detail: 'shared with the host: the network is allowed' });
    expect(r.items.map((i) => i.name)).not.toContain('network off');
    expect(r.items.find((i) => i.name === 'secrets')).toEqual({ name: 'secrets', ok: true, detail: 'none of 0 secret values visible (env, /proc/*/environ)' });
    expect(r.usable).toBe(true);
  });

  it('names the PATH folders a command will not see: under a home or /tmp, not the system or absent ones', async () => {
    const r = await runSandboxCheck({ env: { PATH: `/home/someone/.cargo/bin:/tmp:${PATH}:/nonexistent/bin:/tmp:relative/bin`, HOME: '/home/someone' }, secretValues: [] });
    // /home/someone/.cargo/bin does not exist here: nothing to miss; /tmp exists and is not bound.
    expect(r.hiddenPathEntries).toEqual(['/tmp']);
  });
});

describe('runSandboxCheck when bubblewrap is refused', () => {
  it('reports the refusal with its reason and fix, and nothing else', async () => {
    const refused: ProbeResult = { ok: false, kind: 'missing', bwrap: '/nonexistent/bwrap', message: 'bubblewrap is not installed (/nonexistent/bwrap not found)' };
    const r = await runSandboxCheck({ env: { PATH }, secretValues: [], probe: async () => refused });
    expect(r).toEqual({
      usable: false,
      network: false,
      status: expect.objectContaining({ kind: 'refused' }) as unknown,
      items: [
        {
          name: 'bubblewrap',
          ok: false,
          detail: 'bubblewrap is not installed (/nonexistent/bwrap not found). To fix: install bubblewrap before this step (`sudo apt-get install -y bubblewrap` on Debian and Ubuntu)',
        },
      ],
      hiddenPathEntries: [],
    });
  });
});

/**
 * A bwrap that confines nothing: skips every option, reports the command's pid on the status
 * descriptor as bwrap does, and runs the command in the --chdir folder with the host's everything.
 */
const NO_SANDBOX = `#!/bin/bash
dir=.
while [ "$#" -gt 0 ]; do
  case "$1" in
    --chdir) dir="$2"; shift 2 ;;
    --) shift; break ;;
    *) shift ;;
  esac
done
cd "$dir" || exit 1
echo "{\\"child-pid\\": $$}" >&3
# bwrap keeps its descriptors to itself: a background process must not hold the status pipe open.
exec 3>&- 4<&-
exec "$@"
`;

/** The background `sleep` a check's script leaves when nothing confines it: the one whose environment holds `tag`. */
function leftoversOf(tag: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`CHECK_RUN=${tag}`)) pids.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

describe('runSandboxCheck with a bubblewrap that confines nothing', () => {
  it('fails every item it can judge, and says what got through', async () => {
    const bwrap = join(root, 'fake-bwrap');
    writeFileSync(bwrap, NO_SANDBOX);
    chmodSync(bwrap, 0o755);
    const home = join(root, 'home');
    mkdirSync(home);
    writeFileSync(join(home, '.profile'), 'x');
    const tag = `${process.pid}-${Date.now()}`;
    const probe = async (): Promise<ProbeResult> => ({ ok: true, bwrap, version: '0.8.0' });
    try {
      const r = await runSandboxCheck({ env: { PATH, HOME: home, CHECK_RUN: tag, LEAKED: CANARY }, secretValues: [CANARY, 'abc'], bwrap, probe });
      expect(r.usable).toBe(false);
      const byName = Object.fromEntries(r.items.map((i) => [i.name, i]));
      expect(byName['bubblewrap']).toEqual({ name: 'bubblewrap', ok: true, detail: `${bwrap} 0.8.0` });
      for (const n of ['user', 'mnt', 'pid', 'ipc', 'uts', 'net']) {
        const host = execFileSync('readlink', [`/proc/self/ns/${n}`], { encoding: 'utf8' }).trim();
        expect(byName[`${n} namespace`]).toEqual({ name: `${n} namespace`, ok: false, detail: `not isolated (${host})` });
      }
      expect(byName['capabilities']).toEqual({ name: 'capabilities', ok: false, detail: expect.stringMatching(/^effective set [0-9a-f]*[1-9a-f][0-9a-f]*$/) as unknown });
      expect(byName['workspace']).toEqual({ name: 'workspace', ok: true, detail: 'writable, changes persist' });
      expect(byName['.git read-only']).toEqual({ name: '.git read-only', ok: false, detail: 'a command could write .git/config' });
      expect(byName['.git/config credentials']).toEqual({ name: '.git/config credentials', ok: false, detail: "actions/checkout's token header is visible inside" });
      expect(byName['.gemini and .github read-only']).toEqual({ name: '.gemini and .github read-only', ok: false, detail: 'a command could write .gemini/ or .github/' });
      expect(byName['runner file commands']).toEqual({ name: 'runner file commands', ok: false, detail: 'a command could append to GITHUB_ENV' });
      expect(byName['home']).toEqual({ name: 'home', ok: false, detail: '1 entries visible' });
      expect(byName['fresh /proc']).toEqual({ name: 'fresh /proc', ok: false, detail: expect.stringMatching(/^host processes visible \(\d+ pids, own pid visible\)$/) as unknown });
      expect(byName['secrets']).toEqual({ name: 'secrets', ok: false, detail: '1 of 2 secret values visible inside' });
      expect(byName['kill on exit']).toEqual({ name: 'kill on exit', ok: false, detail: 'a setsid background process outlived the call' });
      expect(byName['network off']).toEqual({ name: 'network off', ok: false, detail: 'a command reached a loopback server of the host' });
    } finally {
      for (const pid of leftoversOf(tag)) process.kill(pid, 'SIGKILL');
    }
  });
});

describe('processAlive', () => {
  it('finds a process by a marker in its command line, and not once it is gone', async () => {
    const marker = `999.${process.pid}${Date.now() % 1000}`;
    expect(await processAlive(marker)).toBe(false);
    const { spawn } = await import('node:child_process');
    const child = spawn('sleep', [marker], { stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      // Its command line is in /proc as soon as exec has happened; the spawn event follows it.
      await new Promise((r) => child.once('spawn', r));
      let seen = false;
      for (let i = 0; i < 200 && !seen; i++) seen = await processAlive(marker);
      expect(seen).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
    await exited;
    expect(await processAlive(marker)).toBe(false);
  });
});
