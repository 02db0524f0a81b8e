import { AgentError } from '../common/errors.js';
import type { FunctionCall } from '../model/wire.js';
import type { PolicyEngine } from '../policy/types.js';
import { ToolFailure, type FileDiff, type PreparedCall, type ToolEnv, type ToolError, type ToolKind } from '../tools/define-tool.js';
import { raceAbort } from '../tools/tool-output.js';
import { buildResponses, emptyStreak, groupCalls, nextStreak, responseTextOf, runLimited, STREAK_LIMIT, streakNote, toolErrorOf, type ValidationStreak } from './batch.js';
import { blockedByHook, decideCall, policyQueryOf, stoppedByHook, type CallHooks } from './call-hooks.js';
import { isSettled, move, receiveCall, type Call, type CallBase, type CallOf } from './call-state.js';
import { answersInside, assertAnswersFit, nestedId, parseOpenBatch, pendingOf, toOpenBatch } from './open-batch.js';
import {
  isSuspendable,
  type ApprovalAnswer,
  type ApprovalChannel,
  type BatchOptions,
  type BatchResult,
  type OpenBatch,
  type PendingApproval,
  type Scheduler,
  type SchedulerEmit,
  type SuspendableRun,
} from './types.js';

/**
 * What the scheduler needs from the tools layer: validation and preparation, and each tool's kind
 * (by `kindOf`, or through the registry's own `get`, so the registry can be passed as it is).
 */
export type ToolSource = {
  /** Validate and resolve; throws ToolFailure('not_found' | 'invalid_args' | ...) to refuse. */
  prepareCall(name: string, args: Record<string, unknown>, env: ToolEnv): Promise<PreparedCall>;
} & ({ /** undefined: no such tool (it runs alone, and prepareCall will refuse it). */ kindOf(name: string): ToolKind | undefined } | { get(name: string): { kind: ToolKind } | undefined });

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
  /** settings.json hooks around each call (hooks/); absent: none run. */
  hooks?: CallHooks;
}

const DEFAULT_MAX_PARALLEL = 10;
const DEFAULT_OUTPUT_BUDGET_CHARS = 200_000;

export const TRUNCATED_REFUSAL =
  'Not run: your previous response was cut off (it hit the output token limit), so the arguments of this ' +
  'call may be incomplete. Nothing was changed. Send the call again in a shorter response, e.g. split a large edit into smaller ones.';

