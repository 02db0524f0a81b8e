import { AgentError } from '../common/errors.js';
import type { PreparedCall, ToolError, ToolOutput } from '../tools/define-tool.js';
import { groupCalls, runLimited, toolErrorOf } from './batch.js';
import type { CallBase, CallOf } from './call-state.js';
import { nestedId } from './open-batch.js';
import { isSuspendable, type PendingApproval, type SuspendableRun } from './types.js';
import { cancel, halted, set, type StartTimer, type Work } from './work.js';

/**
 * Running the scheduled calls of a batch, group by group, and the one abort rule: a cancelled call
 * settles when its tool's run settles (a command once its processes are gone), never before.
 */

/** Admit each call of a group in order, then run the ones allowed together (at most maxParallel at once). */
export async function runGroups(
  w: Work,
  positions: readonly number[],
  admitOne: (i: number) => Promise<void>,
): Promise<void> {
  for (const group of groupsOf(w, positions)) {
    if (halted(w)) {
      group.forEach((i) => cancel(w, i));
      continue;
    }
    for (const i of group) await admitOne(i);
    const runnable = group.filter((i) => w.calls[i].status === 'scheduled');
    await runLimited(runnable, w.parts.maxParallel, (i) => execute(w, i));
  }
}

/** Groups of the given positions, by Gemini CLI's rule (edits and `wait_for_previous` calls alone). */
const groupsOf = (w: Work, positions: readonly number[]): number[][] =>
  groupCalls(
    positions.map((i) => ({
      kind: w.parts.tools.kindOf(w.calls[i].base.name),
      waitForPrevious: w.calls[i].base.waitForPrevious === true,
    })),
  ).map((g) => g.map((k) => positions[k]));

async function execute(w: Work, i: number): Promise<void> {
  const p = w.parts;
  const call = w.calls[i] as CallOf<'scheduled'>;
  const { base } = call;
  const prepared = w.prepared.get(base.id);
  if (!prepared) throw new AgentError('internal', `call ${base.id} was scheduled without a prepared call`);
  if (halted(w)) return cancel(w, i);
  const startedAt = p.now();
  set(w, i, { status: 'executing', base, title: call.title, startedAt });
  let error: ToolError | undefined;
  try {
    const ran = await untilSettledOrAbandoned(w.opts.signal, runPrepared(w, base.id, prepared), p);
    if (ran === ABANDONED)
      return set(w, i, { status: 'cancelled', base, reason: abandonedReason(base.name, p.abandonAfterMs) });
    if ('suspended' in ran) return suspendInside(w, i, { title: call.title, ...ran.suspended });
    const out = await afterToolHooks(w, { base, prepared }, ran.output);
    if (!out.error) {
      return set(w, i, {
        status: 'succeeded',
        base,
        output: out.forModel,
        ...(out.forHuman ? { forHuman: out.forHuman } : {}),
        ...(out.media?.length ? { media: out.media } : {}),
        ms: p.now() - startedAt,
      });
    }
    if (out.error.code === 'cancelled')
      return set(w, i, {
        status: 'cancelled',
        base,
        reason: out.error.message || 'the run was cancelled while it ran',
      });
    error = { code: out.error.code, message: out.forModel || out.error.message };
  } catch (e) {
    if (w.opts.signal.aborted)
      return set(w, i, { status: 'cancelled', base, reason: 'the run was cancelled while it ran' });
    error = toolErrorOf(e);
  }
  if (error.code === 'fatal' && !w.fatal) w.fatal = error;
  set(w, i, { status: 'failed', base, error, ms: p.now() - startedAt });
}

/** AfterTool hooks on a call's output (not on a cancelled one): they may replace it or stop the run. */
async function afterToolHooks(
  w: Work,
  { base, prepared }: { base: CallBase; prepared: PreparedCall },
  output: ToolOutput,
): Promise<ToolOutput> {
  const { hooks } = w.parts;
  if (!hooks || output.error?.code === 'cancelled') return output;
  const after = await hooks.afterTool(
    { id: base.id, name: base.name, args: base.args, ...(prepared.mcp && { mcp: prepared.mcp }) },
    output,
    w.opts.signal,
  );
  if (after.stop !== undefined) w.stopped ??= after.stop;
  return after.output;
}

/** Run a prepared call, or let one that waited inside go on from where it stopped. */
function runPrepared(w: Work, id: string, prepared: PreparedCall): Promise<SuspendableRun> {
  const ctx = { signal: w.opts.signal, callId: id };
  const resumed = w.resumeWith.get(id);
  if (resumed) {
    if (!isSuspendable(prepared))
      throw new AgentError('internal', `call ${id} waited inside, but its tool cannot go on from there`);
    return prepared.resumeSuspended(ctx, resumed.saved, resumed.answers);
  }
  if (isSuspendable(prepared)) return prepared.runSuspendable(ctx);
  return prepared.run(ctx).then((output) => ({ output }));
}

const ABANDONED = Symbol('abandoned');

/**
 * The abort rule. A call's run is awaited as it is, after an abort too, so a cancelled call settles
 * once its tool has stopped what it started. A tool that ignores the signal must not hold the run:
 * `abandonAfterMs` after the abort (on the scheduler's timer, an injected clock's in tests) the run
 * is abandoned, its late result or failure swallowed.
 */
function untilSettledOrAbandoned<T>(
  signal: AbortSignal,
  run: Promise<T>,
  o: { abandonAfterMs: number; startTimer: StartTimer },
): Promise<T | typeof ABANDONED> {
  return new Promise((resolve, reject) => {
    let stopTimer: (() => void) | undefined;
    const onAbort = () => (stopTimer = o.startTimer(o.abandonAfterMs, () => resolve(ABANDONED)));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      stopTimer?.();
    };
    run.then(
      (v) => (done(), resolve(v)),
      (e: unknown) => (done(), reject(e)),
    );
  });
}

const abandonedReason = (name: string, ms: number): string =>
  `the run was cancelled, and ${name} did not stop within ${Math.round(ms / 1000)} s of it, so it was abandoned: whatever it started may still be running`;

/** A call stopped part-way for people (a sub-agent's own call waits): it waits, holding what it saved. */
function suspendInside(w: Work, i: number, s: { title: string; pending: PendingApproval[]; saved: unknown }): void {
  const { title } = s;
  const { base } = w.calls[i];
  if (s.pending.length === 0) throw new AgentError('internal', `call ${base.id} stopped to wait, but nothing waits`);
  const pending = s.pending.map((x) => ({ ...x, id: nestedId(base.id, x.id) }));
  const own: PendingApproval = { id: base.id, name: base.name, args: base.args, title, rule: null };
  set(w, i, { status: 'awaiting_approval', base, title, pending: own, nested: { pending, saved: s.saved } });
}
