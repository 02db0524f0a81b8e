/**
 * The pure parts of the sandbox: the bwrap command line from a plan, which PATH folders are bound,
 * how a failed probe is read and explained, how bwrap's exit codes read back.
 */
import { describe, expect, it } from 'vitest';
import { buildBwrapArgs, isUnder, type BwrapPlan } from '../../src/sandbox/bwrap-args.js';
import { chooseToolchainDirs, chooseWritableDirs, isNeverBound } from '../../src/sandbox/layout.js';
import { classifyBwrapFailure, supportsDisableUserns } from '../../src/sandbox/probe.js';
import { fromExitCode, processState } from '../../src/sandbox/process-bwrap.js';
import { runnerInstallSecrets, runnerPathsOf, withoutRunnerVariables } from '../../src/sandbox/runner-paths.js';
import { explainFailure, homeFor } from '../../src/sandbox/sandbox.js';

const plan = (over: Partial<BwrapPlan> = {}): BwrapPlan => ({
  argv: ['bash', '-c', 'true'],
  workspace: '/w/repo',
  cwd: '/w/repo/src',
  home: '/home/runner',
  network: false,
  system: [
    { path: '/usr', kind: 'dir' },
    { path: '/bin', kind: 'symlink', target: 'usr/bin' },
    { path: '/etc', kind: 'dir' },
  ],
  readOnly: [],
  writable: [],
  protectedPaths: [
    { path: '/w/repo/.git', kind: 'dir' },
    { path: '/w/repo/.github', kind: 'dir' },
  ],
  hidden: [],
  statusFd: 3,
  disableUserns: true,
  ...over,
});

/** The index of `flag` followed by `value` in args, or -1. */
const at = (args: string[], ...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));

describe('buildBwrapArgs', () => {
  it('unshares every namespace, drops capabilities and dies with its parent', () => {
    const a = buildBwrapArgs(plan());
    for (const flag of [
      '--unshare-user',
      '--disable-userns',
      '--unshare-pid',
      '--unshare-net',
      '--unshare-ipc',
      '--unshare-uts',
      '--die-with-parent',
      '--new-session',
    ]) {
      expect(a, flag).toContain(flag);
    }
    expect(at(a, '--cap-drop', 'ALL')).toBeGreaterThanOrEqual(0);
    expect(at(a, '--json-status-fd', '3')).toBeGreaterThanOrEqual(0);
    expect(a.slice(-5)).toEqual(['/w/repo/src', '--', 'bash', '-c', 'true']);
  });

  // The network namespace stays shared only when the network is allowed; a bwrap older than 0.8 lacks --disable-userns.
  it.each([
    [{ network: true }, '--unshare-net'],
    [{ disableUserns: false }, '--disable-userns'],
  ] as const)('with %j there is no %s', (over, flag) => {
    expect(buildBwrapArgs(plan(over))).not.toContain(flag);
  });

  it('mounts in the order that makes protection hold: system, fresh tmp and home, workspace, then protected folders over it', () => {
    const a = buildBwrapArgs(plan({ gitConfig: { path: '/w/repo/.git/config', dataFd: 4 } }));
    const usr = at(a, '--ro-bind', '/usr', '/usr');
    const proc = at(a, '--proc', '/proc');
    const tmp = at(a, '--tmpfs', '/tmp');
    const home = at(a, '--tmpfs', '/home/runner');
    const ws = at(a, '--bind', '/w/repo', '/w/repo');
    const git = at(a, '--ro-bind', '/w/repo/.git', '/w/repo/.git');
    const github = at(a, '--ro-bind', '/w/repo/.github', '/w/repo/.github');
    const config = at(a, '--ro-bind-data', '4', '/w/repo/.git/config');
    expect(at(a, '--symlink', 'usr/bin', '/bin')).toBeGreaterThan(0);
    expect([usr, proc, tmp, home, ws, git, github, config].every((i) => i >= 0)).toBe(true);
    expect(usr).toBeLessThan(ws);
    expect(tmp).toBeLessThan(ws);
    expect(home).toBeLessThan(ws);
    expect(ws).toBeLessThan(git);
    expect(ws).toBeLessThan(github);
    expect(git).toBeLessThan(config);
  });

  it('a home under /tmp is a folder in the fresh /tmp, not a second tmpfs', () => {
    const a = buildBwrapArgs(plan({ home: '/tmp/home' }));
    expect(at(a, '--dir', '/tmp/home')).toBeGreaterThan(0);
    expect(at(a, '--tmpfs', '/tmp/home')).toBe(-1);
  });

  it('hides runner paths that a bound tree would show, and only those', () => {
    const a = buildBwrapArgs(
      plan({
        readOnly: ['/opt/tools'],
        hidden: [
          { path: '/w/repo/_temp', kind: 'dir' }, // inside the workspace
          { path: '/w/repo/_temp/env', kind: 'file' }, // inside the hidden folder: nothing to add
          { path: '/opt/tools/event.json', kind: 'file' }, // inside a toolchain folder
          { path: '/home/runner/work/_temp', kind: 'dir' }, // not bound at all
        ],
      }),
    );
    const hide = at(a, '--tmpfs', '/w/repo/_temp', '--remount-ro', '/w/repo/_temp');
    expect(hide).toBeGreaterThan(at(a, '--bind', '/w/repo', '/w/repo'));
    expect(at(a, '--ro-bind', '/dev/null', '/opt/tools/event.json')).toBeGreaterThan(
      at(a, '--ro-bind', '/opt/tools', '/opt/tools'),
    );
    expect(a).not.toContain('/w/repo/_temp/env');
    expect(a).not.toContain('/home/runner/work/_temp');
  });
});

