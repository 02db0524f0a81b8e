/**
 * endRun: the one place a run of the agent ends. A run that waits for a maintainer suspends (its
 * session saved, the question posted: approval/suspend.ts); any other publishes once (publish-run.ts)
 * and, when it holds a session ref (a resumed run's claim, a fresh run's checkpoint), marks that
 * session finished, so neither `/agent continue` nor a replayed reply runs it again.
 */
import type { AgentRun } from '../compose/prepare-agent.js';
import type { RunState } from '../core/run-state.js';
import { statsOf } from '../core/stats.js';
import { nextVersionOf, type SessionDoc } from '../session/codec.js';
import { storeFor, suspendSession, type AwaitingRun, type HeldSession, type SuspendDeps } from './approval/suspend.js';
import { tryRecordVersion } from './approval/session-ledger.js';
import { publishRun } from './publish/publish-run.js';
import type { ActionResult, PreparedRun, RunContext } from './run-context.js';
import { isoTime } from '../common/time.js';

/** The session store and clock (approval/suspend.ts), and what publishes: tests set them; production uses the defaults. */
export interface EndSeams extends SuspendDeps {
  publish?: typeof publishRun;
}

/** How the agent's run ended, and what it was prepared with. */
export interface Ended {
  run: AgentRun;
  prepared: PreparedRun;
}

export async function endRun(ctx: RunContext, { run, prepared }: Ended, seams: EndSeams = {}): Promise<ActionResult> {
  // The loop is over: its MCP servers stop and SessionEnd hooks run before anything is saved or published.
  await prepared.agent.close();
  const { held } = prepared;
  if (run.outcome.status === 'awaiting_approval')
    return suspendSession(ctx, { run: run as AwaitingRun, prepared, held }, seams);
  ctx.progress.step('publishing');
  const stats = statsOf(run.state, Date.now() - ctx.startedAt);
  const result = await (seams.publish ?? publishRun)(ctx, {
    run,
    task: prepared.task,
    record: prepared.recorder.snapshot(),
    info: ctx.info,
    stats,
  });
  if (!held) return result;
  await markFinished(ctx, { held, state: run.state }, seams);
  return { ...result, sessionId: held.doc.id };
}

/** A held session whose run ended: its last version says finished, and the thread's ledger records it. */
async function markFinished(
  ctx: RunContext,
  { held, state }: { held: HeldSession; state: RunState },
  deps: SuspendDeps,
): Promise<void> {
  const finished: SessionDoc = nextVersionOf(
    { ...held.doc, state, request: { ...held.doc.request, status: 'finished' }, updatedAt: isoTime() },
    held.doc,
  );
  const closed = await storeFor(ctx, deps).update(held.doc.id, held.version, finished);
  if (!closed.ok) return ctx.log.warning(`session ${held.doc.id}: could not mark finished: ${closed.message}`);
  // Finished is the newest version: the ref moved back to the claim (or a checkpoint) is refused, and
  // the approved call never runs twice.
  await tryRecordVersion(ctx, finished);
}
