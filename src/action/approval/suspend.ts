/**
 * Suspend: the loop returned `awaiting_approval`. Save the whole session (RunState, the waiting
 * calls, the work tree as a patch, a fresh single-use nonce) on its ref, post the question, and end
 * the run green. Order matters for crash safety: the session is saved before the question is
 * posted, so a question never points at a session that does not exist.
 */
import { randomBytes } from 'node:crypto';
import { AgentError } from '../../common/errors.js';
import type { AgentRun } from '../../compose/prepare-agent.js';
import type { RunState } from '../../core/run-state.js';
import { statsOf } from '../../core/stats.js';
import type { PendingApproval } from '../../scheduler/types.js';
import { nextVersionOf, SESSION_VERSION, type SessionDoc } from '../../session/codec.js';
import { createGitRefStore } from '../../session/git-ref-store.js';
import { createSessionKey, type SessionKey } from '../../session/sign.js';
import type { SessionStore } from '../../session/store.js';
import { captureWorktree } from '../../session/worktree.js';
import { assertGit } from '../../git/git.js';
import type { ActionSettings } from '../inputs.js';
import { formatMarker } from '../markers.js';
import type { ActionResult, RunContext, PreparedRun } from '../run-context.js';
import { renderApprovalComment } from './approval-comment.js';
import { tryRecordVersion } from './session-ledger.js';
import { isoTime } from '../../common/time.js';

export type AwaitingRun = AgentRun & { outcome: { status: 'awaiting_approval'; pending: readonly PendingApproval[] } };

/** Seams the tests and the resume path set; production uses the defaults. */
export interface SuspendDeps {
  store?: SessionStore;
  now?: () => Date;
  newNonce?: () => string;
}

/** The stored version of the session a resumed run holds the claim on. */
export interface HeldSession {
  doc: SessionDoc;
  version: string;
}

/** The key sessions are signed with: the `session-key` input, else derived from the Gemini API key (src/session/sign.ts). */
export const sessionKeyOf = (settings: Pick<ActionSettings, 'sessionKey' | 'geminiApiKey'>): SessionKey =>
  createSessionKey(settings.sessionKey || settings.geminiApiKey);

export const storeFor = (ctx: RunContext, deps: SuspendDeps): SessionStore =>
  deps.store ?? createGitRefStore({ root: ctx.workspace, remote: ctx.remote, key: sessionKeyOf(ctx.settings) });

/** A one-line answer in the thread, marked so it never triggers the action itself. */
export async function postThreadReply(ctx: RunContext, text: string): Promise<number | undefined> {
  if (!ctx.thread) return undefined;
  const { data } = await ctx.octokit.rest.issues.createComment({
    ...ctx.repo,
    issue_number: ctx.thread.number,
    body: `${text}\n\n${formatMarker('approval-reply')}`,
  });
  return data.id;
}

async function currentBranch(root: string): Promise<string | undefined> {
  const name = await assertGit(root, ['rev-parse', '--abbrev-ref', 'HEAD']);
  return name === 'HEAD' ? undefined : name;
}

/** What a session records of a prepared run: its task, trusted commit and publish record (not the agent). */
type Recorded = Pick<PreparedRun, 'task' | 'trustedCommit' | 'recorder'>;

/** The session document for this suspension; `held` carries the original trigger across resumes. */
async function buildDoc(
  ctx: RunContext,
  {
    run,
    prepared,
    held,
    now,
    nonce,
  }: {
    run: { state: RunState; pending: readonly PendingApproval[]; status: 'open' | 'claimed' };
    prepared: Recorded;
    held: HeldSession | undefined;
    now: Date;
    nonce: string;
  },
): Promise<SessionDoc> {
  const thread =
    held?.doc.thread ??
    (ctx.thread ? { number: ctx.thread.number, kind: ctx.thread.isPullRequest ? 'pull_request' : 'issue' } : undefined);
  if (!thread)
    throw new AgentError('general', 'this run has no issue or pull request to ask in, so it cannot wait for approval');
  // A resumed run keeps reading the commit its session started with; prepareRun was given it.
  const trustedCommit = held?.doc.trustedCommit ?? prepared.trustedCommit;
  if (!trustedCommit)
    throw new AgentError(
      'general',
      'this run read no trusted configuration from a commit, so it cannot be saved to resume',
    );
  // What earlier steps of the job left stays out of the session (it is pushed to the repository):
  // a credentials file an earlier step wrote must not become readable to everyone who can fetch.
  const worktree = await captureWorktree(ctx.workspace, undefined, {
    leave: ctx.workTree?.leftovers.map((l) => l.path),
  });
  const branch = held ? held.doc.branch : await currentBranch(ctx.workspace);
  const comment = ctx.trigger.comment;
  const doc: SessionDoc = {
    version: SESSION_VERSION,
    id: run.state.id,
    repository: { owner: ctx.repo.owner, repo: ctx.repo.repo },
    thread: thread as SessionDoc['thread'],
    trigger: held?.doc.trigger ?? {
      command: prepared.task.command,
      ...(prepared.task.instructions ? { instructions: prepared.task.instructions } : {}),
      ...(comment ? { commentId: comment.id } : {}),
    },
    requester: held?.doc.requester ?? ctx.requester.login,
    model: run.state.model,
    mode: run.state.mode,
    state: run.state,
    pending: [...run.pending],
    request: {
      nonce,
      createdAt: isoTime(now),
      expiresAt: isoTime(now.getTime() + ctx.settings.approvalTimeoutMs),
      status: run.status,
      ...(run.status === 'claimed' ? { claimedBy: ctx.requester.login, claimedAt: isoTime(now) } : {}),
    },
    ...(branch ? { branch } : {}),
    worktree,
    trustedCommit,
    publish: prepared.recorder.snapshot(),
    updatedAt: isoTime(now),
  };
  // One version after the one the run holds (a resumed run's claim, the last checkpoint), or the first.
  return nextVersionOf(doc, held?.doc);
}