describe('chooseToolchainDirs', () => {
  const o = {
    bound: ['/usr', '/opt'],
    home: '/home/runner',
    hidden: ['/home/runner/work/_temp', '/srv/runner-temp'],
    workspace: '/w/repo',
  };
  it.each([
    ['/usr/local/bin:/usr/bin', []], // already under /usr
    ['/opt/hostedtoolcache/node/22/x64/bin', []], // under /opt
    ['/snap/bin:/usr/games', ['/snap/bin']],
    ['/home/runner/.cargo/bin:/home/runner/.local/bin', []], // homes never
    ['/root/bin:/tmp/x/bin:/var/lib/bin:/run/bin', []],
    ['/w/repo/node_modules/.bin', []], // the workspace is already bound (read-write)
    ['relative/bin::/', []],
    ['/nix/store/abc/bin:/nix/store/abc/bin/', ['/nix/store/abc/bin']],
  ])('%s -> %j', (path, expected) => {
    expect(chooseToolchainDirs(path, o)).toEqual(expected);
  });
});

describe('isNeverBound', () => {
  it.each([
    ['/home', true],
    ['/home/runner/.cargo/bin', true],
    ['/tmp/x', true],
    ['/lost+found', true],
    ['/var/lib/bin', true],
    ['/tmpfoo/bin', false], // a sibling with the same prefix is not under /tmp
    ['/opt/tools/bin', false],
    ['/agent-action-x', false],
  ])('%s: %s', (path, expected) => {
    expect(isNeverBound(path)).toBe(expected);
  });
});

describe('chooseWritableDirs', () => {
  it('allows specific folders and refuses what would expose what the sandbox hides', () => {
    const r = chooseWritableDirs(
      [
        '/tmp/hook-cache',
        '/home/runner/.npm/',
        '/opt/cache',
        '/',
        '/tmp',
        '/home',
        '/home/runner',
        '/usr',
        '/r/_temp/sub',
        '/r',
        'relative',
      ],
      {
        home: '/home/runner',
        hidden: ['/r/_temp'],
      },
    );
    expect(r.allowed).toEqual(['/tmp/hook-cache', '/home/runner/.npm', '/opt/cache']);
    expect(r.refused).toEqual(['/', '/tmp', '/home', '/home/runner', '/usr', '/r/_temp/sub', '/r', 'relative']);
  });
});

