/**
 * Resume: a maintainer replied `/agent approve|deny|answer|continue ...` in a thread where a run is
 * waiting. Which request the reply answers is read from the thread itself: the newest comment that
 * agent-action's own account posted with an approval marker (session id, nonce, calls digest). The
 * session ref is the source of truth, but only once its signature verifies (anyone who can push can
 * write a ref; only the action can sign one). Then the marker must match the open request the
 * document holds: its repository and thread, its nonce, the comment id it recorded, and the digest
 * of its waiting calls. So a marker copied into another comment, a reply to an older question, a
 * replayed or rewritten document runs nothing.
 *
 * The claim is a compare-and-swap on the session ref: of two runs started for one reply, one wins;
 * the other reports "already handled" and does nothing.
 */
import { messageOf } from '../../common/errors.js';
import { taskKindOf } from '../../common/task-kinds.js';
import type { ApprovalAnswer } from '../../scheduler/types.js';
import { nextVersionOf, type SessionDoc } from '../../session/codec.js';
import { callsDigestOf } from '../../session/sign.js';
import { readThreadSessions, type SessionStore } from '../../session/store.js';
import { fetchForWork, tryReadCommit } from '../../git/tree.js';
import { restoreWorktree } from '../../session/worktree.js';
import { isOurs } from '../authorize.js';
import type { GitHubClient } from '../github-client.js';
import { formatMarker } from '../markers.js';
import type { Resumed } from '../prepare-run.js';
import type { ActionResult, AgentTask, Log, RepoRef, ReplyCommand, RunContext } from '../run-context.js';
import { answersFor, parseApprovalReply, tryParseApprovalMarker, type ApprovalMarker } from './approval-comment.js';
import { checkForward, readLedger, recordVersion, type Ledger, type ThreadComment } from './session-ledger.js';
import { postThreadReply, storeFor, type HeldSession, type SuspendDeps } from './suspend.js';
import { isoTime } from '../../common/time.js';

interface QuestionComment extends ApprovalMarker {
  id: number;
  createdAt: string;
}

const notPermitted = (login: string) =>
  `@${login}, only people with write, maintain or admin permission can answer agent-action's requests; nothing was run.`;

/** Where a refusal is told: the thread's repository through this client, and the log when that fails. */
export interface ReplyChannel {
  octokit: GitHubClient;
  repo: RepoRef;
  log: Log;
}

/**
 * main.ts refuses a comment whose author lacks write access before any run starts, silently for
 * commands. A reply to an approval request is answered in one line instead (the maintainer-facing
 * protocol promises it), but never to a bot: two bots must not talk to each other.
 */
export async function tellRefusedReplier(reply: ReplyCommand, channel: ReplyChannel): Promise<void> {
  const { octokit, repo, log } = channel;
  const { requester, thread } = reply.trigger;
  if (requester.isBot) return;
  try {
    await octokit.rest.issues.createComment({
      ...repo,
      issue_number: thread.number,
      body: `${notPermitted(requester.login)}\n\n${formatMarker('approval-reply')}`,
    });
  } catch (e) {
    log.warning(`could not tell @${requester.login} why nothing ran: ${messageOf(e)}`);
  }
}

/**
 * The newest approval question the action's own account posted in the thread (authorize.ts isOurs:
 * the workflow token's account, or the one this run's token posts as, such as a GitHub App's
 * `<app>[bot]`). A person or any other bot can type or quote a marker; theirs never count.
 */
async function findQuestion(ctx: RunContext, comments: readonly ThreadComment[]): Promise<QuestionComment | undefined> {
  const own = await ctx.own.logins();
  // Stryker disable next-line ArrayDeclaration: newest first, so the current question wins over an older one
  for (const c of [...comments].reverse()) {
    if (!isOurs(c.user, own)) continue;
    // Stryker disable next-line StringLiteral: a stand-in for a missing body only needs to carry no marker
    const marker = tryParseApprovalMarker(c.body ?? '');
    if (marker) return { id: c.id, createdAt: c.created_at, ...marker };
  }
  return undefined;
}

const skipped = (summary: string, sessionId?: string): ActionResult => ({
  status: 'skipped',
  summary,
  ...(sessionId ? { sessionId } : {}),
});

/** Tell the thread, end green as skipped: nothing ran. */
async function refuse(ctx: RunContext, text: string, sessionId?: string): Promise<ActionResult> {
  ctx.log.notice(text);
  await postThreadReply(ctx, text);
  return skipped(text, sessionId);
}

/** Tell the thread, end red; the session ref stays for inspection. */
async function fail(ctx: RunContext, text: string, sessionId?: string): Promise<ActionResult> {
  ctx.log.warning(text);
  await postThreadReply(ctx, `${text}\n\nThe session is kept on its ref for inspection; nothing was run.`).catch((e) =>
    ctx.log.warning(`could not tell the thread: ${messageOf(e)}`),
  );
  const result: ActionResult = { status: 'failed', summary: text, ...(sessionId ? { sessionId } : {}) };
  await ctx.progress.finish(result).catch(() => undefined);
  return result;
}

