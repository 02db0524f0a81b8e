/**
 * The sandbox for real: bubblewrap around run_shell_command, each test trying what a hostile
 * command would and checking the host afterwards. Where a test could pass for the wrong reason
 * (a connect that fails because nothing listens), a control run shows the same attempt succeeding
 * without the sandbox's protection.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { processAlive } from '../../src/sandbox/check.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import type { ToolEnv, ToolOutput } from '../../src/tools/define-tool.js';
import { createRepo, git, makeTempDir } from '../support/git-repo.js';
import { call, makeEnv, prepare, startShellWithManualTimer } from '../tools/helpers.js';

const CREDENTIAL = 'AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3NhbmRib3h0ZXN0';
const SECRET = 'ghs_sandboxTestSecret0000000000000001';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = createSandbox({ mode: 'required', hostEnv: {} });
  const s = await sandbox.status();
  if (s.kind !== 'sandboxed')
    throw new Error(`bubblewrap is needed for these tests (.ci/run installs it): ${JSON.stringify(s)}`);
});

/** A checkout as actions/checkout leaves it: a credential header in .git/config, workflows, policies. */
function checkout(files: Record<string, string> = {}): string {
  const { dir } = createRepo({
    'README.md': '# r\n',
    '.github/workflows/ci.yml': 'on: push\n',
    '.gemini/policies/team.toml': '# team\n',
    ...files,
  });
  dirs.push(dir);
  git(dir, 'config', 'http.https://github.com/.extraheader', CREDENTIAL);
  return dir;
}

const envFor = (dir: string, over: Partial<ToolEnv> = {}) => makeEnv(dir, { sandbox, shellGraceMs: 200, ...over });
const shell = (env: ToolEnv, command: string): Promise<ToolOutput> => call(env, 'run_shell_command', { command });
const outputOf = (o: ToolOutput) => o.forModel.split('\nOutput: ')[1] ?? '';

