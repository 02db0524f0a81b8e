/**
 * settings.json hooks around tool calls, for real: hook scripts from test/fixtures/hooks run in
 * bubblewrap through the hook system, the real scheduler, the real policy engine and the real
 * run_shell_command. What each test guards against is in its name.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { parseHooks } from '../../src/hooks/config.js';
import { createHookSystem, type HookSystem } from '../../src/hooks/hook-system.js';
import type { HookRunEvent } from '../../src/hooks/types.js';
import { createPolicyEngine, placeRules } from '../../src/policy/engine.js';
import { parsePolicyToml } from '../../src/policy/load-toml.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { createDeferChannel } from '../../src/scheduler/channels.js';
import { createScheduler } from '../../src/scheduler/scheduler.js';
import type { BatchResult, OpenBatch } from '../../src/scheduler/types.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import type { StartTimer } from '../../src/tools/process-group.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { REPO_ROOT } from '../support/e2e-runner.js';
import { makeTempDir } from '../support/git-repo.js';
import { createManualTimer } from '../support/manual-timer.js';
import { makeEnv } from '../tools/helpers.js';

const POLICY = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["echo", "touch"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "curl"
decision = "deny"
priority = 200
denyMessage = "No network from commands."

[[rule]]
toolName = "write_file"
decision = "ask_user"
priority = 100
`;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = createSandbox({ mode: 'required', hostEnv: {} });
  const s = await sandbox.status();
  if (s.kind !== 'sandboxed')
    throw new Error(`bubblewrap is needed for these tests (.ci/run installs it): ${JSON.stringify(s)}`);
});

/** A workspace with the fixture scripts in .gemini/hooks/ and a scheduler whose hooks come from `hooks`. */
function setup(hooks: Record<string, unknown>, configDir?: string, startTimer?: StartTimer) {
  const ws = makeTempDir('agent-action-hooks-');
  mkdirSync(join(ws, '.gemini/hooks'), { recursive: true });
  for (const f of readdirSync(join(REPO_ROOT, 'test/fixtures/hooks')))
    copyFileSync(join(REPO_ROOT, 'test/fixtures/hooks', f), join(ws, '.gemini/hooks', f));
  const { groups, problems } = parseHooks(hooks, 'test settings');
  expect(problems).toEqual([]);
  const system = createHookSystem({
    groups,
    sandbox,
    workspace: ws,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    graceMs: 200,
    ...(configDir && { configDir }),
    ...(startTimer && { startTimer }),
  });
  const runs: HookRunEvent[] = [];
  system.attach('session-1', (e) => runs.push(e));
  const parsed = parsePolicyToml(POLICY, 'test.toml');
  const policy = createPolicyEngine(placeRules([{ tier: 'workspace', rules: parsed.rules }]), 'action', {
    workspace: ws,
  });
  const scheduler = createScheduler({
    tools: createToolRegistry(createDefaultTools()),
    policy,
    channel: createDeferChannel(),
    env: makeEnv(ws, { sandbox, shellGraceMs: 200 }),
    hooks: system.calls,
  });
  return { ws, system, runs, scheduler };
}

describe('where hook scripts come from', () => {
  it('with a trusted .gemini/ (the Action’s commit snapshot), a hook runs the committed script, not the work tree’s', async () => {
    const trusted = makeTempDir('agent-action-trusted-gemini-');
    mkdirSync(join(trusted, 'hooks'));
    copyFileSync(join(REPO_ROOT, 'test/fixtures/hooks/context.mjs'), join(trusted, 'hooks/context.mjs'));
    const HEAD = "import { writeFileSync } from 'node:fs';\nwriteFileSync('pwned.txt', 'the head ran');\n";
    const t = setup({ AfterTool: [{ hooks: [hook('context.mjs')] }] }, trusted);
    // The work tree's copy (a pull request's head, say) was changed to do something else.
    writeFileSync(join(t.ws, '.gemini/hooks/context.mjs'), HEAD);
    const r = await t.scheduler.run([shell('c1', 'echo hi')], opts(), () => {});
    expect(String(responses(r)[0].output)).toContain(
      '<hook_context>AfterTool hook checked run_shell_command &lt;ok&gt;</hook_context>',
    );
    expect(existsSync(join(t.ws, 'pwned.txt'))).toBe(false);
    // Control: without the trusted copy, the same setup runs the work tree's script.
    const control = setup({ AfterTool: [{ hooks: [hook('context.mjs')] }] });
    writeFileSync(join(control.ws, '.gemini/hooks/context.mjs'), HEAD);
    await control.scheduler.run([shell('c1', 'echo hi')], opts(), () => {});
    expect(readFileSync(join(control.ws, 'pwned.txt'), 'utf8')).toBe('the head ran');
  });
});