describe('probe failures', () => {
  it.each([
    ['bwrap: setting up uid map: Permission denied', 'userns_denied'],
    ['bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted', 'userns_denied'],
    [
      'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.',
      'userns_denied',
    ],
    ['bwrap: Creating new namespace failed: Operation not permitted', 'userns_denied'],
    ["bwrap: Can't mount proc on /newroot/proc: Operation not permitted", 'failed'],
    ['bwrap: execvp true: No such file or directory', 'failed'],
  ])('%s is %s', (stderr, kind) => {
    expect(classifyBwrapFailure(stderr)).toBe(kind);
  });

  it('explains the AppArmor refusal with the sysctl that fixes it', () => {
    const e = explainFailure({
      ok: false,
      kind: 'userns_denied',
      bwrap: '/usr/bin/bwrap',
      message: 'bwrap: setting up uid map: Permission denied\nmore',
    });
    expect(e.reason).toBe(
      'bubblewrap may not create user namespaces here: bwrap: setting up uid map: Permission denied',
    );
    expect(e.fix).toContain('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
    expect(e.fix).toContain('/usr/bin/bwrap');
  });

  it('explains a missing bwrap with the package to install, and says what the remedy tried', () => {
    const e = explainFailure(
      {
        ok: false,
        kind: 'missing',
        bwrap: '/usr/bin/bwrap',
        message: 'bubblewrap is not installed (/usr/bin/bwrap not found)',
      },
      'no remedy for: x',
    );
    expect(e.reason).toBe('bubblewrap is not installed (/usr/bin/bwrap not found) (tried: no remedy for: x)');
    expect(e.fix).toContain('apt-get install -y bubblewrap');
  });

  it.each([
    ['0.6.1', false],
    ['0.8.0', true],
    ['0.11.0', true],
    ['1.0', true],
  ])('bwrap %s supports --disable-userns: %s', (v, yes) => {
    expect(supportsDisableUserns(v)).toBe(yes);
  });
});

describe('small pure helpers', () => {
  it.each([
    [143, null, { code: null, signal: 'SIGTERM' }],
    [137, null, { code: null, signal: 'SIGKILL' }],
    [0, null, { code: 0, signal: null }],
    [3, null, { code: 3, signal: null }],
    [255, null, { code: 255, signal: null }],
    [null, 'SIGKILL', { code: null, signal: 'SIGKILL' }],
  ] as const)('exit %s / %s reads as %j', (code, signal, expected) => {
    expect(fromExitCode(code, signal)).toEqual(expected);
  });

  it.each([
    ['/home/runner', '/home/runner/work/r/r', '/home/runner'],
    ['/home/runner/work/r/r/x', '/home/runner/work/r/r', '/home/sandbox'], // inside the workspace
    ['/', '/w', '/home/sandbox'],
    [undefined, '/w', '/home/sandbox'],
    ['relative', '/w', '/home/sandbox'],
    ['/tmp/runner-temp/home', '/w', '/home/sandbox'], // inside a hidden runner folder
  ])('homeFor(%s, %s) = %s', (home, ws, expected) => {
    expect(homeFor(home, ws, ['/tmp/runner-temp'])).toBe(expected);
  });

  it.each([
    ['1234 (bwrap) Z 1 1234 1234 0 -1', 'over'],
    ['1234 (my (odd) name) X 1 1 1', 'over'],
    ['1234 (bwrap) S 1 1234 1234 0 -1', 'alive'],
    ['1234 (sleep) R 1', 'alive'],
    ['', 'over'],
  ])('the state of %j is %s', (stat, expected) => {
    expect(processState(stat)).toBe(expected);
  });

  // Whole path segments only; the root folder holds every absolute path; a root given with its trailing slash works alike.
  it.each([
    ['/w/repo', '/w/repo', true],
    ['/w/repo/x', '/w/repo', true],
    ['/w/repository', '/w/repo', false],
    ['/anything', '/', true],
    ['/', '/', true],
    ['/etc/x', '/', true],
    ['/w/repo/x', '/w/repo/', true],
    ['/w/repox', '/w/repo/', false],
  ])('isUnder(%s, %s) is %s', (path, root, expected) => {
    expect(isUnder(path, root)).toBe(expected);
  });

  it("names the runner's file-command paths and drops their variables", () => {
    const env = {
      RUNNER_TEMP: '/r/_temp',
      GITHUB_ENV: '/r/_temp/_runner_file_commands/set_env_1',
      GITHUB_PATH: '/r/_temp/p',
      GITHUB_OUTPUT: '/r/o',
      GITHUB_STEP_SUMMARY: '/r/s',
      GITHUB_STATE: '/r/st',
      GITHUB_EVENT_PATH: '/r/_temp/_github_workflow/event.json',
      GITHUB_WORKSPACE: '/w',
      OTHER: 'relative/path',
    };
    expect(runnerPathsOf(env)).toEqual([
      '/r/_temp',
      '/r/_temp/_runner_file_commands/set_env_1',
      '/r/_temp/p',
      '/r/o',
      '/r/s',
      '/r/st',
      '/r/_temp/_github_workflow/event.json',
    ]);
    expect(withoutRunnerVariables(env as Record<string, string>)).toEqual({
      GITHUB_WORKSPACE: '/w',
      OTHER: 'relative/path',
    });
  });

  it("names the runner's own credential files from the Node it runs the action on, and nothing for any other Node", () => {
    expect(runnerInstallSecrets('/opt/actions-runner/externals/node24/bin/node')).toEqual([
      '/opt/actions-runner/.credentials',
      '/opt/actions-runner/.credentials_rsaparams',
      '/opt/actions-runner/.runner',
      '/opt/actions-runner/.env',
      '/opt/actions-runner/.path',
      '/opt/actions-runner/.service',
      '/opt/actions-runner/.setup_info',
      '/opt/actions-runner/_diag',
    ]);
    expect(runnerInstallSecrets('/home/runner/runners/2.330.0/externals/node20_alpine/bin/node')[0]).toBe(
      '/home/runner/runners/2.330.0/.credentials',
    );
    expect(runnerInstallSecrets('/usr/bin/node')).toEqual([]);
    expect(runnerInstallSecrets('/opt/hostedtoolcache/node/24.1.0/x64/bin/node')).toEqual([]);
  });
});

describe('buildBwrapArgs, the whole command line', () => {
  it('is exactly this for a plan with every part, in the order bwrap must apply it', () => {
    const a = buildBwrapArgs(
      plan({
        readOnly: ['/opt/tools'],
        writable: ['/tmp/cache'],
        gitConfig: { path: '/w/repo/.git/config', dataFd: 4 },
        hidden: [
          { path: '/w/repo/_temp', kind: 'dir' },
          { path: '/w/repo/_temp/env', kind: 'file' },
          { path: '/opt/tools/event.json', kind: 'file' },
          { path: '/usr/share/secret', kind: 'symlink', target: '/x' },
          { path: '/home/runner/work/_temp', kind: 'dir' },
        ],
      }),
    );
    expect(a).toEqual([
      '--unshare-user',
      '--disable-userns',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--unshare-net',
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      '--new-session',
      '--json-status-fd',
      '3',
      '--ro-bind',
      '/usr',
      '/usr',
      '--symlink',
      'usr/bin',
      '/bin',
      '--ro-bind',
      '/etc',
      '/etc',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/tmp',
      '--tmpfs',
      '/var/tmp',
      '--tmpfs',
      '/run',
      '--tmpfs',
      '/home/runner',
      '--ro-bind',
      '/opt/tools',
      '/opt/tools',
      '--bind',
      '/w/repo',
      '/w/repo',
      '--bind',
      '/tmp/cache',
      '/tmp/cache',
      '--ro-bind',
      '/w/repo/.git',
      '/w/repo/.git',
      '--ro-bind',
      '/w/repo/.github',
      '/w/repo/.github',
      '--ro-bind-data',
      '4',
      '/w/repo/.git/config',
      '--tmpfs',
      '/w/repo/_temp',
      '--remount-ro',
      '/w/repo/_temp',
      '--ro-bind',
      '/dev/null',
      '/opt/tools/event.json',
      '--chdir',
      '/w/repo/src',
      '--',
      'bash',
      '-c',
      'true',
    ]);
  });

  it('with the network on, an older bwrap, a home under /tmp, and a symlinked protected path', () => {
    const a = buildBwrapArgs(
      plan({
        network: true,
        disableUserns: false,
        home: '/tmp/h',
        system: [],
        protectedPaths: [{ path: '/w/repo/.gemini', kind: 'symlink', target: '/' }],
      }),
    );
    expect(a).toEqual([
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      '--new-session',
      '--json-status-fd',
      '3',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/tmp',
      '--tmpfs',
      '/var/tmp',
      '--tmpfs',
      '/run',
      '--dir',
      '/tmp/h',
      '--bind',
      '/w/repo',
      '/w/repo',
      '--symlink',
      '/',
      '/w/repo/.gemini',
      '--chdir',
      '/w/repo/src',
      '--',
      'bash',
      '-c',
      'true',
    ]);
  });
});

describe('buildBwrapArgs, the parts the full command line above leaves out', () => {
  it('binds a trusted folder read-only over its protected path, after the protected folders', () => {
    const a = buildBwrapArgs(
      plan({
        protectedPaths: [{ path: '/w/repo/.gemini', kind: 'dir' }],
        overlays: [{ source: '/srv/trusted/.gemini', path: '/w/repo/.gemini' }],
      }),
    );
    expect(a.slice(-12)).toEqual([
      '--ro-bind',
      '/w/repo/.gemini',
      '/w/repo/.gemini',
      '--ro-bind',
      '/srv/trusted/.gemini',
      '/w/repo/.gemini',
      '--chdir',
      '/w/repo/src',
      '--',
      'bash',
      '-c',
      'true',
    ]);
    expect(at(a, '--ro-bind', '/srv/trusted/.gemini', '/w/repo/.gemini')).toBeGreaterThan(
      at(a, '--ro-bind', '/w/repo/.gemini', '/w/repo/.gemini'),
    );
  });

  it.each<{ why: string; hidden: BwrapPlan['hidden']; masked: string[]; emptied: string[]; absent: string[] }>([
    {
      why: 'a hidden file inside a hidden folder of the same name prefix is still hidden',
      hidden: [
        { path: '/w/repo/_t', kind: 'dir' },
        { path: '/w/repo/_tx/env', kind: 'file' },
        { path: '/w/repo/_t', kind: 'file' },
      ],
      masked: ['/w/repo/_tx/env'],
      emptied: ['/w/repo/_t'],
      absent: [],
    },
    {
      why: 'a hidden path under a system symlink is not bound (the symlink shows no tree), so nothing hides it',
      hidden: [
        { path: '/bin/runner-secret', kind: 'file' },
        { path: '/etc/runner-secret', kind: 'file' },
      ],
      masked: ['/etc/runner-secret'],
      emptied: [],
      absent: ['/bin/runner-secret'],
    },
    {
      why: 'only hidden folders hide what is under them; a hidden file does not',
      hidden: [
        { path: '/w/repo/f', kind: 'file' },
        { path: '/w/repo/f/g', kind: 'file' },
      ],
      masked: ['/w/repo/f', '/w/repo/f/g'],
      emptied: [],
      absent: [],
    },
  ])('$why', ({ hidden, masked, emptied, absent }) => {
    const a = buildBwrapArgs(plan({ hidden }));
    for (const path of masked) expect(at(a, '--ro-bind', '/dev/null', path), path).toBeGreaterThan(0);
    for (const path of emptied) expect(at(a, '--tmpfs', path, '--remount-ro', path), path).toBeGreaterThan(0);
    for (const path of absent) expect(a).not.toContain(path);
  });
});

describe('runner paths, the variables that name none', () => {
  it('unset, empty and relative values name nothing; the same path twice is one', () => {
    expect(
      runnerPathsOf({
        RUNNER_TEMP: '/r/t',
        GITHUB_ENV: '',
        GITHUB_PATH: 'relative/p',
        GITHUB_OUTPUT: undefined,
        GITHUB_STATE: '/r/t',
        GITHUB_STEP_SUMMARY: '/r/s',
      }),
    ).toEqual(['/r/t', '/r/s']);
    expect(runnerPathsOf({})).toEqual([]);
  });

  it("only the runner's own bundled node names its folder", () => {
    expect(runnerInstallSecrets('/opt/r/externals/node24/bin/node-wrapper')).toEqual([]);
    expect(runnerInstallSecrets('/opt/r/externals/node24/bin/node/x')).toEqual([]);
    expect(runnerInstallSecrets('/opt/r/externals/node/bin/node')[0]).toBe('/opt/r/.credentials');
  });
});