describe('inside the sandbox: the repository', () => {
  it('the workspace is writable and edits persist; a node script runs as `npm test` would', async () => {
    const dir = checkout({
      'package.json': JSON.stringify({ name: 'w', version: '1.0.0', scripts: { test: 'node test.js' } }),
      'test.js': "require('fs').writeFileSync('result.txt', 'tests ran ' + (1 + 1));\nconsole.log('1 passed');\n",
    });
    const out = await shell(envFor(dir), 'npm test 2>&1 && echo edited > notes.txt');
    expect(out.forModel).toContain('1 passed');
    expect(out.forModel).toContain('Exit Code: 0');
    expect(readFileSync(join(dir, 'result.txt'), 'utf8')).toBe('tests ran 2');
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('edited\n');
  });

  it.each([
    ['.git/config', "echo '[core]' >> .git/config && echo '\tfsmonitor = \"touch /tmp/pwned\"' >> .git/config"],
    ['.git/hooks', 'echo "#!/bin/sh" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit'],
    ['.gemini/policies', "cd .gemini && echo '[[rule]]' > policies/x.toml"],
    ['.github/workflows', 'cd .github && echo "on: push" > workflows/x.yml'],
    ['.git itself', 'mv .git .git-moved || rm -rf .git'],
  ])('writing %s fails, and the host file is unchanged', async (_what, command) => {
    const dir = checkout();
    const before = {
      config: readFileSync(join(dir, '.git/config'), 'utf8'),
      hooks: execFileSync('ls', [join(dir, '.git/hooks')], { encoding: 'utf8' }),
    };
    const out = await shell(envFor(dir), command);
    expect(out.forModel).toMatch(/Read-only file system|Device or resource busy|Permission denied/);
    expect(out.forModel).not.toContain('Exit Code: 0');
    expect(readFileSync(join(dir, '.git/config'), 'utf8')).toBe(before.config);
    expect(execFileSync('ls', [join(dir, '.git/hooks')], { encoding: 'utf8' })).toBe(before.hooks);
    expect(existsSync(join(dir, '.gemini/policies/x.toml'))).toBe(false);
    expect(existsSync(join(dir, '.github/workflows/x.yml'))).toBe(false);
    expect(existsSync(join(dir, '.git-moved'))).toBe(false);
  });

  it('an absent .gemini cannot be created, and the empty folder made for the call is gone after it', async () => {
    const { dir } = createRepo({ 'README.md': '# r\n' });
    dirs.push(dir);
    const out = await shell(envFor(dir), 'mkdir -p .gemini/policies && echo x > .gemini/policies/allow.toml');
    expect(out.forModel).toContain('Read-only file system');
    expect(existsSync(join(dir, '.gemini'))).toBe(false);
    expect(existsSync(join(dir, '.github'))).toBe(false);
  });

  it('.git/config inside has no credential; git still reads the repository', async () => {
    const dir = checkout();
    const out = await shell(
      envFor(dir),
      'cat .git/config; git config --get remote.origin.url; git log --oneline | wc -l; git status --short | wc -l',
    );
    expect(out.forModel).not.toContain('AUTHORIZATION');
    expect(out.forModel).not.toContain('eC1hY2Nlc3MtdG9rZW46');
    expect(out.forModel).toContain('[http "https://github.com/"]');
    expect(out.forModel).toMatch(/\n1\n0\nExit Code: 0/);
    expect(readFileSync(join(dir, '.git/config'), 'utf8')).toContain(CREDENTIAL); // the host's copy is untouched
  });

  it('refuses a protected folder that is a symlink (a mount would follow it)', async () => {
    const { dir } = createRepo({ 'README.md': '# r\n' });
    dirs.push(dir);
    execFileSync('ln', ['-s', '/', join(dir, '.github')]);
    const out = await shell(envFor(dir), 'ls .github/');
    expect(out.error?.code).toBe('denied');
    expect(out.forModel).toContain('.github is a symbolic link');
  });

  it('cannot remount its read-only binds or gain capabilities, even when the agent runs as root', async () => {
    const dir = checkout();
    const out = await shell(
      envFor(dir),
      "grep CapEff /proc/self/status; mount -o remount,rw,bind .git 2>&1; echo '[x]' >> .git/config 2>&1; unshare -U true 2>&1; echo done",
    );
    expect(out.forModel).toMatch(/CapEff:\s+0000000000000000/);
    expect(out.forModel).toContain('Read-only file system');
    expect(readFileSync(join(dir, '.git/config'), 'utf8')).not.toContain('[x]');
  });
});