/** One batch in flight: the calls as data, and the prepared calls (functions) kept beside them. */
interface Work {
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

export function createScheduler(o: SchedulerOptions): Scheduler {
  const maxParallel = Math.max(1, o.maxParallel ?? DEFAULT_MAX_PARALLEL);
  const budget = o.outputBudgetChars ?? DEFAULT_OUTPUT_BUDGET_CHARS;
  const now = o.now ?? Date.now;
  const tools = toolSourceFrom(o.tools);
  // Lives as long as the scheduler (one run); it travels in OpenBatch across a suspension.
  let streak: ValidationStreak = emptyStreak();

  /** `next`, or a prepared call with the diff it would make (shown in its tool_state event, never stored). */
  function set(w: Work, i: number, change: Call | { next: Call; diff: FileDiff | undefined }): void {
    const { next, diff } = 'status' in change ? { next: change, diff: undefined } : change;
    w.calls[i] = move(w.calls[i], next);
    const title = 'title' in next ? next.title : undefined;
    const shown = next.status === 'prepared' ? { kind: next.kind, paths: next.paths, ...(diff ? { diff } : {}) } : {};
    w.emit({ type: 'tool_state', id: next.base.id, name: next.base.name, status: next.status, ...(title ? { title } : {}), ...shown });
    if (isSettled(next)) {
      const { text, isError } = responseTextOf(next);
      const error: ToolError | undefined = next.status === 'failed' ? next.error : next.status === 'denied' || next.status === 'cancelled' ? { code: next.status, message: text } : undefined;
      const forHuman = next.status === 'succeeded' ? next.forHuman : undefined;
      w.emit({ type: 'tool_result', id: next.base.id, name: next.base.name, ok: !isError, output: text, ...(error ? { error } : {}), ...(forHuman ? { forHuman } : {}) });
    }
  }

  const kindAt = (w: Work, i: number) => tools.kindOf(w.calls[i].base.name);

  /** Truncation, validation, policy and (maybe) a human, for one call, in the model's order. */
  async function admit(w: Work, i: number): Promise<void> {
    let { base } = w.calls[i];
    const kind = kindAt(w, i);
    if (w.opts.truncated && (kind === 'edit' || kind === 'execute')) {
      return set(w, i, { status: 'denied', base, rule: null, reason: TRUNCATED_REFUSAL });
    }
    set(w, i, { status: 'validating', base });
    let prepared: PreparedCall;
    try {
      if (base.waitForPrevious === 'invalid') throw new ToolFailure('invalid_args', `invalid arguments for ${base.name}: /wait_for_previous must be boolean`);
      prepared = await tools.prepareCall(base.name, base.args, o.env);
    } catch (e) {
      const error = toolErrorOf(e);
      streak = nextStreak(streak, { name: base.name, message: error.message });
      const message = streak.count >= STREAK_LIMIT ? `${error.message}\n${streakNote(streak.count)}` : error.message;
      return set(w, i, { status: 'failed', base, error: { code: error.code, message } });
    }
    streak = nextStreak(streak, undefined);
    const queries = [policyQueryOf(base.name, base.args, prepared)];
    let hookAsks: string | undefined;
    if (o.hooks) {
      const hooked = await beforeToolHooks(w, i, prepared);
      if (!hooked) return;
      ({ base, prepared, ask: hookAsks } = hooked);
      queries.push(policyQueryOf(base.name, base.args, prepared));
    }
    w.prepared.set(base.id, prepared);
    set(w, i, { next: { status: 'prepared', base, title: prepared.title, paths: [...prepared.paths], kind: kind ?? 'other' }, diff: prepared.diff });

    // With a hook's rewrite, policy decides on both calls and the stricter verdict stands.
    let verdict = await decideCall(o.policy, queries, w.opts);
    if (hookAsks !== undefined && verdict.decision === 'allow') verdict = { decision: 'ask_user', rule: null, reason: `a BeforeTool hook asked for confirmation${hookAsks ? `: ${hookAsks}` : ''}` };
    if (verdict.decision === 'deny') {
      const why = verdict.rule?.denyMessage || verdict.reason;
      return set(w, i, { status: 'denied', base, rule: verdict.rule, reason: `${base.name} was not run: policy denied it. ${why}` });
    }
    if (verdict.decision === 'allow' && !prepared.question) {
      return set(w, i, { status: 'scheduled', base, title: prepared.title, allowedBy: { by: 'policy', rule: verdict.rule } });
    }
    const pending: PendingApproval = { id: base.id, name: base.name, args: base.args, title: prepared.title, rule: verdict.decision === 'ask_user' ? verdict.rule : null };
    if (prepared.preview !== undefined) pending.preview = prepared.preview;
    if (prepared.question) pending.question = prepared.question;
    set(w, i, { status: 'awaiting_approval', base, title: prepared.title, pending });
    await o.hooks?.notify(pending, { id: base.id, name: base.name, args: base.args, ...(prepared.mcp && { mcp: prepared.mcp }) });
    const answer = await o.channel.decide(pending);
    if (answer === 'defer') return;
    assertAnswersFit([pending], [answer]);
    await applyAnswer(w, i, answer);
  }

  /**
   * BeforeTool hooks for a validated call: blocked or stopped settles it (undefined); a rewrite is
   * validated again and becomes the call's arguments (saved with a waiting call, so a resumed run
   * runs what was asked about without running the hooks again).
   */
  async function beforeToolHooks(w: Work, i: number, prepared: PreparedCall): Promise<{ base: CallBase; prepared: PreparedCall; ask?: string } | undefined> {
    const { base } = w.calls[i];
    const r = await o.hooks!.beforeTool({ id: base.id, name: base.name, args: base.args, ...(prepared.mcp && { mcp: prepared.mcp }) }, w.opts.signal);
    if (r.kind === 'block') return void set(w, i, { status: 'failed', base, error: { code: 'denied', message: blockedByHook(r.reason) } });
    if (r.kind === 'stop') {
      w.stopped ??= r.reason;
      return void set(w, i, { status: 'failed', base, error: { code: 'cancelled', message: stoppedByHook(r.reason) } });
    }
    const ask = r.ask !== undefined ? { ask: r.ask } : {};
    if (!r.args) return { base, prepared, ...ask };
    const rewritten: CallBase = { ...base, args: r.args };
    try {
      return { base: rewritten, prepared: await tools.prepareCall(base.name, r.args, o.env), ...ask };
    } catch (e) {
      const error = toolErrorOf(e);
      return void set(w, i, { status: 'failed', base: rewritten, error: { code: error.code, message: `Tool parameter modification by hook failed validation: ${error.message}` } });
    }
  }

  /** A human's answer to a waiting call whose prepared call is in memory. */
  async function applyAnswer(w: Work, i: number, answer: ApprovalAnswer): Promise<void> {
    const call = w.calls[i] as CallOf<'awaiting_approval'>;
    const { base, pending } = call;
    if (answer.kind === 'deny') {
      const reason = answer.reason?.trim();
      const text = pending.question ? `No answer to your question${reason ? `: ${reason}` : '.'}` : `${base.name} was not run: it was denied${reason ? `. Reason: ${reason}` : '.'}`;
      return set(w, i, { status: 'denied', base, rule: pending.rule, reason: text });
    }
    if (answer.kind === 'answer') {
      return set(w, i, { status: 'succeeded', base, output: answer.text.trim() || '(the user sent an empty answer)', forHuman: 'answered', ms: 0 });
    }
    if (answer.always) {
      const prepared = w.prepared.get(base.id);
      await o.policy.allowAlways(prepared ? policyQueryOf(base.name, base.args, prepared) : { toolName: base.name, args: base.args }, w.opts.mode);
    }
    set(w, i, { status: 'scheduled', base, title: call.title, allowedBy: { by: 'approval', always: answer.always === true } });
  }

  async function execute(w: Work, i: number): Promise<void> {
    const call = w.calls[i] as CallOf<'scheduled'>;
    const { base } = call;
    const prepared = w.prepared.get(base.id);
    if (!prepared) throw new AgentError('internal', `call ${base.id} was scheduled without a prepared call`);
    if (w.opts.signal.aborted || w.fatal || w.stopped) return cancel(w, i);
    const startedAt = now();
    set(w, i, { status: 'executing', base, title: call.title, startedAt });
    let error: ToolError | undefined;
    try {
      const ran = await runPrepared(w, base.id, prepared);
      if ('suspended' in ran) return suspendInside(w, i, { title: call.title, ...ran.suspended });
      let out = ran.output;
      if (o.hooks && out.error?.code !== 'cancelled') {
        const after = await o.hooks.afterTool({ id: base.id, name: base.name, args: base.args, ...(prepared.mcp && { mcp: prepared.mcp }) }, out, w.opts.signal);
        out = after.output;
        if (after.stop !== undefined) w.stopped ??= after.stop;
      }
      if (!out.error) {
        return set(w, i, {
          status: 'succeeded',
          base,
          output: out.forModel,
          ...(out.forHuman ? { forHuman: out.forHuman } : {}),
          ...(out.media?.length ? { media: out.media } : {}),
          ms: now() - startedAt,
        });
      }
      if (out.error.code === 'cancelled') return set(w, i, { status: 'cancelled', base, reason: out.error.message || 'the run was cancelled while it ran' });
      error = { code: out.error.code, message: out.forModel || out.error.message };
    } catch (e) {
      if (w.opts.signal.aborted) return set(w, i, { status: 'cancelled', base, reason: 'the run was cancelled while it ran' });
      error = toolErrorOf(e);
    }
    if (error.code === 'fatal' && !w.fatal) w.fatal = error;
    set(w, i, { status: 'failed', base, error, ms: now() - startedAt });
  }

  /** Run a prepared call, or let one that waited inside go on from where it stopped. */
  async function runPrepared(w: Work, id: string, prepared: PreparedCall): Promise<SuspendableRun> {
    const ctx = { signal: w.opts.signal, callId: id };
    const resumed = w.resumeWith.get(id);
    if (resumed) {
      if (!isSuspendable(prepared)) throw new AgentError('internal', `call ${id} waited inside, but its tool cannot go on from there`);
      return prepared.resumeSuspended(ctx, resumed.saved, resumed.answers);
    }
    if (isSuspendable(prepared)) return prepared.runSuspendable(ctx);
    // Raced against the signal: whatever a tool awaits, its call ends when the run does.
    return { output: await raceAbort(w.opts.signal, prepared.run(ctx)) };
  }

  /** A call stopped part-way for people (a sub-agent's own call waits): it waits, holding what it saved. */
  function suspendInside(w: Work, i: number, s: { title: string; pending: PendingApproval[]; saved: unknown }): void {
    const { title } = s;
    const { base } = w.calls[i];
    if (s.pending.length === 0) throw new AgentError('internal', `call ${base.id} stopped to wait, but nothing waits`);
    const pending = s.pending.map((p) => ({ ...p, id: nestedId(base.id, p.id) }));
    const own: PendingApproval = { id: base.id, name: base.name, args: base.args, title, rule: null };
    set(w, i, { status: 'awaiting_approval', base, title, pending: own, nested: { pending, saved: s.saved } });
  }

  function cancel(w: Work, i: number): void {
    const c = w.calls[i];
    if (isSettled(c)) return;
    const reason = w.fatal
      ? `an earlier call failed fatally (${w.fatal.message}), so the run stops`
      : w.stopped !== undefined
        ? `not run: ${stoppedByHook(w.stopped)}`
        : 'the run was cancelled before it ran';
    set(w, i, { status: 'cancelled', base: c.base, reason });
  }

  /** Admit each call of a group in order, then run the ones allowed together (at most maxParallel at once). */
  async function runGroups(w: Work, groups: number[][], admitOne: (i: number) => Promise<void>): Promise<void> {
    for (const group of groups) {
      if (w.opts.signal.aborted || w.fatal || w.stopped) {
        group.forEach((i) => cancel(w, i));
        continue;
      }
      for (const i of group) await admitOne(i);
      const runnable = group.filter((i) => w.calls[i].status === 'scheduled');
      await runLimited(runnable, maxParallel, (i) => execute(w, i));
    }
  }

  /** Groups of the given positions, by Gemini CLI's rule (edits and `wait_for_previous` calls alone). */
  const groupsOf = (w: Work, positions: readonly number[]): number[][] =>
    groupCalls(positions.map((i) => ({ kind: kindAt(w, i), waitForPrevious: w.calls[i].base.waitForPrevious === true }))).map((g) => g.map((k) => positions[k]));

  function finish(w: Work): BatchResult {
    if (w.opts.signal.aborted || w.fatal || w.stopped) w.calls.forEach((_, i) => cancel(w, i));
    const pending = pendingOf(w.calls);
    if (pending.length > 0) return { responses: [], pending, open: toOpenBatch(w.calls, streak) };
    return { responses: buildResponses(w.calls, budget), pending: [], ...(w.fatal ? { fatal: w.fatal } : {}), ...(w.stopped !== undefined ? { stopped: w.stopped } : {}) };
  }

  async function run(fcs: readonly FunctionCall[], opts: BatchOptions, emit: SchedulerEmit): Promise<BatchResult> {
    const w: Work = { calls: receiveAll(fcs), prepared: new Map(), resumeWith: new Map(), opts, emit };
    for (const c of w.calls) emit({ type: 'tool_use', id: c.base.id, name: c.base.name, args: c.base.args });
    await runGroups(
      w,
      groupsOf(
        w,
        w.calls.map((_, i) => i),
      ),
      (i) => admit(w, i),
    );
    return finish(w);
  }

  /** Rebuild a waiting call from its arguments and settle it with its answer. */
  async function admitAnswered(w: Work, i: number, answers: readonly ApprovalAnswer[]): Promise<void> {
    const call = w.calls[i] as CallOf<'awaiting_approval'>;
    if (call.nested) return admitNested(w, i, answersInside(call.base.id, answers));
    const answer = answers.find((a) => a.id === call.base.id)!;
    if (answer.kind === 'approve') {
      const { base, pending } = call;
      let prepared: PreparedCall;
      try {
        prepared = await tools.prepareCall(base.name, base.args, o.env);
      } catch (e) {
        const why = toolErrorOf(e);
        const message = `${base.name} was approved but can no longer be prepared (the workspace changed since it was asked): ${why.message}`;
        return set(w, i, { status: 'failed', base, error: { code: why.code, message } });
      }
      if (prepared.title !== pending.title || prepared.preview !== pending.preview) {
        // The person approved one change; do not run a different one in its name.
        const message = `${base.name} was approved, but what it would do has changed since it was asked (now: ${prepared.title}). Not run; call it again if it is still needed.`;
        return set(w, i, { status: 'failed', base, error: { code: 'failed', message } });
      }
      w.prepared.set(base.id, prepared);
    }
    await applyAnswer(w, i, answer);
  }

  async function resume({ open, answers }: { open: OpenBatch; answers: readonly ApprovalAnswer[] }, opts: BatchOptions, emit: SchedulerEmit): Promise<BatchResult> {
    const saved = parseOpenBatch(open);
    const byId = assertAnswersFit(pendingOf(saved.calls), answers);
    streak = saved.validationStreak;
    const w: Work = { calls: saved.calls, prepared: new Map(), resumeWith: new Map(), opts, emit };
    const waiting = w.calls.flatMap((c, i) => (c.status === 'awaiting_approval' ? [i] : []));
    await runGroups(w, groupsOf(w, waiting), (i) => admitAnswered(w, i, [...byId.values()]));
    return finish(w);
  }

  /**
   * A call that waited inside (a sub-agent) goes on: rebuilt from its arguments, it carries on from
   * what it saved with the answers meant for it. It was allowed when it first ran.
   */
  async function admitNested(w: Work, i: number, answers: ApprovalAnswer[]): Promise<void> {
    const call = w.calls[i] as CallOf<'awaiting_approval'>;
    const { base } = call;
    let prepared: PreparedCall;
    try {
      prepared = await tools.prepareCall(base.name, base.args, o.env);
    } catch (e) {
      const why = toolErrorOf(e);
      return set(w, i, { status: 'failed', base, error: { code: why.code, message: `${base.name} cannot go on from where it waited: ${why.message}` } });
    }
    w.prepared.set(base.id, prepared);
    w.resumeWith.set(base.id, { saved: call.nested!.saved, answers });
    set(w, i, { status: 'scheduled', base, title: call.title, allowedBy: { by: 'approval', always: false } });
  }

  return { run, resume };
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
