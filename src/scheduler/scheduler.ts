import type { FunctionCall } from '../model/wire.js';
import type { PolicyEngine } from '../policy/types.js';
import type { PreparedCall, ToolEnv, ToolKind } from '../tools/define-tool.js';
import { admit } from './admit.js';
import { buildResponses, emptyStreak } from './batch.js';
import type { CallHooks } from './call-hooks.js';
import { receiveCall, type Call } from './call-state.js';
import { runGroups } from './execute.js';
import { assertAnswersFit, parseOpenBatch, pendingOf, toOpenBatch } from './open-batch.js';
import { admitAnswered } from './resume.js';
import type {
  ApprovalAnswer,
  ApprovalChannel,
  BatchOptions,
  BatchResult,
  OpenBatch,
  Scheduler,
  SchedulerEmit,
} from './types.js';
import { cancel, halted, newWork, type Parts, type StartTimer, type Work } from './work.js';

export { TRUNCATED_REFUSAL } from './admit.js';

/**
 * The scheduler, assembled: admit.ts takes a new call through validation, hooks, policy and people;
 * execute.ts runs the allowed ones group by group under the one abort rule; resume.ts takes the
 * calls that waited through their answers. All of them work on one record, work.ts's `Work`.
 */

/**
 * What the scheduler needs from the tools layer: validation and preparation, and each tool's kind
 * (by `kindOf`, or through the registry's own `get`, so the registry can be passed as it is).
 */
export type ToolSource = {
  /** Validate and resolve; throws ToolFailure('not_found' | 'invalid_args' | ...) to refuse. */
  prepareCall(name: string, args: Record<string, unknown>, env: ToolEnv): Promise<PreparedCall>;
} & (
  | {
      /** undefined: no such tool (it runs alone, and prepareCall will refuse it). */ kindOf(
        name: string,
      ): ToolKind | undefined;
    }
  | { get(name: string): { kind: ToolKind } | undefined }
);

/** Adapts any ToolSource to the `kindOf` form. */
export function toolSourceFrom(tools: ToolSource): ToolSource & { kindOf(name: string): ToolKind | undefined } {
  const kindOf = 'kindOf' in tools ? (name: string) => tools.kindOf(name) : (name: string) => tools.get(name)?.kind;
  return { prepareCall: (name, args, env) => tools.prepareCall(name, args, env), kindOf };
}

export interface SchedulerOptions {
  tools: ToolSource;
  policy: PolicyEngine;
  channel: ApprovalChannel;
  env: ToolEnv;
  /** How many calls of one group may run at once. */
  maxParallel?: number;
  /** The total characters of one batch's responses; the largest are cut first. */
  outputBudgetChars?: number;
  now?: () => number;
  /** The abort rule's grace timer; tests pass their clock's. Default: a real timer. */
  startTimer?: StartTimer;
  /** How long a call may go on after the run is cancelled before it is abandoned. */
  abandonAfterMs?: number;
  /** settings.json hooks around each call (hooks/); absent: none run. */
  hooks?: CallHooks;
}

const DEFAULT_MAX_PARALLEL = 10;
const DEFAULT_OUTPUT_BUDGET_CHARS = 200_000;
/** Longer than a command's own SIGTERM-to-SIGKILL grace, so that a command normally ends first. */
const DEFAULT_ABANDON_AFTER_MS = 10_000;

/** A real timer; it holds the process open while a call is being stopped, which is what the run awaits. */
const realTimer: StartTimer = (ms, fire) => {
  const t = setTimeout(fire, ms);
  return () => clearTimeout(t);
};

export function createScheduler(o: SchedulerOptions): Scheduler {
  const p: Parts = {
    tools: toolSourceFrom(o.tools),
    policy: o.policy,
    channel: o.channel,
    env: o.env,
    ...(o.hooks && { hooks: o.hooks }),
    now: o.now ?? Date.now,
    startTimer: o.startTimer ?? realTimer,
    abandonAfterMs: o.abandonAfterMs ?? DEFAULT_ABANDON_AFTER_MS,
    maxParallel: Math.max(1, o.maxParallel ?? DEFAULT_MAX_PARALLEL),
    budget: o.outputBudgetChars ?? DEFAULT_OUTPUT_BUDGET_CHARS,
    streak: emptyStreak(),
  };

  function finish(w: Work): BatchResult {
    if (halted(w)) w.calls.forEach((_, i) => cancel(w, i));
    const pending = pendingOf(w.calls);
    if (pending.length > 0) return { responses: [], pending, open: toOpenBatch(w.calls, p.streak) };
    return {
      responses: buildResponses(w.calls, p.budget),
      pending: [],
      ...(w.fatal ? { fatal: w.fatal } : {}),
      ...(w.stopped !== undefined ? { stopped: w.stopped } : {}),
    };
  }

  return {
    async run(fcs: readonly FunctionCall[], opts: BatchOptions, emit: SchedulerEmit): Promise<BatchResult> {
      const w = newWork({ parts: p, calls: receiveAll(fcs), opts, emit });
      for (const c of w.calls) emit({ type: 'tool_use', id: c.base.id, name: c.base.name, args: c.base.args });
      await runGroups(
        w,
        w.calls.map((_, i) => i),
        (i) => admit(w, i),
      );
      return finish(w);
    },
    async resume(
      { open, answers }: { open: OpenBatch; answers: readonly ApprovalAnswer[] },
      opts: BatchOptions,
      emit: SchedulerEmit,
    ): Promise<BatchResult> {
      const saved = parseOpenBatch(open);
      const byId = assertAnswersFit(pendingOf(saved.calls), answers);
      p.streak = saved.validationStreak;
      const w = newWork({ parts: p, calls: saved.calls, opts, emit });
      const waiting = w.calls.flatMap((c, i) => (c.status === 'awaiting_approval' ? [i] : []));
      await runGroups(w, waiting, (i) => admitAnswered(w, i, [...byId.values()]));
      return finish(w);
    },
  };
}

/** Calls as the model sent them; a missing or repeated id gets a unique one of ours. */
function receiveAll(fcs: readonly FunctionCall[]): Call[] {
  const taken = new Set<string>();
  return fcs.map((fc, order) => {
    const call = receiveCall(fc, order);
    if (taken.has(call.base.id)) call.base.id = `${call.base.id}#${order}`;
    taken.add(call.base.id);
    return call;
  });
}
