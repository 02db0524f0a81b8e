/**
 * createSandbox (src/sandbox/sandbox.ts) called directly, as hooks and MCP servers call it: one
 * process per test in the real bubblewrap, small commands whose output is checked exactly. The
 * shell tool's view of the same sandbox is in confinement.test.ts; refusals and remedies in
 * modes.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { makeBindableDir } from '../support/bindable-dir.js';
import { createSandbox, defaultSandbox, explainFailure } from '../../src/sandbox/sandbox.js';
import type { ConfinedProcess, ProbeResult, Sandbox, SpawnRequest } from '../../src/sandbox/types.js';

let root: string;
let sandbox: Sandbox;
beforeAll(() => {
  root = makeBindableDir('sandbox-test-');
  // Probed on first use, inside a test: work done in a hook would count as every test's for mutation testing.
  sandbox = createSandbox({ mode: 'required', hostEnv: {} });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A fresh workspace under root with `files` (path -> content; `{}` a folder). */
function workspace(files: Record<string, string | Record<string, never>> = {}): string {
  const dir = join(root, `ws-${++n}`);
  mkdirSync(dir, { recursive: true });
  for (const [path, what] of Object.entries(files)) {
    const abs = join(dir, path);
    mkdirSync(join(abs, '..'), { recursive: true });
    if (typeof what === 'string') writeFileSync(abs, what);
    else mkdirSync(abs, { recursive: true });
  }
  return dir;
}

const PATH = '/usr/bin:/bin';

async function outputOf(p: ConfinedProcess): Promise<string> {
  let out = '';
  p.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  p.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  await p.closed;
  return out;
}

const run = async (
  s: Sandbox,
  req: Omit<SpawnRequest, 'workspace' | 'cwd'> & { workspace?: string; cwd?: string },
  ws = req.workspace ?? workspace(),
) => outputOf(await s.spawn({ ...req, workspace: ws, cwd: req.cwd ?? ws }));

const bash = (command: string) => ['bash', '-c', command];

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('the environment inside', () => {
  it("is the caller's, with HOME set, no temp or runtime folder of the host, no runner variables, and update checks off", async () => {
    const ws = workspace();
    const out = await run(sandbox, {
      argv: ['env'],
      env: {
        PATH,
        FOO: 'bar',
        HOME: '/home/u',
        TMPDIR: '/tmp/host',
        XDG_RUNTIME_DIR: '/run/user/0',
        RUNNER_TEMP: '/r/_temp',
        GITHUB_ENV: '/r/_temp/env',
        GITHUB_EVENT_PATH: '/r/e.json',
      },
      workspace: ws,
    });
    // PWD is bwrap's (--chdir).
    expect(out.split('\n').filter(Boolean).sort()).toEqual([
      'FOO=bar',
      'HOME=/home/u',
      'NO_UPDATE_NOTIFIER=1',
      `PATH=${PATH}`,
      `PWD=${ws}`,
      'npm_config_update_notifier=false',
    ]);
  });

  it("the caller's update-notifier settings win over the defaults", async () => {
    const ws = workspace();
    const out = await run(sandbox, {
      argv: ['env'],
      env: { PATH, npm_config_update_notifier: 'true', NO_UPDATE_NOTIFIER: '' },
      workspace: ws,
    });
    expect(out.split('\n').filter(Boolean).sort()).toEqual([
      'HOME=/home/sandbox',
      'NO_UPDATE_NOTIFIER=',
      `PATH=${PATH}`,
      `PWD=${ws}`,
      'npm_config_update_notifier=true',
    ]);
  });

  it('a HOME inside the workspace becomes an empty /home/sandbox; a HOME elsewhere is an empty folder at its path', async () => {
    const ws = workspace({ 'home/.bashrc': 'x' });
    expect(
      await run(
        sandbox,
        { argv: bash('echo "$HOME $(ls -A "$HOME" | wc -l)"'), env: { PATH, HOME: join(ws, 'home') } },
        ws,
      ),
    ).toBe('/home/sandbox 0\n');
    expect(
      await run(sandbox, {
        argv: bash('echo "$HOME $(ls -A "$HOME" | wc -l)"; touch "$HOME/x" && echo writable'),
        env: { PATH, HOME: '/root' },
      }),
    ).toBe('/root 0\nwritable\n');
  });

  it('the sandbox unconfined (off) also drops the runner variables', async () => {
    const off = createSandbox({ mode: 'off', hostEnv: {} });
    const out = await run(off, {
      argv: ['env'],
      env: { PATH, A: '1', RUNNER_TEMP: '/r', GITHUB_PATH: '/r/p', GITHUB_OUTPUT: '/r/o' },
    });
    expect(out.split('\n').filter(Boolean).sort()).toEqual(['A=1', `PATH=${PATH}`]);
  });
});

