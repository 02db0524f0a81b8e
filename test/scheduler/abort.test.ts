/**
 * The one abort rule, through the real scheduler: a cancelled call settles when its tool's run
 * settles (a command once its processes are gone), and a tool that ignores the signal is abandoned
 * after a grace period on the scheduler's (injected) timer. Before the rule, the scheduler raced
 * every run against the signal and settled the call `cancelled` while its command still ran.
 */
import { existsSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import { createScheduler } from '../../src/scheduler/scheduler.js';
import type { SchedulerEvent } from '../../src/scheduler/types.js';
import { defineTool, type Tool } from '../../src/tools/define-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { runShellCommandTool } from '../../src/tools/builtin/run-shell-command.js';
import { makeTempDir } from '../support/git-repo.js';
import { batchOpts, createTablePolicy, envFor } from './support.js';

/** Resolves once `path` exists, on the folder's change events (no polling, no clock). */
function fileAppears(path: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!existsSync(path)) return;
      watcher.close();
      resolve();
    };
    const watcher = watch(join(path, '..'), check);
    check();
  });
}

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Timers the test fires itself: the scheduler's grace timer is the only one it starts. */
function manualTimers() {
  const started: { ms: number; fire: () => void; cancelled: boolean }[] = [];
  const startTimer = (ms: number, fire: () => void) => {
    const t = { ms, fire, cancelled: false };
    started.push(t);
    return () => void (t.cancelled = true);
  };
  return { started, startTimer };
}

const never = () => () => undefined;

describe('a cancelled call', () => {
  it('settles only once its command is gone, when the command traps SIGTERM for a while', async () => {
    const root = makeTempDir('sched-abort-');
    const timers = manualTimers();
    const scheduler = createScheduler({
      tools: createToolRegistry([runShellCommandTool] as never),
      policy: createTablePolicy({ run_shell_command: 'allow' }),
      channel: { decide: async () => 'defer' },
      // No SIGKILL and no timeout: only the gate ends the command.
      env: { ...envFor(root), sandbox: createSandbox({ mode: 'off', hostEnv: {} }), shellTimer: never },
      startTimer: timers.startTimer,
    });
    // On SIGTERM the shell notes it, then waits for the gate before it exits.
    const command = `echo $$ > pid; trap 'touch term; while [ ! -e gate ]; do sleep 0.02; done; exit 0' TERM; touch ready; while :; do sleep 0.05; done`;
    const ac = new AbortController();
    const results: { status: string; alive: boolean }[] = [];
    let pid = 0;
    const emit = (e: SchedulerEvent) => {
      if (e.type === 'tool_result') results.push({ status: e.error?.code ?? 'ok', alive: pidAlive(pid) });
    };
    const batch = scheduler.run(
      [{ id: 's', name: 'run_shell_command', args: { command } }],
      batchOpts({ signal: ac.signal }),
      emit,
    );
    await fileAppears(join(root, 'ready'));
    pid = Number(readFileSync(join(root, 'pid'), 'utf8'));
    ac.abort();
    await fileAppears(join(root, 'term'));
    // The command got SIGTERM and is still running its trap: the call has not settled.
    expect(pidAlive(pid)).toBe(true);
    expect(results).toEqual([]);
    writeFileSync(join(root, 'gate'), '');
    const r = await batch;
    expect(results).toEqual([{ status: 'cancelled', alive: false }]);
    expect(r.responses[0]!.functionResponse!.response).toEqual({ error: expect.stringContaining('was cancelled') });
    // It settled on its own: the grace timer started at the abort was stopped, never fired.
    expect(timers.started.map((t) => t.cancelled)).toEqual([true]);
  });

  it('that ignores the signal settles when its run does, not at the abort', async () => {
    const root = makeTempDir('sched-abort-');
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let sawAbort = false;
    const gated = defineTool({
      name: 'gated',
      kind: 'read',
      description: 'Waits for the test, whatever the signal says.',
      params: Type.Object({}, { additionalProperties: false }),
      prepare: () => ({
        title: 'gated',
        paths: [],
        policyArgs: {},
        run: async ({ signal }) => {
          await gate;
          sawAbort = signal.aborted;
          return { forModel: 'stopped late', error: { code: 'cancelled', message: 'stopped once the gate opened' } };
        },
      }),
    });
    const timers = manualTimers();
    const scheduler = createScheduler({
      tools: createToolRegistry([gated as unknown as Tool]),
      policy: createTablePolicy({ gated: 'allow' }),
      channel: { decide: async () => 'defer' },
      env: envFor(root),
      startTimer: timers.startTimer,
    });
    const ac = new AbortController();
    const states: string[] = [];
    let executing!: () => void;
    const started = new Promise<void>((r) => (executing = r));
    const batch = scheduler.run([{ id: 'g', name: 'gated', args: {} }], batchOpts({ signal: ac.signal }), (e) => {
      if (e.type === 'tool_state') states.push(e.status);
      if (e.type === 'tool_state' && e.status === 'executing') executing();
    });
    await started;
    ac.abort();
    // Whatever the abort let run has run by the next macrotask: the call still executes.
    await new Promise((r) => setImmediate(r));
    expect(states.at(-1)).toBe('executing');
    open();
    const r = await batch;
    expect(sawAbort).toBe(true);
    expect(states.at(-1)).toBe('cancelled');
    expect(r.responses[0]!.functionResponse!.response).toEqual({
      error: 'gated was cancelled: stopped once the gate opened',
    });
  });

  it('whose tool never settles is abandoned at the grace period, on the injected timer', async () => {
    const root = makeTempDir('sched-abort-');
    const hang = defineTool({
      name: 'hang',
      kind: 'read',
      description: 'Waits forever and ignores its signal.',
      params: Type.Object({}, { additionalProperties: false }),
      prepare: () => ({ title: 'hang', paths: [], policyArgs: {}, run: () => new Promise(() => undefined) }),
    });
    const timers = manualTimers();
    const scheduler = createScheduler({
      tools: createToolRegistry([hang as unknown as Tool]),
      policy: createTablePolicy({ hang: 'allow' }),
      channel: { decide: async () => 'defer' },
      env: envFor(root),
      startTimer: timers.startTimer,
      abandonAfterMs: 7_000,
    });
    const ac = new AbortController();
    const states: string[] = [];
    let executing!: () => void;
    const started = new Promise<void>((r) => (executing = r));
    const batch = scheduler.run([{ id: 'h', name: 'hang', args: {} }], batchOpts({ signal: ac.signal }), (e) => {
      if (e.type === 'tool_state') states.push(e.status);
      if (e.type === 'tool_state' && e.status === 'executing') executing();
    });
    await started;
    expect(timers.started).toEqual([]);
    ac.abort();
    await new Promise((r) => setImmediate(r));
    expect(states.at(-1)).toBe('executing');
    expect(timers.started.map((t) => t.ms)).toEqual([7_000]);
    timers.started[0]!.fire();
    const r = await batch;
    expect(states.at(-1)).toBe('cancelled');
    expect(r.responses[0]!.functionResponse!.response).toEqual({
      error: expect.stringMatching(
        /^hang was cancelled: the run was cancelled, and hang did not stop within 7 s of it, so it was abandoned/,
      ),
    });
  });
});