/** What a reply resumes with, or the answer the thread already got (nothing runs). */
type Answered = { ok: true; held: HeldSession; answers: ApprovalAnswer[] } | { ok: false; result: ActionResult };

/** What the thread says: its comments, the ledger of the action's own, and the reply being handled. */
interface ThreadView {
  store: SessionStore;
  reply: ReplyCommand;
  comments: readonly ThreadComment[];
  ledger: Ledger;
  now: Date;
}

/** `/agent continue`, after a crash: the newest session of this thread that a run claimed and never finished. */
async function readInterrupted(ctx: RunContext, view: ThreadView): Promise<Answered> {
  const sessions = await readThreadSessions(view.store, view.reply.trigger.thread.number);
  const crashed = sessions.find((s) => s.doc.request.status === 'claimed' && sameRepository(s.doc, ctx));
  if (!crashed)
    return {
      ok: false,
      result: await refuse(
        ctx,
        `There is no interrupted agent-action session in this thread to continue; nothing was run.`,
      ),
    };
  // A finished session's ref moved back to its claimed version looks interrupted: the ledger knows better.
  const forward = checkForward(view.ledger, crashed.doc);
  if (!forward.ok) return { ok: false, result: await fail(ctx, forward.message, crashed.doc.id) };
  const held = { doc: crashed.doc, version: crashed.stored.version };
  return { ok: true, held, answers: crashed.doc.state.open ? (crashed.doc.request.answers ?? []) : [] };
}

const sameRepository = (doc: SessionDoc, ctx: RunContext) =>
  doc.repository.owner.toLowerCase() === ctx.repo.owner.toLowerCase() &&
  doc.repository.repo.toLowerCase() === ctx.repo.repo.toLowerCase();

/** The request the thread's newest question names, checked guard by guard against its signed session. */
async function readAnswered(ctx: RunContext, view: ThreadView): Promise<Answered> {
  const { store, reply, now } = view;
  const { thread, comment } = reply.trigger;
  const t = ctx.settings.trigger;
  const no = async (text: string, id?: string): Promise<Answered> => ({
    ok: false,
    result: await refuse(ctx, text, id),
  });
  const question = await findQuestion(ctx, view.comments);
  if (!question) return no(`There is no open agent-action request in this thread; nothing was run.`);
  const stored = await store.read(question.session);
  if (!stored)
    return no(
      `The request this thread asked (session \`${question.session}\`) no longer exists; nothing was run.`,
      question.session,
    );
  if (!stored.parsed.ok) {
    const why = `The saved session \`${question.session}\` cannot be read: ${stored.parsed.error.message}.`;
    // A rotated key is an expected event (say so, end green); a forged or broken document is not.
    if (stored.parsed.error.code === 'wrong_key')
      return no(`${why} Nothing was run; start again with \`${t}\` and the command.`, question.session);
    return { ok: false, result: await fail(ctx, why, question.session) };
  }
  const doc = stored.parsed.doc;
  const r = doc.request;
  if (!sameRepository(doc, ctx) || doc.thread.number !== thread.number) {
    return {
      ok: false,
      result: await fail(
        ctx,
        `The saved session \`${doc.id}\` belongs to ${doc.repository.owner}/${doc.repository.repo}#${doc.thread.number}, not to this thread.`,
        doc.id,
      ),
    };
  }
  if (r.nonce !== question.nonce || r.commentId !== question.id) {
    return no(
      `That question is no longer the session's current request (its nonce does not match); nothing was run.`,
      doc.id,
    );
  }
  // Signed, and this thread's: now is it the newest version, with a request nobody answered yet?
  const forward = checkForward(view.ledger, doc);
  if (!forward.ok) return { ok: false, result: await fail(ctx, forward.message, doc.id) };
  if (question.calls !== callsDigestOf(doc.pending)) {
    return {
      ok: false,
      result: await fail(
        ctx,
        `The calls saved in session \`${doc.id}\` are not the ones the question showed (digest ${question.calls ?? 'missing'}, saved calls ${callsDigestOf(doc.pending)}).`,
        doc.id,
      ),
    };
  }
  if (r.status !== 'open') {
    const by = r.claimedBy ? ` by @${r.claimedBy}${r.claimedAt ? ` at ${r.claimedAt}` : ''}` : '';
    return no(`This request was already handled${by}; nothing more was run.`, doc.id);
  }
  if (now.getTime() > Date.parse(r.expiresAt)) {
    return no(
      `This request expired at ${r.expiresAt}; nothing was run. Start again with \`${t} ${doc.trigger.command}\`.`,
      doc.id,
    );
  }
  if (comment.createdAt && Date.parse(comment.createdAt) < Date.parse(question.createdAt)) {
    return no(
      `This reply was written before the current question; answer the newest question instead. Nothing was run.`,
      doc.id,
    );
  }
  const directives = parseApprovalReply(comment.body, t);
  const fit = directives.ok ? answersFor(directives.directives, doc.pending) : directives;
  if (!fit.ok) return no(`I could not use this answer: ${fit.error}. Nothing was run; reply again.`, doc.id);
  return { ok: true, held: { doc, version: stored.version }, answers: fit.answers };
}