describe('what the process sees of the host', () => {
  it("hides the runner's temp folder named in the host environment, inside the workspace too", async () => {
    const ws = workspace({ '_temp/env': 'secret\n', 'file.txt': 'ok\n' });
    const s = createSandbox({ mode: 'required', hostEnv: { RUNNER_TEMP: join(ws, '_temp') } });
    const out = await run(
      s,
      {
        argv: bash('ls -A _temp | wc -l; cat file.txt; touch _temp/x 2>/dev/null && echo wrote || echo refused'),
        env: { PATH },
      },
      ws,
    );
    expect(out).toBe('0\nok\nrefused\n');
    expect(existsSync(join(ws, '_temp/x'))).toBe(false);
  });

  it('binds the extra read-only folders it was given, read-only, and never one under /tmp or the home', async () => {
    const tools = join(root, `tools-${++n}`);
    mkdirSync(tools);
    writeFileSync(join(tools, 'tool.txt'), 'a tool\n');
    const s = createSandbox({ mode: 'required', hostEnv: {}, readOnly: [tools, '/tmp'] });
    const out = await run(s, {
      argv: bash(
        `cat ${tools}/tool.txt; touch ${tools}/x 2>/dev/null && echo wrote || echo read-only; ls -A /tmp | wc -l`,
      ),
      env: { PATH },
    });
    expect(out).toBe('a tool\nread-only\n0\n');
    // Without the option the folder is not there at all.
    expect(await run(sandbox, { argv: bash(`test -e ${tools} && echo there || echo absent`), env: { PATH } })).toBe(
      'absent\n',
    );
  });

  it("the network namespace: fresh by default, the host's when the request allows the network", async () => {
    const host = execFileSync('readlink', ['/proc/self/ns/net'], { encoding: 'utf8' });
    expect(await run(sandbox, { argv: ['readlink', '/proc/self/ns/net'], env: { PATH } })).not.toBe(host);
    expect(await run(sandbox, { argv: ['readlink', '/proc/self/ns/net'], env: { PATH }, network: true })).toBe(host);
    const open = createSandbox({ mode: 'required', hostEnv: {}, network: true });
    expect(await open.status()).toMatchObject({ kind: 'sandboxed', network: true });
    expect(await open.status()).not.toHaveProperty('remedy');
    expect(await run(open, { argv: ['readlink', '/proc/self/ns/net'], env: { PATH } })).toBe(host);
    expect(await run(open, { argv: ['readlink', '/proc/self/ns/net'], env: { PATH }, network: false })).not.toBe(host);
  });

  it('no user namespace can be made inside (bwrap >= 0.8: --disable-userns), and no capability is left', async () => {
    const out = await run(sandbox, {
      argv: bash('unshare --user true 2>/dev/null && echo nested || echo refused; grep ^CapEff /proc/self/status'),
      env: { PATH },
    });
    expect(out).toBe('refused\nCapEff:\t0000000000000000\n');
  });

  it('starts in the given folder of the workspace, by its real path', async () => {
    const ws = workspace({ 'src/a': 'x' });
    symlinkSync(ws, join(root, `link-${n}`));
    expect(
      await run(
        sandbox,
        { argv: ['pwd'], env: { PATH }, workspace: join(root, `link-${n}`), cwd: join(root, `link-${n}`, 'src') },
        join(root, `link-${n}`),
      ),
    ).toBe(`${ws}/src\n`);
  });
});