const opts = () => ({ mode: 'default' as const, signal: new AbortController().signal });
const shell = (id: string, command: string) => ({ id, name: 'run_shell_command', args: { command } });
const responses = (r: BatchResult) => r.responses.map((p) => p.functionResponse!.response);
const hook = (script: string, extra: Record<string, unknown> = {}) => ({
  type: 'command',
  command: script.endsWith('.mjs')
    ? `node $GEMINI_PROJECT_DIR/.gemini/hooks/${script}`
    : `$GEMINI_PROJECT_DIR/.gemini/hooks/${script}`,
  ...extra,
});
const logOf = (ws: string) =>
  existsSync(join(ws, 'hook-log.jsonl'))
    ? readFileSync(join(ws, 'hook-log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

describe('BeforeTool', () => {
  it('exit 2 blocks the call: the model gets the hook’s stderr as the reason, and the command never runs', async () => {
    const t = setup({
      BeforeTool: [{ matcher: 'run_shell_command', hooks: [hook('block.sh', { name: 'no-network' })] }],
    });
    const r = await t.scheduler.run([shell('c1', 'touch ran.txt')], opts(), () => {});
    expect(responses(r)).toEqual([
      { error: "Tool execution blocked: blocked by the team's hook: no network tools in CI" },
    ]);
    expect(existsSync(join(t.ws, 'ran.txt'))).toBe(false);
    expect(t.runs).toEqual([
      expect.objectContaining({ event: 'BeforeTool', name: 'no-network', outcome: 'blocked', exitCode: 2 }),
    ]);
  });

  it('a matcher that does not fit the tool leaves the call alone', async () => {
    const t = setup({ BeforeTool: [{ matcher: '^write_file$', hooks: [hook('block.sh')] }] });
    const r = await t.scheduler.run([shell('c1', 'touch ran.txt')], opts(), () => {});
    expect(responses(r)[0]).toHaveProperty('output');
    expect(existsSync(join(t.ws, 'ran.txt'))).toBe(true);
    expect(t.runs).toEqual([]);
  });

  it('a rewrite to a command policy denies is denied: a hook never gets a call past policy', async () => {
    const t = setup({ BeforeTool: [{ matcher: 'run_shell_command', hooks: [hook('rewrite.mjs')] }] });
    const r = await t.scheduler.run([shell('c1', 'echo harmless')], opts(), () => {});
    const [res] = responses(r);
    expect(res).toEqual({ error: expect.stringContaining('policy denied it') });
    expect(res.error).toContain('No network from commands.');
    expect(t.runs[0]).toMatchObject({ event: 'BeforeTool', outcome: 'ok' });
  });

  it('a rewrite of a denied call to an allowed one is still denied (the stricter verdict stands)', async () => {
    const t = setup({
      BeforeTool: [
        {
          hooks: [
            { type: 'command', command: `echo '{"hookSpecificOutput":{"tool_input":{"command":"touch ok.txt"}}}'` },
          ],
        },
      ],
    });
    const r = await t.scheduler.run([shell('c1', 'curl https://example.com')], opts(), () => {});
    expect(responses(r)[0]).toEqual({ error: expect.stringContaining('No network from commands.') });
    expect(existsSync(join(t.ws, 'ok.txt'))).toBe(false);
  });

  it('an allowed rewrite runs the rewritten call, and the model is told its input was changed', async () => {
    const t = setup({
      BeforeTool: [
        {
          hooks: [
            {
              type: 'command',
              command: `echo '{"hookSpecificOutput":{"tool_input":{"command":"touch rewritten.txt"}}}'`,
            },
          ],
        },
      ],
    });
    const r = await t.scheduler.run([shell('c1', 'touch original.txt')], opts(), () => {});
    expect(existsSync(join(t.ws, 'rewritten.txt'))).toBe(true);
    expect(existsSync(join(t.ws, 'original.txt'))).toBe(false);
    expect(String(responses(r)[0].output)).toContain(
      '[System] Tool input parameters (command) were modified by a hook before execution.',
    );
  });

  it('a hook that hangs is stopped at its timeout; the call goes on and the hook’s processes are gone', async () => {
    const timer = createManualTimer();
    const t = setup(
      { BeforeTool: [{ hooks: [hook('hang.sh', { name: 'slowpoke', timeout: 300 })] }] },
      undefined,
      timer.start,
    );
    const running = t.scheduler.run([shell('c1', 'touch ran.txt')], opts(), () => {});
    // The timeout fires once the hook is running (an event), not after 300 ms of wall clock.
    await timer.until(300);
    await vi.waitFor(
      () => expect(hostProcessesWith('456.789').filter((p) => p.includes(': sleep 456.789'))).toHaveLength(1),
      { timeout: 20_000, interval: 20 },
    );
    timer.fire(300);
    const r = await running;
    expect(responses(r)[0]).toHaveProperty('output');
    expect(existsSync(join(t.ws, 'ran.txt'))).toBe(true);
    expect(t.runs).toEqual([
      expect.objectContaining({
        name: 'slowpoke',
        outcome: 'timeout',
        message: 'timed out after 300 ms and was stopped',
      }),
    ]);
    expect(hostProcessesWith('456.789')).toEqual([]);
  });

  it('a hook that prints text instead of JSON: a message, and the call goes on', async () => {
    const t = setup({ BeforeTool: [{ hooks: [hook('not-json.sh')] }] });
    const r = await t.scheduler.run([shell('c1', 'touch ran.txt')], opts(), () => {});
    expect(existsSync(join(t.ws, 'ran.txt'))).toBe(true);
    expect(responses(r)[0]).toHaveProperty('output');
    expect(t.runs[0]).toMatchObject({
      outcome: 'ok',
      exitCode: 0,
      message: 'printed text that is not JSON (taken as a message): all good, nothing to see here',
    });
  });

  it('exit codes other than 0 and 2 are warnings: the call goes on', async () => {
    const t = setup({
      BeforeTool: [{ hooks: [{ type: 'command', name: 'broken', command: 'echo oops >&2; exit 7' }] }],
    });
    await t.scheduler.run([shell('c1', 'touch ran.txt')], opts(), () => {});
    expect(existsSync(join(t.ws, 'ran.txt'))).toBe(true);
    expect(t.runs[0]).toMatchObject({
      name: 'broken',
      outcome: 'warning',
      exitCode: 7,
      message: 'exited with code 7: oops',
    });
  });

  it('gets Gemini CLI’s input fields on stdin, runs in the workspace with GEMINI_PROJECT_DIR, and sees no credential', async () => {
    const t = setup({ BeforeTool: [{ hooks: [hook('log.mjs')] }] });
    await t.scheduler.run([shell('c1', 'echo hi')], opts(), () => {});
    const [entry] = logOf(t.ws);
    expect(entry).toMatchObject({
      session_id: 'session-1',
      transcript_path: '',
      cwd: t.ws,
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'echo hi' },
      env_project_dir: t.ws,
      env_token: null,
    });
    expect(Date.parse(String(entry!.timestamp))).not.toBeNaN();
  });
});

describe('AfterTool', () => {
  it('adds context to the result, fenced and escaped', async () => {
    const t = setup({ AfterTool: [{ matcher: 'run_shell_command', hooks: [hook('context.mjs')] }] });
    const r = await t.scheduler.run([shell('c1', 'echo hi')], opts(), () => {});
    expect(String(responses(r)[0].output)).toMatch(
      /Exit Code: 0\n\n<hook_context>AfterTool hook checked run_shell_command &lt;ok&gt;<\/hook_context>$/,
    );
  });

  it('exit 2 replaces the result with the reason', async () => {
    const t = setup({ AfterTool: [{ hooks: [hook('block.sh')] }] });
    const r = await t.scheduler.run([shell('c1', 'echo secret-output')], opts(), () => {});
    expect(responses(r)).toEqual([
      { error: "Tool result blocked: blocked by the team's hook: no network tools in CI" },
    ]);
  });

  it('continue: false ends the run after this batch; later calls are not run', async () => {
    const t = setup({
      AfterTool: [
        { hooks: [{ type: 'command', command: `echo '{"continue":false,"stopReason":"enough for today"}'` }] },
      ],
    });
    // The model says the second call waits for the first (independent calls would run together).
    const second = { ...shell('c2', 'touch two.txt'), args: { command: 'touch two.txt', wait_for_previous: true } };
    const r = await t.scheduler.run([shell('c1', 'touch one.txt'), second], opts(), () => {});
    expect(r.stopped).toBe('enough for today');
    expect(existsSync(join(t.ws, 'one.txt'))).toBe(true);
    expect(existsSync(join(t.ws, 'two.txt'))).toBe(false);
    expect(t.system.stopReason()).toBe('enough for today');
  });
});

describe('Notification and suspend/resume', () => {
  it('a call that waits for a person fires Notification; resumed, BeforeTool does not run again and AfterTool runs', async () => {
    const t = setup({
      BeforeTool: [{ hooks: [hook('log.mjs')] }],
      AfterTool: [{ hooks: [hook('log.mjs')] }],
      Notification: [{ hooks: [hook('log.mjs')] }],
    });
    const first = await t.scheduler.run(
      [{ id: 'w1', name: 'write_file', args: { file_path: 'notes.md', content: 'hi\n' } }],
      opts(),
      () => {},
    );
    expect(first.pending.map((p) => p.id)).toEqual(['w1']);
    expect(logOf(t.ws).map((e) => e.hook_event_name)).toEqual(['BeforeTool', 'Notification']);
    expect(logOf(t.ws)[1]).toMatchObject({
      notification_type: 'ToolPermission',
      message: 'Tool create notes.md requires editing',
      details: { type: 'edit', tool_name: 'write_file', filePath: 'notes.md' },
    });

    // Another process resumes: a fresh hook system and scheduler, the saved batch as JSON.
    const saved = JSON.parse(JSON.stringify(first.open)) as OpenBatch;
    const again = setupIn(t.ws, {
      BeforeTool: [{ hooks: [hook('log.mjs')] }],
      AfterTool: [{ hooks: [hook('log.mjs')] }],
    });
    const done = await again.scheduler.resume(
      { open: saved, answers: [{ id: 'w1', kind: 'approve' }] },
      opts(),
      () => {},
    );
    expect(responses(done)[0]).toHaveProperty('output');
    expect(readFileSync(join(t.ws, 'notes.md'), 'utf8')).toBe('hi\n');
    expect(logOf(t.ws).map((e) => e.hook_event_name)).toEqual(['BeforeTool', 'Notification', 'AfterTool']);
  });

  it('a rewritten waiting call is saved rewritten: the person approves, and the resumed run executes, what the hook made', async () => {
    const rewrite = {
      hooks: [{ type: 'command', command: `echo '{"hookSpecificOutput":{"tool_input":{"content":"rewritten\\n"}}}'` }],
    };
    const t = setup({ BeforeTool: [rewrite] });
    const first = await t.scheduler.run(
      [{ id: 'w1', name: 'write_file', args: { file_path: 'notes.md', content: 'original\n' } }],
      opts(),
      () => {},
    );
    expect(first.pending[0]!.args).toEqual({ file_path: 'notes.md', content: 'rewritten\n' });
    const again = setupIn(t.ws, { BeforeTool: [{ hooks: [hook('block.sh')] }] });
    await again.scheduler.resume(
      { open: JSON.parse(JSON.stringify(first.open)) as OpenBatch, answers: [{ id: 'w1', kind: 'approve' }] },
      opts(),
      () => {},
    );
    // The resumed run's BeforeTool (which would block) did not run: the approved call ran.
    expect(readFileSync(join(t.ws, 'notes.md'), 'utf8')).toBe('rewritten\n');
    expect(again.runs).toEqual([]);
  });
});

/** A second scheduler and hook system over the same workspace (the resumed run). */
function setupIn(ws: string, hooks: Record<string, unknown>) {
  const { groups } = parseHooks(hooks, 'test settings');
  const system: HookSystem = createHookSystem({
    groups,
    sandbox,
    workspace: ws,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    graceMs: 200,
  });
  const runs: HookRunEvent[] = [];
  system.attach('session-1', (e) => runs.push(e));
  const parsed = parsePolicyToml(POLICY, 'test.toml');
  const policy = createPolicyEngine(placeRules([{ tier: 'workspace', rules: parsed.rules }]), 'action', {
    workspace: ws,
  });
  const scheduler = createScheduler({
    tools: createToolRegistry(createDefaultTools()),
    policy,
    channel: createDeferChannel(),
    env: makeEnv(ws, { sandbox }),
    hooks: system.calls,
  });
  return { scheduler, runs };
}

function hostProcessesWith(needle: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(needle) && !cmd.includes('vitest')) out.push(`${pid}: ${cmd}`);
    } catch {
      // gone
    }
  }
  return out;
}