/** What a claim needs: the store, the session read, the answers, who answered and when. */
interface ClaimStart {
  store: SessionStore;
  held: HeldSession;
  answers: ApprovalAnswer[];
  requester: string;
  now: Date;
}

/**
 * Claim: one run wins the compare-and-swap on the ref; the loser does nothing (the winner reports in
 * the thread). The claimed version and the request's nonce go into the ledger before anything runs:
 * a ledger that cannot be written runs nothing (the claimed session waits for `/agent continue`).
 */
async function claim(
  ctx: RunContext,
  c: ClaimStart,
): Promise<{ ok: true; held: HeldSession } | { ok: false; result: ActionResult }> {
  const { held, now } = c;
  const claimedDoc: SessionDoc = nextVersionOf(
    {
      ...held.doc,
      request: {
        ...held.doc.request,
        status: 'claimed',
        claimedBy: c.requester,
        claimedAt: isoTime(now),
        answers: c.answers,
      },
      updatedAt: isoTime(now),
    },
    held.doc,
  );
  const won = await c.store.update(held.doc.id, held.version, claimedDoc);
  if (!won.ok) {
    ctx.log.notice(`session ${held.doc.id}: already handled by another run (${won.message})`);
    return { ok: false, result: skipped('already handled by another run', held.doc.id) };
  }
  try {
    await recordVersion(ctx, claimedDoc, held.doc.request.nonce);
  } catch (e) {
    return {
      ok: false,
      result: await fail(
        ctx,
        `Session \`${held.doc.id}\` could not be recorded in this thread's ledger (${messageOf(e)}).`,
        held.doc.id,
      ),
    };
  }
  return { ok: true, held: { doc: claimedDoc, version: won.version } };
}

/** A reply that resumes a session: the task it was started with, the claim this run holds, the answers. */
export interface Resumption {
  task: AgentTask;
  resumed: Resumed;
  answers: ApprovalAnswer[];
}

/**
 * A reply to a waiting run, up to the point its agent resumes: the request it answers (or the
 * interrupted session `continue` picks up), checked and claimed, its work tree restored. Who may
 * answer was decided before the run started (authorize.ts); the run itself goes on as any other,
 * through prepareRun, the agent and endRun (run-task.ts).
 */
export async function claimReply(
  ctx: RunContext,
  reply: ReplyCommand,
  deps: SuspendDeps = {},
): Promise<{ ok: true; resumption: Resumption } | { ok: false; result: ActionResult }> {
  const { requester, thread } = reply.trigger;
  const now = (deps.now ?? (() => new Date()))();
  const store = storeFor(ctx, deps);
  const comments = (await ctx.octokit.paginate(ctx.octokit.rest.issues.listComments, {
    ...ctx.repo,
    issue_number: thread.number,
    per_page: 100,
  })) as ThreadComment[];
  const view: ThreadView = { store, reply, comments, ledger: readLedger(comments, await ctx.own.logins()).ledger, now };
  const answered = reply.verb === 'continue' ? await readInterrupted(ctx, view) : await readAnswered(ctx, view);
  if (!answered.ok) return answered;
  const claimed = await claim(ctx, {
    store,
    held: answered.held,
    answers: answered.answers,
    requester: requester.login,
    now,
  });
  if (!claimed.ok) return claimed;
  const { held } = claimed;
  const { answers } = answered;
  const failed = async (text: string) => ({ ok: false as const, result: await fail(ctx, text, held.doc.id) });

  try {
    // The commit the session's tree was on (a pull request's head when it suspended, not what this
    // run's checkout gave), fetched one commit deep into a shallow clone before the restore needs it.
    const { baseCommit } = held.doc.worktree;
    if (!(await tryReadCommit(ctx.workspace, baseCommit))) await fetchForWork(ctx.workspace, [baseCommit], ctx.remote);
    await restoreWorktree(ctx.workspace, held.doc.worktree, { branch: held.doc.branch, remote: ctx.remote });
    // The session holds the agent's changes only (suspend.ts leaves out what earlier steps left), and
    // the restore removed what this job's earlier steps wrote: nothing in the tree is anyone else's.
    ctx.workTree = { head: baseCommit, leftovers: [] };
  } catch (e) {
    return failed(`The work tree of session \`${held.doc.id}\` could not be restored: ${messageOf(e)}`);
  }

  const command = taskKindOf(held.doc.trigger.command);
  if (!command)
    return failed(`Session \`${held.doc.id}\` was started by an unknown command \`${held.doc.trigger.command}\`.`);
  ctx.log.info(
    `session ${held.doc.id}: resuming with ${answers.map((a) => `${a.id}=${a.kind}`).join(', ') || 'no answers'}`,
  );
  // Trusted configuration from the commit the session started with, never the restored work tree.
  const task: AgentTask = {
    command,
    instructions: held.doc.trigger.instructions,
    trustedCommit: held.doc.trustedCommit,
  };
  return { ok: true, resumption: { task, resumed: { record: held.doc.publish, held }, answers } };
}