describe('requests the sandbox refuses', () => {
  it('a cwd outside the workspace, and / as the workspace', async () => {
    const ws = workspace();
    const e1 = await errorOf(sandbox.spawn({ argv: ['true'], workspace: ws, cwd: root, env: {} }));
    expect(isAgentError(e1) && e1.kind).toBe('internal');
    expect((e1 as Error).message).toBe(`sandbox: cwd ${root} is outside the workspace ${ws}`);
    const e2 = await errorOf(sandbox.spawn({ argv: ['true'], workspace: '/', cwd: '/', env: {} }));
    expect(isAgentError(e2) && e2.kind).toBe('config');
    expect((e2 as Error).message).toBe('sandbox: the workspace cannot be /');
  });

  it('a protected folder that is a symlink', async () => {
    const ws = workspace({ target: {} });
    symlinkSync('target', join(ws, '.github'));
    const e = await errorOf(sandbox.spawn({ argv: ['true'], workspace: ws, cwd: ws, env: {} }));
    expect(isAgentError(e) && e.kind).toBe('config');
    expect((e as Error).message).toBe(
      `sandbox: ${ws}/.github is a symbolic link: the sandbox cannot protect it (replace it with a folder)`,
    );
  });

  it('writable folders that would expose the host, all named', async () => {
    const ws = workspace();
    const e2 = await errorOf(
      sandbox.spawn({ argv: ['true'], workspace: ws, cwd: ws, env: {}, writable: ['/etc', '/var/cache/x', 'rel'] }),
    );
    expect(isAgentError(e2) && e2.kind).toBe('config');
    expect((e2 as Error).message).toBe('sandbox: these folders cannot be made writable: /etc, rel');
  });
});

describe("a trusted .gemini/ over the work tree's", () => {
  it("is what the process reads, read-only; the work tree's copy stays as it was", async () => {
    const ws = workspace({ '.gemini/settings.json': 'from the pull request\n' });
    const trusted = join(root, `trusted-${++n}`);
    mkdirSync(trusted);
    writeFileSync(join(trusted, 'settings.json'), 'from the trusted commit\n');
    const out = await run(
      sandbox,
      {
        argv: bash('cat .gemini/settings.json; (echo x > .gemini/new) 2>/dev/null && echo wrote || echo read-only'),
        env: { PATH },
        configDir: trusted,
      },
      ws,
    );
    expect(out).toBe('from the trusted commit\nread-only\n');
    expect(execFileSync('cat', [join(ws, '.gemini/settings.json')], { encoding: 'utf8' })).toBe(
      'from the pull request\n',
    );
    // Where the work tree has none, the trusted one still shows, and no placeholder is left behind.
    const bare = workspace();
    expect(
      await run(sandbox, { argv: ['cat', '.gemini/settings.json'], env: { PATH }, configDir: trusted }, bare),
    ).toBe('from the trusted commit\n');
    expect(existsSync(join(bare, '.gemini'))).toBe(false);
  });

  it('refuses a configDir that is not a folder, and a work tree whose .gemini is a file', async () => {
    const ws = workspace({ 'cfg-file': 'x' });
    for (const configDir of [join(ws, 'cfg-file'), join(ws, 'absent')]) {
      const e = await errorOf(sandbox.spawn({ argv: ['true'], workspace: ws, cwd: ws, env: {}, configDir }));
      expect(isAgentError(e) && e.kind).toBe('config');
      expect((e as Error).message).toBe(`sandbox: the trusted configuration folder ${configDir} is not a folder`);
    }
    const withFile = workspace({ '.gemini': 'a file', trusted: {} });
    const e = await errorOf(
      sandbox.spawn({
        argv: ['true'],
        workspace: withFile,
        cwd: withFile,
        env: {},
        configDir: join(withFile, 'trusted'),
      }),
    );
    expect(isAgentError(e) && e.kind).toBe('config');
    expect((e as Error).message).toBe(
      `sandbox: ${withFile}/.gemini is not a folder, so the trusted .gemini/ cannot be put in its place`,
    );
  });
});

