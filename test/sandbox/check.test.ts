/**
 * `agent-action sandbox check` (src/sandbox/check.ts), both ways: with the real bubblewrap every
 * finding is ok; with a "bubblewrap" that confines nothing (a script that runs the command as it
 * is, reporting a child pid as bwrap does) every finding it can judge is a failure, each saying
 * what got through. That second run is what shows the check can fail at all.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { processAlive, runSandboxCheck } from '../../src/sandbox/check.js';
import type { ProbeResult } from '../../src/sandbox/types.js';
import { makeBindableDir } from '../support/bindable-dir.js';

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
    const r = await runSandboxCheck({
      env: { PATH, HOME: '/home/checker', CHECK_CANARY: 'not-a-secret-value' },
      secretValues: [CANARY, 'abc'],
    });
    expect(r.usable).toBe(true);
    expect(r.network).toBe(false);
    expect(r.status).toMatchObject({ kind: 'sandboxed', bwrap: '/usr/bin/bwrap', network: false });
    const ns = (n: string) => ({
      name: `${n} namespace`,
      ok: true,
      detail: expect.stringMatching(new RegExp(`^new \\(${n}:\\[\\d+\\]\\)$`)) as unknown,
    });
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
      {
        name: '.gemini and .github read-only',
        ok: true,
        detail: 'writing policies and workflows failed (an absent .gemini too)',
      },
      { name: 'runner file commands', ok: true, detail: 'GITHUB_ENV and RUNNER_TEMP unreachable' },
      { name: 'home', ok: true, detail: 'empty' },
      {
        name: 'fresh /proc',
        ok: true,
        detail: expect.stringMatching(/^[1-9] processes visible; this process's environ is not$/) as unknown,
      },
      { name: 'secrets', ok: true, detail: 'none of 2 secret values visible (env, /proc/*/environ)' },
      { name: 'kill on exit', ok: true, detail: 'a setsid background process died with the call' },
      { name: 'network off', ok: true, detail: 'connecting to a loopback server of the host failed' },
      {
        name: 'bounds',
        ok: true,
        detail:
          '1024 processes and threads a call, 8 GiB of address space a process, files up to 1 GiB, 8192 open files a process',
      },
    ]);
    expect(r.hiddenPathEntries).toEqual([]);
  });

  it('with the network allowed: the network namespace is shared and no network item is judged', async () => {
    const r = await runSandboxCheck({ env: { PATH }, secretValues: [], network: true });
    expect(r.network).toBe(true);
    expect(r.items.find((i) => i.name === 'network namespace')).toEqual({
      name: 'network namespace',
      ok: true,
      detail: 'shared with the host: the network is allowed',
    });
    // Only the network namespace changes: the other five are still judged as namespaces, and no network item.
    expect(r.items.map((i) => i.name)).toEqual([
      'bubblewrap',
      'user namespace',
      'mnt namespace',
      'pid namespace',
      'ipc namespace',
      'uts namespace',
      'network namespace',
      'capabilities',
      'remount read-only binds',
      'workspace',
      '.git read-only',
      '.git/config credentials',
      '.gemini and .github read-only',
      'runner file commands',
      'home',
      'fresh /proc',
      'secrets',
      'kill on exit',
      'bounds',
    ]);
    expect(r.items.find((i) => i.name === 'secrets')).toEqual({
      name: 'secrets',
      ok: true,
      detail: 'none of 0 secret values visible (env, /proc/*/environ)',
    });
    expect(r.usable).toBe(true);
  });

  it('names the PATH folders a command will not see: under a home or /tmp, not the system, toolchain, relative or absent ones', async () => {
    // Not under root: a checkout under /tmp (a CI clone) would make the toolchain folder one the sandbox never binds.
    const toolchain = makeBindableDir('check-toolchain-');
    onTestFinished(() => rmSync(toolchain, { recursive: true, force: true }));
    // `test` exists relative to this process's folder, but a relative entry is looked up from the command's own folder.
    const r = await runSandboxCheck({
      env: {
        PATH: `/home/someone/.cargo/bin:/tmp:${PATH}:/nonexistent/bin:/tmp:relative/bin:test:${toolchain}`,
        HOME: '/home/someone',
      },
      secretValues: [],
    });
    // /home/someone/.cargo/bin does not exist here: nothing to miss; /tmp exists and is not bound; the toolchain folder is bound.
    expect(r.hiddenPathEntries).toEqual(['/tmp']);
  });
});

