import type { PolicyEngine } from '../policy/types.js';
import type { FileDiff, PreparedCall, ToolEnv, ToolError, ToolKind } from '../tools/define-tool.js';
import { responseTextOf, type ValidationStreak } from './batch.js';
import { stoppedByHook, type CallHooks } from './call-hooks.js';
import { isSettled, move, type Call } from './call-state.js';
import type { ApprovalAnswer, ApprovalChannel, BatchOptions, SchedulerEmit } from './types.js';

/**
 * The record every step of a batch works on (admit.ts, execute.ts, resume.ts), and the one way a
 * call in it changes: `set`, which checks the move and emits what a face shows of it.
 */

/** Starts a timer that calls `fire` after ms unless cancelled first (the returned function). */
export type StartTimer = (ms: number, fire: () => void) => () => void;

/** The scheduler's parts, resolved once per scheduler (one run). */
export interface Parts {
  /** Validation and preparation (the policy readied for the call), and each tool's kind. */
  tools: {
    prepareCall(name: string, args: Record<string, unknown>, env: ToolEnv): Promise<PreparedCall>;
    kindOf(name: string): ToolKind | undefined;
  };
  policy: PolicyEngine;
  channel: ApprovalChannel;
  env: ToolEnv;
  hooks?: CallHooks;
  now: () => number;
  /** The abort rule's grace timer (an injected clock's in tests). */
  startTimer: StartTimer;
  /** How long a call may go on after the abort before it is abandoned. */
  abandonAfterMs: number;
  maxParallel: number;
  /** The total characters of one batch's responses. */
  budget: number;
  /** Lives as long as the scheduler; it travels in OpenBatch across a suspension. */
  streak: ValidationStreak;
}

/** One batch in flight: the calls as data, and the prepared calls (functions) kept beside them. */
export interface Work {
  /** The scheduler's parts this batch runs with. */
  parts: Parts;
  calls: Call[];
  prepared: Map<string, PreparedCall>;
  /** Calls that waited inside (sub-agents) and go on from where they stopped, with their answers. */
  resumeWith: Map<string, { saved: unknown; answers: ApprovalAnswer[] }>;
  opts: BatchOptions;
  emit: SchedulerEmit;
  fatal?: ToolError;
  /** A hook asked to stop the run: the rest of the batch is cancelled. */
  stopped?: string;
}

export const newWork = (w: Pick<Work, 'parts' | 'calls' | 'opts' | 'emit'>): Work => ({
  ...w,
  prepared: new Map(),
  resumeWith: new Map(),
});

/** The batch goes no further: the run was cancelled, a call failed fatally, or a hook stopped it. */
export const halted = (w: Work): boolean => w.opts.signal.aborted || !!w.fatal || !!w.stopped;

/** `next`, or a prepared call with the diff it would make (shown in its tool_state event, never stored). */
export function set(w: Work, i: number, change: Call | { next: Call; diff: FileDiff | undefined }): void {
  const { next, diff } = 'status' in change ? { next: change, diff: undefined } : change;
  w.calls[i] = move(w.calls[i], next);
  const title = 'title' in next ? next.title : undefined;
  const shown = next.status === 'prepared' ? { kind: next.kind, paths: next.paths, ...(diff ? { diff } : {}) } : {};
  w.emit({
    type: 'tool_state',
    id: next.base.id,
    name: next.base.name,
    status: next.status,
    ...(title ? { title } : {}),
    ...shown,
  });
  if (isSettled(next)) {
    const { text, isError } = responseTextOf(next);
    const error: ToolError | undefined =
      next.status === 'failed'
        ? next.error
        : next.status === 'denied' || next.status === 'cancelled'
          ? { code: next.status, message: text }
          : undefined;
    const forHuman = next.status === 'succeeded' ? next.forHuman : undefined;
    const mcp = w.prepared.get(next.base.id)?.mcp;
    w.emit({
      type: 'tool_result',
      id: next.base.id,
      name: next.base.name,
      ok: !isError,
      output: text,
      ...(error ? { error } : {}),
      ...(forHuman ? { forHuman } : {}),
      ...(mcp ? { mcp: { server: mcp.server, tool: mcp.tool } } : {}),
    });
  }
}

/** A call that has not settled is cancelled, saying why the batch stopped. */
export function cancel(w: Work, i: number): void {
  const c = w.calls[i];
  if (isSettled(c)) return;
  const reason = w.fatal
    ? `an earlier call failed fatally (${w.fatal.message}), so the run stops`
    : w.stopped !== undefined
      ? `not run: ${stoppedByHook(w.stopped)}`
      : 'the run was cancelled before it ran';
  set(w, i, { status: 'cancelled', base: c.base, reason });
}