describe('placeholders for absent protected folders', () => {
  it('exist while any process of the sandbox uses them, and are removed with the last one', async () => {
    const ws = workspace();
    const wait = { argv: bash('read x; echo done'), env: { PATH }, stdin: 'pipe' as const, workspace: ws, cwd: ws };
    const a = await sandbox.spawn(wait);
    const b = await sandbox.spawn(wait);
    for (const name of ['.gemini', '.github']) expect(existsSync(join(ws, name))).toBe(true);
    b.stdin!.end('\n');
    expect(await outputOf(b)).toBe('done\n');
    expect(existsSync(join(ws, '.gemini'))).toBe(true);
    const c = await sandbox.spawn(wait);
    a.stdin!.end('\n');
    expect(await outputOf(a)).toBe('done\n');
    expect(existsSync(join(ws, '.github'))).toBe(true);
    c.stdin!.end('\n');
    expect(await outputOf(c)).toBe('done\n');
    for (const name of ['.gemini', '.github']) expect(existsSync(join(ws, name))).toBe(false);
    // .git is a placeholder too when absent; a folder that was there before is never removed.
    const kept = workspace({ '.github/workflows/ci.yml': 'on: push\n' });
    expect(await run(sandbox, { argv: ['true'], env: { PATH } }, kept)).toBe('');
    expect(existsSync(join(kept, '.github/workflows/ci.yml'))).toBe(true);
    expect(existsSync(join(kept, '.git'))).toBe(false);
  });

  it('processes started at the same time on a fresh workspace share the placeholders, and the last one removes them', async () => {
    const ws = workspace();
    const ps = await Promise.all(
      [1, 2, 3, 4].map(() =>
        sandbox.spawn({
          argv: bash('read x; test -d .gemini && echo ok'),
          env: { PATH },
          stdin: 'pipe',
          workspace: ws,
          cwd: ws,
        }),
      ),
    );
    for (const p of ps) p.stdin!.end('\n');
    expect(await Promise.all(ps.map(outputOf))).toEqual(['ok\n', 'ok\n', 'ok\n', 'ok\n']);
    for (const name of ['.git', '.gemini', '.github']) expect(existsSync(join(ws, name))).toBe(false);
  });

  it('a placeholder something was written into from outside is left alone', async () => {
    const ws = workspace();
    const p = await sandbox.spawn({ argv: bash('read x'), env: { PATH }, stdin: 'pipe', workspace: ws, cwd: ws });
    writeFileSync(join(ws, '.gemini', 'host-file'), 'x'); // the host can still write under the mount point's source
    p.stdin!.end('\n');
    await outputOf(p);
    expect(existsSync(join(ws, '.gemini', 'host-file'))).toBe(true);
  });
});