/** What a suspension saves: the run that waits, what it was prepared with, and the session it already holds, if any. */
export interface Suspension {
  run: AwaitingRun;
  prepared: PreparedRun;
  /** The session a resumed run claimed (or a checkpoint created): its new question replaces the answered one on the same ref. */
  held?: HeldSession | undefined;
}

/** Save, ask, end green. A first suspension (nothing `held`) creates the session ref. */
export async function suspendSession(
  ctx: RunContext,
  suspension: Suspension,
  deps: SuspendDeps = {},
): Promise<ActionResult> {
  const { run, prepared, held } = suspension;
  const store = storeFor(ctx, deps);
  const now = (deps.now ?? (() => new Date()))();
  const nonce = (deps.newNonce ?? (() => randomBytes(16).toString('hex')))();
  const doc = await buildDoc(ctx, {
    run: { state: run.state, pending: run.outcome.pending, status: 'open' },
    prepared,
    held,
    now,
    nonce,
  });

  const saved = held ? await store.update(doc.id, held.version, doc) : await store.create(doc);
  if (!saved.ok) throw new AgentError('general', `could not save session ${doc.id}: ${saved.message}`);

  const body = renderApprovalComment({
    sessionId: doc.id,
    nonce,
    pending: doc.pending,
    createdAt: doc.request.createdAt,
    expiresAt: doc.request.expiresAt,
    trigger: ctx.settings.trigger,
    secrets: ctx.secrets,
    runUrl: ctx.runUrl,
    workspace: ctx.workspace,
    sandbox: ctx.probed && { mode: ctx.probed.sandbox.mode, status: ctx.probed.status },
  });
  const { data: question } = await ctx.octokit.rest.issues.createComment({
    ...ctx.repo,
    issue_number: doc.thread.number,
    body,
  });

  // Record which comment asked: a resume accepts only this comment's marker.
  const withComment: SessionDoc = nextVersionOf({ ...doc, request: { ...doc.request, commentId: question.id } }, doc);
  const recorded = await store.update(doc.id, saved.version, withComment);
  if (!recorded.ok)
    throw new AgentError('general', `session ${doc.id} changed while its question was posted: ${recorded.message}`);
  // The question is out: a ledger that cannot be written now is said in the log, and the next write records it.
  await tryRecordVersion(ctx, withComment);

  const calls = doc.pending.length === 1 ? '1 call waits' : `${doc.pending.length} calls wait`;
  const result: ActionResult = {
    status: 'awaiting_approval',
    summary: `${calls} for a maintainer's answer: ${question.html_url}`,
    sessionId: doc.id,
    stats: statsOf(run.state, run.state.elapsedMsBefore),
  };
  ctx.log.notice(`session ${doc.id} saved (${recorded.version.slice(0, 12)}); question posted: ${question.html_url}`);
  await ctx.progress.finish(result, `Waiting for approval: [the question](${question.html_url}).`);
  return result;
}

/** What checkpoints are taken of: the prepared run, and the session it already holds (a resumed run's), if any. */
export interface CheckpointStart {
  prepared: Recorded;
  held?: HeldSession | undefined;
}

/**
 * Crash safety for long runs: save the session (status `claimed`, no question) after each completed
 * batch, so `/agent continue` can resume from there if the runner dies. Needs a loop hook called
 * with the RunState after a batch settles. `held()` is what `suspendSession` must be given later,
 * since the ref then exists already.
 */
export function createCheckpointer(ctx: RunContext, start: CheckpointStart, deps: SuspendDeps = {}) {
  const store = storeFor(ctx, deps);
  const prepared = start.prepared;
  let held = start.held;
  return {
    held: () => held,
    async save(state: RunState): Promise<void> {
      const now = (deps.now ?? (() => new Date()))();
      const doc = await buildDoc(ctx, {
        run: { state: structuredClone(state), pending: [], status: 'claimed' },
        prepared,
        held,
        now,
        nonce: held?.doc.request.nonce ?? 'checkpoint',
      });
      const saved = held ? await store.update(doc.id, held.version, doc) : await store.create(doc);
      if (!saved.ok)
        throw new AgentError('general', `could not save a checkpoint of session ${doc.id}: ${saved.message}`);
      // Not recorded in the ledger: a thread comment edited at every batch costs two API calls a
      // batch. The claim before it and the finish after it are recorded (resume.ts, run-task.ts).
      held = { doc, version: saved.version };
    },
  };
}