describe('runSandboxCheck when bubblewrap is refused', () => {
  it('reports the refusal with its reason and fix, and nothing else', async () => {
    const refused: ProbeResult = {
      ok: false,
      kind: 'missing',
      bwrap: '/nonexistent/bwrap',
      message: 'bubblewrap is not installed (/nonexistent/bwrap not found)',
    };
    const r = await runSandboxCheck({ env: { PATH }, secretValues: [], probe: async () => refused });
    expect(r).toEqual({
      usable: false,
      network: false,
      status: expect.objectContaining({ kind: 'refused' }) as unknown,
      items: [
        {
          name: 'bubblewrap',
          ok: false,
          detail:
            'bubblewrap is not installed (/nonexistent/bwrap not found). To fix: install bubblewrap before this step (`sudo apt-get install -y bubblewrap` on Debian and Ubuntu)',
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
      const r = await runSandboxCheck({
        env: { PATH, HOME: home, CHECK_RUN: tag, LEAKED: CANARY },
        secretValues: [CANARY, 'abc'],
        bwrap,
        probe,
      });
      expect(r.usable).toBe(false);
      const byName = Object.fromEntries(r.items.map((i) => [i.name, i]));
      expect(byName['bubblewrap']).toEqual({ name: 'bubblewrap', ok: true, detail: `${bwrap} 0.8.0` });
      for (const n of ['user', 'mnt', 'pid', 'ipc', 'uts', 'net']) {
        const host = execFileSync('readlink', [`/proc/self/ns/${n}`], { encoding: 'utf8' }).trim();
        expect(byName[`${n} namespace`]).toEqual({
          name: `${n} namespace`,
          ok: false,
          detail: `not isolated (${host})`,
        });
      }
      expect(byName['capabilities']).toEqual({
        name: 'capabilities',
        ok: false,
        detail: expect.stringMatching(/^effective set [0-9a-f]*[1-9a-f][0-9a-f]*$/) as unknown,
      });
      expect(byName['workspace']).toEqual({ name: 'workspace', ok: true, detail: 'writable, changes persist' });
      expect(byName['.git read-only']).toEqual({
        name: '.git read-only',
        ok: false,
        detail: 'a command could write .git/config',
      });
      expect(byName['.git/config credentials']).toEqual({
        name: '.git/config credentials',
        ok: false,
        detail: "actions/checkout's token header is visible inside",
      });
      expect(byName['.gemini and .github read-only']).toEqual({
        name: '.gemini and .github read-only',
        ok: false,
        detail: 'a command could write .gemini/ or .github/',
      });
      expect(byName['runner file commands']).toEqual({
        name: 'runner file commands',
        ok: false,
        detail: 'a command could append to GITHUB_ENV',
      });
      expect(byName['home']).toEqual({ name: 'home', ok: false, detail: '1 entries visible' });
      expect(byName['fresh /proc']).toEqual({
        name: 'fresh /proc',
        ok: false,
        detail: expect.stringMatching(/^host processes visible \(\d+ pids, own pid visible\)$/) as unknown,
      });
      expect(byName['secrets']).toEqual({ name: 'secrets', ok: false, detail: '1 of 2 secret values visible inside' });
      expect(byName['kill on exit']).toEqual({
        name: 'kill on exit',
        ok: false,
        detail: 'a setsid background process outlived the call',
      });
      expect(byName['network off']).toEqual({
        name: 'network off',
        ok: false,
        detail: 'a command reached a loopback server of the host',
      });
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

/**
 * A "bubblewrap" that runs nothing: it reports a pid as bwrap does, then in the workspace runs
 * $CHECK_ACT (what a command did) and prints $CHECK_SAYS (what the probe script reported). Each row
 * of the table below makes the report disagree with the facts, or the facts with the report, in one
 * way, and the check must judge that one item as the code says.
 */
const SCRIPTED = `#!/bin/bash
dir=.
cmd=
while [ "$#" -gt 0 ]; do
  case "$1" in
    --chdir) dir="$2"; shift 2 ;;
    --) shift; cmd="$*"; break ;;
    *) shift ;;
  esac
done
cd "$dir" || exit 1
echo "{\\"child-pid\\": $$}" >&3
exec 3>&- 4<&-
port=$(printf '%s' "$cmd" | grep -o '/dev/tcp/127.0.0.1/[0-9]*' | head -n 1 | sed 's|.*/||')
if [ -n "$CHECK_LAYOUT" ]; then { find . | sort; pwd; cat .git/config; } > "$CHECK_LAYOUT"; fi
eval "$CHECK_ACT"
printf '%s\\n' "$CHECK_SAYS"
`;

/** Everything in place, as the real bubblewrap reports it (namespace ids the host's never are). */
const ALL_GOOD = [
  ...['user', 'mnt', 'pid', 'ipc', 'uts', 'net'].map((n) => `ns_${n}=${n}:[1]`),
  'cap_eff=0000000000000000',
  'net=closed',
  'git_write=no',
  'git_credential=absent',
  'gemini_write=no',
  'github_write=no',
  'remount=no',
  'runner_write=no',
  'home_entries=0',
  'proc_pids=3',
  'host_pid=absent',
  'limits=1024,8388608,1048576',
  'ENVIRON_BEGIN',
  'PATH=/usr/bin',
  'ENVIRON_END',
];
const WRITE_OK = 'echo ok > written.txt';

describe('runSandboxCheck judging what the probe reports', () => {
  let bwrap: string;
  let tmp: string;
  let savedTmpdir: string | undefined;
  const probe = async (): Promise<ProbeResult> => ({ ok: true, bwrap, version: '0.8.0' });
  beforeAll(() => {
    bwrap = join(root, 'scripted-bwrap');
    writeFileSync(bwrap, SCRIPTED);
    chmodSync(bwrap, 0o755);
    // The check's scratch folder goes where the test can see it is made in the right place and removed.
    tmp = mkdtempSync(join(root, 'tmpdir-'));
    savedTmpdir = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
  });
  afterAll(() => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
  });
  const scripted = (o: { says?: string[]; act?: string; secretValues?: string[]; env?: Record<string, string> }) =>
    runSandboxCheck({
      env: { PATH, CHECK_SAYS: (o.says ?? ALL_GOOD).join('\n'), CHECK_ACT: o.act ?? WRITE_OK, ...o.env },
      secretValues: o.secretValues ?? [],
      bwrap,
      probe,
    });

  it('every item ok when the report and the workspace are as they should be; the scratch folder is laid out like a checkout and removed', async () => {
    const layout = join(root, 'layout.txt');
    const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
    const before = servers();
    const r = await scripted({ env: { CHECK_LAYOUT: layout } });
    expect(r.items.filter((i) => !i.ok)).toEqual([]);
    expect(r.usable).toBe(true);
    const [files, pwd, config] = readFileSync(layout, 'utf8').split(/\n(?=\/|\[core\])/);
    // .gemini is the sandbox's placeholder for the absent folder, there only during the call.
    expect(files).toBe(
      '.\n./.gemini\n./.git\n./.git/config\n./.github\n./.github/workflows\n./_runner_temp\n./_runner_temp/env',
    );
    expect(pwd).toMatch(new RegExp(`^${tmp}/agent-action-check-[A-Za-z0-9]{6}/workspace$`));
    expect(config).toBe(
      '[core]\n\tbare = false\n[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Y2hlY2s=\n',
    );
    expect(readdirSync(tmp)).toEqual([]);
    expect(servers()).toBe(before);
  });

  it('a probe that printed nothing fails every item it reports on, saying what it could not read', async () => {
    const r = await scripted({ says: [], act: 'true' });
    expect(r.usable).toBe(false);
    expect(r.items).toEqual([
      { name: 'bubblewrap', ok: true, detail: `${bwrap} 0.8.0` },
      ...['user', 'mnt', 'pid', 'ipc', 'uts', 'net'].map((n) => ({
        name: `${n} namespace`,
        ok: false,
        detail: 'not isolated (unreadable)',
      })),
      { name: 'capabilities', ok: false, detail: 'effective set unknown' },
      { name: 'remount read-only binds', ok: false, detail: 'a command could make .git writable' },
      { name: 'workspace', ok: false, detail: 'a write inside did not reach the workspace' },
      { name: '.git read-only', ok: false, detail: 'a command could write .git/config' },
      { name: '.git/config credentials', ok: false, detail: "actions/checkout's token header is visible inside" },
      { name: '.gemini and .github read-only', ok: false, detail: 'a command could write .gemini/ or .github/' },
      { name: 'runner file commands', ok: false, detail: 'a command could append to GITHUB_ENV' },
      { name: 'home', ok: false, detail: '? entries visible' },
      { name: 'fresh /proc', ok: false, detail: 'host processes visible (NaN pids, own pid ?)' },
      { name: 'secrets', ok: true, detail: 'none of 0 secret values visible (env, /proc/*/environ)' },
      { name: 'kill on exit', ok: true, detail: 'a setsid background process died with the call' },
      { name: 'network off', ok: false, detail: 'a command reached a loopback server of the host' },
      { name: 'bounds', ok: false, detail: 'no process, memory or file-size limit inside (ulimit: ?)' },
    ]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('waits for the whole of a command that writes more to stderr than a pipe holds', async () => {
    const r = await scripted({ act: `${WRITE_OK}; head -c 300000 /dev/zero >&2` });
    expect(r.usable).toBe(true);
  }, 30_000);

  // [why, lines printed before the good report (the first of a key counts), what the command did, the item]
  it.each<[string, string[], string, { name: string; ok: boolean; detail: string }]>([
    [
      'capabilities not all zero, even ending in zeros',
      ['cap_eff=0000000000000010'],
      WRITE_OK,
      { name: 'capabilities', ok: false, detail: 'effective set 0000000000000010' },
    ],
    [
      'a remount that worked',
      ['remount=yes'],
      WRITE_OK,
      { name: 'remount read-only binds', ok: false, detail: 'a command could make .git writable' },
    ],
    [
      'the first value of a key counts, not a later one',
      ['home_entries=3'],
      WRITE_OK,
      { name: 'home', ok: false, detail: '3 entries visible' },
    ],
    ['a line without "=" names nothing', ['home_entries0'], WRITE_OK, { name: 'home', ok: true, detail: 'empty' }],
    [
      'a value is read without surrounding blanks',
      ['home_entries=0 \r'],
      WRITE_OK,
      { name: 'home', ok: true, detail: 'empty' },
    ],
    [
      '.git/config changed although the write was reported to fail',
      [],
      `${WRITE_OK}; echo '[evil]' >> .git/config`,
      { name: '.git read-only', ok: false, detail: 'writing .git/config failed' },
    ],
    [
      '.gemini written',
      ['gemini_write=yes'],
      WRITE_OK,
      { name: '.gemini and .github read-only', ok: false, detail: 'a command could write .gemini/ or .github/' },
    ],
    [
      '.github written',
      ['github_write=yes'],
      WRITE_OK,
      { name: '.gemini and .github read-only', ok: false, detail: 'a command could write .gemini/ or .github/' },
    ],
    [
      'a .gemini left behind although both writes were reported to fail',
      [],
      `${WRITE_OK}; touch .gemini/left`,
      {
        name: '.gemini and .github read-only',
        ok: false,
        detail: 'writing policies and workflows failed (an absent .gemini too)',
      },
    ],
    [
      'GITHUB_ENV appended to although the write was reported to fail',
      [],
      `${WRITE_OK}; echo BASH_ENV=/x >> _runner_temp/env`,
      { name: 'runner file commands', ok: false, detail: 'GITHUB_ENV and RUNNER_TEMP unreachable' },
    ],
    [
      'ten processes',
      ['proc_pids=10'],
      WRITE_OK,
      { name: 'fresh /proc', ok: false, detail: 'host processes visible (10 pids, own pid absent)' },
    ],
    [
      'nine processes',
      ['proc_pids=9'],
      WRITE_OK,
      { name: 'fresh /proc', ok: true, detail: "9 processes visible; this process's environ is not" },
    ],
    [
      'no process at all',
      ['proc_pids=0'],
      WRITE_OK,
      { name: 'fresh /proc', ok: false, detail: 'host processes visible (0 pids, own pid absent)' },
    ],
    [
      "this process's environment visible",
      ['host_pid=visible'],
      WRITE_OK,
      { name: 'fresh /proc', ok: false, detail: 'host processes visible (3 pids, own pid visible)' },
    ],
    [
      'a connection reported as closed that the server saw',
      [],
      `${WRITE_OK}; (exec 5<>/dev/tcp/127.0.0.1/$port)`,
      { name: 'network off', ok: false, detail: 'a command reached a loopback server of the host' },
    ],
    [
      'a connection reported as open that the server did not see',
      ['net=open'],
      WRITE_OK,
      { name: 'network off', ok: false, detail: 'a command reached a loopback server of the host' },
    ],
    [
      'the server listens on 127.0.0.1 only: another loopback address does not reach it',
      [],
      `${WRITE_OK}; (exec 5<>/dev/tcp/127.0.0.2/$port) 2>/dev/null`,
      { name: 'network off', ok: true, detail: 'connecting to a loopback server of the host failed' },
    ],
  ])('%s', async (_why, first, act, item) => {
    const r = await scripted({ says: [...first, ...ALL_GOOD], act });
    expect(r.items.find((i) => i.name === item.name)).toEqual(item);
    expect(r.usable).toBe(item.ok);
  });

  it('counts a secret only in the environment section, and only one of at least four characters', async () => {
    const says = ['outside-secret-1', ...ALL_GOOD.slice(0, -1), 'X=abcd', 'ENVIRON_END', 'after-secret-2'];
    const r = await scripted({ says, secretValues: ['abc', 'abcd', 'outside-secret-1', 'after-secret-2'] });
    expect(r.items.find((i) => i.name === 'secrets')).toEqual({
      name: 'secrets',
      ok: false,
      detail: '1 of 4 secret values visible inside',
    });
  });
});