describe('status', () => {
  const refused: ProbeResult = {
    ok: false,
    kind: 'failed',
    bwrap: '/usr/bin/bwrap',
    message: "\n  bwrap: Can't mount proc on /newroot/proc: Operation not permitted\nmore detail",
  };

  it('auto without a sandbox: the warning carries the reason and the fix', async () => {
    const s = await createSandbox({ mode: 'auto', hostEnv: {}, probe: async () => refused }).status();
    expect(s).toEqual({
      kind: 'unconfined',
      warning:
        "commands run without the sandbox: bubblewrap failed: bwrap: Can't mount proc on /newroot/proc: Operation not permitted. To fix: run `agent-action sandbox check` on this machine to see which part fails",
    });
  });

  it('off: the warning says what unconfined means', async () => {
    expect(await createSandbox({ mode: 'off', hostEnv: {} }).status()).toEqual({
      kind: 'unconfined',
      warning:
        'the sandbox is off: commands run with the full access of this process (its files, its network, its other processes)',
    });
  });

  it('a remedy that says it worked but did not: probed twice, refused, and the reason says what was tried', async () => {
    let calls = 0;
    const s = await createSandbox({
      mode: 'required',
      hostEnv: {},
      probe: async () => (calls++, refused),
      remedy: { apply: async () => ({ applied: true, message: 'ran the fix' }) },
    }).status();
    expect(calls).toBe(2);
    expect(s).toEqual({
      kind: 'refused',
      reason:
        "bubblewrap failed: bwrap: Can't mount proc on /newroot/proc: Operation not permitted (tried: ran the fix)",
      fix: 'run `agent-action sandbox check` on this machine to see which part fails',
    });
  });

  it('a remedy that did nothing: probed once; a later spawn is refused with the same reason', async () => {
    let calls = 0;
    const s = createSandbox({
      mode: 'required',
      hostEnv: {},
      probe: async () => (calls++, refused),
      remedy: { apply: async () => ({ applied: false, message: 'nothing to do' }) },
    });
    const ws = workspace();
    const e = await errorOf(s.spawn({ argv: ['true'], workspace: ws, cwd: ws, env: {} }));
    expect((e as Error).message).toBe(
      "the sandbox is required and unavailable: bubblewrap failed: bwrap: Can't mount proc on /newroot/proc: Operation not permitted (tried: nothing to do). To fix: run `agent-action sandbox check` on this machine to see which part fails",
    );
    expect(await s.status()).toMatchObject({ kind: 'refused' });
    expect(calls).toBe(1);
  });

  it('the default probe runs the given bwrap: a missing one is refused, naming it', async () => {
    const s = await createSandbox({ mode: 'required', hostEnv: {}, bwrap: '/nonexistent/bwrap' }).status();
    expect(s).toEqual({
      kind: 'refused',
      reason: 'bubblewrap is not installed (/nonexistent/bwrap not found)',
      fix: 'install bubblewrap before this step (`sudo apt-get install -y bubblewrap` on Debian and Ubuntu)',
    });
  });

  it('the default probe with the real bubblewrap: sandboxed, by that path and its version', async () => {
    const version = /(\d+\.\d+(\.\d+)?)/.exec(execFileSync('/usr/bin/bwrap', ['--version'], { encoding: 'utf8' }))?.[1];
    expect(await createSandbox({ mode: 'auto', hostEnv: {} }).status()).toEqual({
      kind: 'sandboxed',
      bwrap: '/usr/bin/bwrap',
      version,
      network: false,
      bounds: { processes: 1024, memoryBytes: 8 * 2 ** 30, fileSizeBytes: 2 ** 30, openFiles: 8192 },
    });
  });

  it('defaultSandbox is one auto sandbox, made once', () => {
    const d = defaultSandbox();
    expect(d.mode).toBe('auto');
    expect(defaultSandbox()).toBe(d);
  });
});

describe('explainFailure', () => {
  it('names the bwrap that may not create namespaces, and what the remedy tried', () => {
    expect(
      explainFailure(
        { ok: false, kind: 'userns_denied', bwrap: '/opt/bwrap', message: 'uid map denied\nsecond' },
        'sysctl absent',
      ),
    ).toEqual({
      reason: 'bubblewrap may not create user namespaces here: uid map denied (tried: sysctl absent)',
      fix: 'on Ubuntu 23.10 and later (the ubuntu-24.04 runners), AppArmor restricts unprivileged user namespaces: run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` in a step before this one, or install an AppArmor profile that allows /opt/bwrap to use them',
    });
    expect(explainFailure({ ok: false, kind: 'failed', bwrap: '/opt/bwrap', message: '' }).reason).toBe(
      'bubblewrap failed: ',
    );
  });
});
