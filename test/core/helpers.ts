import type { Clock, LoopDeps } from '../../src/core/loop.js';
import type { LoopEvent } from '../../src/core/events.js';
import { createRunState, type RunState } from '../../src/core/run-state.js';
import { createGeminiClient } from '../../src/model/gemini.js';
import type { FunctionCall, Part } from '../../src/model/wire.js';
import type {
  ApprovalAnswer,
  BatchOptions,
  BatchResult,
  OpenBatch,
  PendingApproval,
  Scheduler,
  SchedulerEmit,
} from '../../src/scheduler/types.js';
import type { FakeGemini } from '../support/fake-gemini.js';

export const MODEL = 'gemini-2.5-flash';

/**
 * A clock whose sleeps return at once and move time forward; every requested wait is recorded.
 * Its timers (the run's deadline) fire when time passes their due time, by a sleep or advance().
 */
export function fakeClock(start = 1_000_000): Clock & { sleeps: number[]; advance(ms: number): void } {
  let t = start;
  const sleeps: number[] = [];
  const timers = new Set<{ due: number; fire: () => void }>();
  const pass = (ms: number) => {
    t += ms;
    for (const timer of [...timers].filter((x) => x.due <= t)) {
      timers.delete(timer);
      timer.fire();
    }
  };
  return {
    sleeps,
    now: () => t,
    advance: pass,
    sleep: async (ms, signal) => {
      if (signal.aborted) throw signal.reason;
      sleeps.push(ms);
      pass(ms);
    },
    setTimer: (ms, fire) => {
      const timer = { due: t + ms, fire };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
  };
}

interface OpenCall {
  call: FunctionCall;
  response?: Part;
}

/**
 * A scheduler that runs nothing real: each call answers `ran <name>` at once, calls whose name is in
 * `ask` wait for a human (the batch comes back pending with a plain-JSON open batch). It records
 * what it was given. Implements src/scheduler/types.ts's Scheduler.
 */
export function fakeScheduler(
  opts: { ask?: string[]; fatal?: string; onRun?: (calls: readonly FunctionCall[]) => void } = {},
) {
  const runs: Array<{ calls: FunctionCall[]; opts: BatchOptions }> = [];
  const resumes: Array<{ open: OpenBatch; answers: ApprovalAnswer[] }> = [];
  const respond = (call: FunctionCall, output: Record<string, unknown>): Part => ({
    functionResponse: { id: call.id, name: call.name, response: output },
  });
  const emitDone = (emit: SchedulerEmit, call: FunctionCall, ok: boolean, output: string) =>
    emit({ type: 'tool_result', id: call.id ?? '', name: call.name, ok, output });

  const scheduler: Scheduler = {
    async run(calls, batchOpts, emit): Promise<BatchResult> {
      runs.push({ calls: structuredClone([...calls]), opts: { ...batchOpts } });
      opts.onRun?.(calls);
      const open: OpenCall[] = [];
      const pending: PendingApproval[] = [];
      for (const call of calls) {
        emit({ type: 'tool_use', id: call.id ?? '', name: call.name, args: call.args ?? {} });
        if (opts.ask?.includes(call.name)) {
          open.push({ call });
          pending.push({
            id: call.id ?? '',
            name: call.name,
            args: call.args ?? {},
            title: `${call.name} ${JSON.stringify(call.args)}`,
            rule: null,
          });
          continue;
        }
        if (opts.fatal === call.name) {
          emitDone(emit, call, false, 'disk on fire');
          return {
            responses: [respond(call, { error: 'disk on fire' })],
            pending: [],
            fatal: { code: 'fatal', message: 'disk on fire' },
          };
        }
        emitDone(emit, call, true, `ran ${call.name}`);
        open.push({ call, response: respond(call, { output: `ran ${call.name}` }) });
      }
      if (pending.length) return { responses: [], pending, open: { version: 1, calls: open } };
      return { responses: open.map((o) => o.response!), pending: [] };
    },
    async resume({ open: openBatch, answers }, _opts, emit): Promise<BatchResult> {
      resumes.push({ open: structuredClone(openBatch), answers: [...answers] });
      const responses = (openBatch.calls as OpenCall[]).map((o) => {
        if (o.response) return o.response;
        const a = answers.find((x) => x.id === o.call.id);
        const ok = a?.kind === 'approve';
        emitDone(emit, o.call, ok, ok ? 'approved and ran' : 'denied');
        return respond(
          o.call,
          ok
            ? { output: `approved and ran ${o.call.name}` }
            : { error: `denied: ${a && a.kind === 'deny' ? a.reason : ''}` },
        );
      });
      return { responses, pending: [] };
    },
  };
  return { scheduler, runs, resumes };
}

export function newState(model = MODEL): RunState {
  return createRunState('sess-1', model, 'default');
}

export function makeDeps(
  fake: FakeGemini,
  scheduler: Scheduler,
  over: Partial<LoopDeps> = {},
): LoopDeps & { clock: ReturnType<typeof fakeClock> } {
  const clock = fakeClock();
  return {
    model: createGeminiClient({ apiKey: 'test-key', baseUrl: fake.baseUrl, model: MODEL, idleTimeoutMs: 2_000 }),
    scheduler,
    systemInstruction: 'You are a coding agent under test.',
    tools: () => [
      {
        name: 'read_file',
        description: 'Read a file',
        parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } } },
      },
      {
        name: 'run_shell_command',
        description: 'Run a command',
        parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' } } },
      },
    ],
    limits: {},
    signal: new AbortController().signal,
    mode: 'default',
    random: () => 0.5,
    clock,
    ...over,
  } as LoopDeps & { clock: ReturnType<typeof fakeClock> };
}

export function recorder() {
  const events: LoopEvent[] = [];
  return {
    events,
    emit: (e: LoopEvent) => void events.push(e),
    of: <T extends LoopEvent['type']>(type: T) =>
      events.filter((e): e is Extract<LoopEvent, { type: T }> => e.type === type),
  };
}

export const userText = (text: string) => ({ userMessage: { role: 'user' as const, parts: [{ text }] } });
