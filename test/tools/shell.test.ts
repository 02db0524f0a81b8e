import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SHELL_OUTPUT_BYTES } from '../../src/tools/builtin/run-shell-command.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import { createRepo } from '../support/git-repo.js';
import { call, makeEnv, prepare, startShellWithManualTimer } from './helpers.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Poll until a command has written `file` (the test's own timeout bounds this). */
async function untilWritten(file: string): Promise<void> {
  for (;;) {
    try {
      if (readFileSync(file, 'utf8').trim()) return;
    } catch {
      /* not yet written */
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Poll (not a time assert): the kernel reaps asynchronously after SIGKILL; the test's timeout bounds the wait. */
async function untilGone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
}

/**
 * The unconfined path (sandbox `off`, or `auto` without bubblewrap): the process group is what
 * ends a command's children. The sandboxed path is tested in test/sandbox/confinement.test.ts.
 */
const unconfined = createSandbox({ mode: 'off', hostEnv: {} });

/** bash -> bash child -> sleeping grandchild, which writes its pid to a file first. */
const NESTED = (pidFile: string) => `bash -c 'sleep 300 & echo $! > ${pidFile}; wait' ; echo unreachable`;

describe('run_shell_command', () => {
  it('reports output, exit code and directory', async () => {
    const { dir } = createRepo({ 'sub/f.txt': 'x' });
    const out = await call(makeEnv(dir), 'run_shell_command', { command: 'ls; echo err >&2; exit 3', dir_path: 'sub' });
    expect(out.forModel).toBe('Command: ls; echo err >&2; exit 3\nDirectory: sub\nOutput: f.txt\nerr\nExit Code: 3');
    expect(out.error).toBeUndefined();
    expect(out.forHuman).toBe('`ls; echo err >&2; exit 3` exited 3');
  });

  it('policyArgs carry the command for policy to split', async () => {
    const { dir } = createRepo();
    const p = await prepare(makeEnv(dir), 'run_shell_command', {
      command: 'npm test && echo ok',
      description: 'tests',
    });
    expect(p.policyArgs).toEqual({ command: 'npm test && echo ok' });
    expect(p.title).toBe('run `npm test && echo ok`');
  });

  it('unconfined: kills the whole process group on timeout', async () => {
    const { dir } = createRepo();
    const pidFile = join(dir, 'grandchild.pid');
    const { timer, running } = await startShellWithManualTimer(
      makeEnv(dir, { shellTimeoutMs: 800, shellGraceMs: 200, sandbox: unconfined }),
      NESTED(pidFile),
    );
    // The timeout fires once the grandchild is running (an event), not after 800 ms of wall clock.
    await untilWritten(pidFile);
    // The grandchild can write its pid before the call has started its timer (a loaded machine).
    await timer.until(800);
    timer.fire(800);
    const out = await running;
    expect(out.error?.code).toBe('timeout');
    expect(out.forModel).toMatch(/Signal: SIGTERM/);
    expect(out.forModel.split('Output:')[1]).not.toContain('unreachable');
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    await untilGone(grandchild);
  });

  it('unconfined: escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const { dir } = createRepo();
    const { timer, running, printed } = await startShellWithManualTimer(
      makeEnv(dir, { shellTimeoutMs: 500, shellGraceMs: 200, sandbox: unconfined }),
      "trap '' TERM; echo started; sleep 300 & wait; echo after",
    );
    await printed('started');
    await timer.until(500);
    timer.fire(500);
    // SIGTERM was ignored: the grace timer is what ends it (without escalation, the call never ends).
    await timer.until(200);
    timer.fire(200);
    const out = await running;
    expect(out.error?.code).toBe('timeout');
    expect(out.forModel).toContain('started');
    expect(out.forModel).toContain('Signal: SIGKILL');
  });

  it('unconfined: kills the whole process group on abort', async () => {
    const { dir } = createRepo();
    const pidFile = join(dir, 'grandchild.pid');
    const ac = new AbortController();
    const p = await prepare(makeEnv(dir, { sandbox: unconfined }), 'run_shell_command', { command: NESTED(pidFile) });
    const running = p.run({ signal: ac.signal, onProgress: () => undefined });
    await untilWritten(pidFile);
    ac.abort();
    const out = await running;
    expect(out.error?.code).toBe('cancelled');
    await untilGone(Number(readFileSync(pidFile, 'utf8')));
  });

  it('unconfined: does not let background processes in its group outlive the command', async () => {
    const { dir } = createRepo();
    const out = await call(makeEnv(dir, { sandbox: unconfined }), 'run_shell_command', {
      command: 'sleep 300 & echo $!',
    });
    const bg = Number(/Output: (\d+)/.exec(out.forModel)?.[1]);
    expect(out.forModel).toContain('Exit Code: 0');
    await untilGone(bg);
  });

  it('a command gets the allow-listed variables and what trusted configuration passes, nothing else; its output is redacted', async () => {
    const { dir } = createRepo();
    const secret = 'ghp_supersecretvalue123';
    const env = makeEnv(dir, {
      secrets: [secret, 'model-key-456'],
      baseEnv: {
        PATH: process.env.PATH,
        LANG: 'C.UTF-8',
        LC_ALL: 'C.UTF-8',
        GITHUB_REPOSITORY: 'octo/hello',
        GITHUB_TOKEN: secret,
        GEMINI_API_KEY: 'model-key-456',
        ACTIONS_RUNTIME_TOKEN: 'rt-1',
        PGPASSWORD: 'pg-password-1',
        MYSQL_PWD: 'mysql-password-1',
        REDIS_URL: 'redis://:redis-password-1@cache:6379',
        KUBE_CONFIG_DATA: Buffer.from('apiVersion: v1\nusers: [{token: kube-token-1}]').toString('base64'),
        INNOCENT_NAME: 'innocent-value-1',
        // An allow-listed name holding a secret is still left out.
        GITHUB_REF: `refs/heads/${secret}`,
      },
      passEnv: { NAMED_BY_WORKFLOW: 'passed-1' },
    });
    const out = await call(env, 'run_shell_command', { command: `env | sort; echo "leak: ${secret}"` });
    const names = [...out.forModel.matchAll(/^(?:Output: )?([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]);
    // bash sets PWD, SHLVL and _ itself; the tool and the sandbox set the pager, prompt and update switches.
    expect(names.sort()).toEqual(
      [
        'AGENT_ACTION',
        'GITHUB_REPOSITORY',
        'GIT_PAGER',
        'GIT_TERMINAL_PROMPT',
        'HOME',
        'LANG',
        'LC_ALL',
        'NAMED_BY_WORKFLOW',
        'NO_UPDATE_NOTIFIER',
        'PAGER',
        'PATH',
        'PWD',
        'SHLVL',
        '_',
        'npm_config_update_notifier',
      ].sort(),
    );
    for (const bad of [
      'pg-password-1',
      'mysql-password-1',
      'redis-password-1',
      'KUBE_CONFIG_DATA',
      'innocent-value-1',
      'model-key-456',
      secret,
    ])
      expect(out.forModel).not.toContain(bad);
    expect(out.forModel).toContain('NAMED_BY_WORKFLOW=passed-1');
    expect(out.forModel).toContain('leak: ***');
  });

  it('caps output keeping head and tail', async () => {
    const { dir } = createRepo();
    const out = await call(makeEnv(dir), 'run_shell_command', { command: 'echo FIRST; seq 1 100000; echo LAST' });
    expect(out.forModel).toContain('Output: FIRST\n1\n2\n');
    expect(out.forModel).toContain('100000\nLAST\nNote: output exceeded 32 KB;');
    expect(out.forModel).toMatch(/… \[\d+ bytes of output omitted\] …/);
    expect(out.forModel.length).toBeLessThan(MAX_SHELL_OUTPUT_BYTES + 1000);
    expect(out.forModel).toContain('Exit Code: 0');
  });

  it('streams progress lines', async () => {
    const { dir } = createRepo();
    const seen: string[] = [];
    const p = await prepare(makeEnv(dir, { secrets: ['hidden-value'] }), 'run_shell_command', {
      command: 'echo one; echo hidden-value',
    });
    await p.run({ signal: new AbortController().signal, onProgress: (l) => seen.push(l) });
    expect(seen.join('')).toBe('one\n***\n');
  });
});