describe('inside the sandbox: the host', () => {
  it("sees a fresh /proc: no other process's environ, not the agent's", async () => {
    const dir = checkout();
    const env = envFor(dir, {
      secrets: [SECRET],
      baseEnv: { PATH: process.env.PATH, HOME: '/root', GITHUB_TOKEN: SECRET, INPUT_GITHUB_TOKEN: SECRET },
    });
    const out = await shell(
      env,
      `ls /proc | grep -c '^[0-9]*$'; test -e /proc/${process.pid} && echo agent-visible || echo agent-absent; test -e /proc/${process.ppid} && echo parent-visible || echo parent-absent; cat /proc/[0-9]*/environ | tr '\\0' '\\n' | rev`,
    );
    const output = outputOf(out);
    expect(output).toContain('agent-absent');
    expect(output).toContain('parent-absent');
    expect(Number(output.split('\n')[0])).toBeLessThan(10);
    expect(output).not.toContain(SECRET.split('').reverse().join(''));
    expect(output).not.toContain(SECRET);
  });

  it('has an empty $HOME and a private /tmp', async () => {
    const dir = checkout();
    const marker = join('/tmp', `agent-action-host-file-${process.pid}`);
    writeFileSync(marker, 'host');
    try {
      const out = await shell(
        envFor(dir, { baseEnv: { PATH: process.env.PATH, HOME: '/root' } }),
        `echo "home=$HOME"; ls -A "$HOME" | wc -l; ls -A /root | wc -l; test -e ${marker} && echo tmp-shared || echo tmp-private; echo x > /tmp/inner`,
      );
      expect(outputOf(out)).toMatch(/^home=\/root\n0\n0\ntmp-private\n/);
      expect(existsSync('/tmp/inner')).toBe(false);
    } finally {
      rmSync(marker, { force: true });
    }
  });

  it("cannot reach the runner's temp folder or file commands; their variables are gone", async () => {
    const dir = checkout();
    const runner = makeTempDir('agent-action-runner-');
    dirs.push(runner);
    const inWs = join(dir, '_runner');
    mkdirSync(inWs);
    const files = {
      GITHUB_ENV: join(runner, 'env'),
      GITHUB_PATH: join(runner, 'path'),
      GITHUB_OUTPUT: join(inWs, 'output'),
      GITHUB_STEP_SUMMARY: join(inWs, 'summary'),
      GITHUB_EVENT_PATH: join(runner, 'event.json'),
    };
    for (const f of Object.values(files)) writeFileSync(f, '');
    const hostEnv = { RUNNER_TEMP: runner, ...files };
    const sb = createSandbox({ mode: 'required', hostEnv });
    const out = await shell(
      envFor(dir, { sandbox: sb, baseEnv: { PATH: process.env.PATH, ...hostEnv } }),
      [
        'env | grep -c -E "^(RUNNER_TEMP|GITHUB_ENV|GITHUB_PATH|GITHUB_OUTPUT|GITHUB_STEP_SUMMARY|GITHUB_EVENT_PATH)=" || true',
        ...Object.values(files).map(
          (f) => `{ echo 'BASH_ENV=/tmp/evil' >> ${f}; } 2>/dev/null && echo wrote || echo refused`,
        ),
        `ls ${runner} 2>&1 | head -1`,
      ].join('; '),
    );
    expect(outputOf(out).split('\n').slice(0, 6)).toEqual(['0', 'refused', 'refused', 'refused', 'refused', 'refused']);
    for (const f of Object.values(files)) expect(readFileSync(f, 'utf8')).toBe('');
  });

  it('has no network: a loopback server of the host is unreachable (and reachable when the network is allowed)', async () => {
    const dir = checkout();
    let connections = 0;
    const server: Server = createServer((s) => (connections++, s.end('hello\n')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const attempt = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
    try {
      const off = await shell(envFor(dir), attempt);
      expect(off.forModel).toMatch(/Connection refused|Network is unreachable/);
      expect(connections).toBe(0);
      const on = await shell(
        envFor(dir, { sandbox: createSandbox({ mode: 'required', network: true, hostEnv: {} }) }),
        attempt,
      );
      expect(outputOf(on)).toMatch(/^hello\n/);
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe('inside the sandbox: every process ends with the call', () => {
  const marker = () => `1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;

  /** Leaves the process group and session, and waits until it has, so the escape is real. */
  const escape = (m: string) =>
    `setsid sh -c 'echo $$ > .escaped; exec sleep ${m}' >/dev/null 2>&1 & while [ ! -s .escaped ]; do sleep 0.01; done; echo escaped`;

  it('a setsid background process dies with the command (it would survive unconfined)', async () => {
    const dir = checkout();
    const m = marker();
    const out = await shell(envFor(dir), escape(m));
    expect(out.forModel).toContain('escaped\nExit Code: 0');
    expect(await processAlive(m)).toBe(false);

    // Control: without the sandbox the same command leaves it running, so the check above can fail.
    const m2 = marker();
    rmSync(join(dir, '.escaped'));
    await shell(envFor(dir, { sandbox: createSandbox({ mode: 'off', hostEnv: {} }) }), escape(m2));
    const pid = Number(readFileSync(join(dir, '.escaped'), 'utf8'));
    try {
      expect(await processAlive(m2)).toBe(true);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('a timeout kills the command and what it started, in and out of its group', async () => {
    const dir = checkout();
    const m = marker();
    const { timer, running, printed } = await startShellWithManualTimer(
      envFor(dir, { shellTimeoutMs: 500 }),
      `${escape(m)}; bash -c 'sleep ${m}' & wait`,
    );
    // The timeout fires once the escape is done (an event), not after 500 ms of wall clock.
    await printed('escaped');
    timer.fire(500);
    const out = await running;
    expect(out.error?.code).toBe('timeout');
    expect(out.forModel).toContain('Signal: SIGTERM');
    expect(await processAlive(m)).toBe(false);
  });

  it('a command that ignores SIGTERM is killed after the grace period', async () => {
    const dir = checkout();
    const { timer, running, printed } = await startShellWithManualTimer(
      envFor(dir, { shellTimeoutMs: 300, shellGraceMs: 100 }),
      "trap '' TERM; echo started; while :; do sleep 0.05; done",
    );
    await printed('started');
    timer.fire(300);
    // SIGTERM was ignored: the grace timer is what ends it (without escalation, the call never ends).
    await timer.until(100);
    timer.fire(100);
    const out = await running;
    expect(out.error?.code).toBe('timeout');
    expect(out.forModel).toContain('started');
    expect(out.forModel).toContain('Signal: SIGKILL');
  });

  it('an abort kills everything, waiting on an event, not a clock', async () => {
    const dir = checkout();
    const m = marker();
    const ac = new AbortController();
    const p = await prepare(envFor(dir), 'run_shell_command', { command: `${escape(m)}; sleep ${m}` });
    const running = p.run({ signal: ac.signal, onProgress: (line) => line.includes('escaped') && ac.abort() });
    const out = await running;
    expect(out.error?.code).toBe('cancelled');
    // The shell's own answer, given once its processes are gone, not the generic one given at the abort.
    expect(out.forModel).toContain('Cancelled: the command was stopped before it finished.');
    expect(await processAlive(m)).toBe(false);
  });
});

describe('the sandbox interface, for hooks and MCP servers', () => {
  it('talks to a process on stdin, binds extra writable folders, and keeps the rest of the host read-only', async () => {
    const dir = checkout();
    const cache = makeTempDir('agent-action-cache-');
    dirs.push(cache);
    const p = await sandbox.spawn({
      argv: ['bash', '-c', `read line; echo "got $line"; echo c > ${cache}/c.txt; echo u > /usr/x 2>&1 || echo usr-ro`],
      workspace: dir,
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
      stdin: 'pipe',
    });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c));
    p.stderr.on('data', (c: Buffer) => (out += c));
    p.stdin!.end('hello\n');
    // Without `writable` the cache folder is not even there.
    expect(await p.closed).toEqual({ code: 0, signal: null });
    expect(out).toContain('got hello');
    expect(out).toContain('usr-ro');
    expect(existsSync(join(cache, 'c.txt'))).toBe(false);

    const q = await sandbox.spawn({
      argv: ['bash', '-c', `echo c > ${cache}/c.txt`],
      workspace: dir,
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
      writable: [cache],
    });
    q.stdout.resume();
    q.stderr.resume();
    expect((await q.closed).code).toBe(0);
    expect(readFileSync(join(cache, 'c.txt'), 'utf8')).toBe('c\n');

    // A folder that would expose what the sandbox hides is refused, not bound.
    await expect(
      sandbox.spawn({
        argv: ['true'],
        workspace: dir,
        cwd: dir,
        env: { PATH: '/usr/bin:/bin', HOME: '/root' },
        writable: ['/root'],
      }),
    ).rejects.toThrow('sandbox: these folders cannot be made writable: /root');
  });

  it('a long-lived process keeps an absent .gemini protected while short calls come and go', async () => {
    const { dir } = createRepo({ 'README.md': '# r\n' });
    dirs.push(dir);
    const server = await sandbox.spawn({
      argv: ['bash', '-c', 'read x; mkdir .gemini/p 2>&1 || echo still-protected'],
      workspace: dir,
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
      stdin: 'pipe',
    });
    let out = '';
    server.stdout.on('data', (c: Buffer) => (out += c));
    server.stderr.on('data', (c: Buffer) => (out += c));
    await shell(envFor(dir), 'true'); // starts and ends while the server runs
    expect(existsSync(join(dir, '.gemini'))).toBe(true); // still the server's mount point
    server.stdin!.end('go\n');
    await server.closed;
    expect(out).toContain('still-protected');
    expect(existsSync(join(dir, '.gemini'))).toBe(false);
  });
});
