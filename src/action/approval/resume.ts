/**
 * Resume: a maintainer replied `/agent approve|deny|answer|continue ...` in a thread where a run is
 * waiting. Which request the reply answers is read from the thread itself: the newest comment that
 * agent-action posted with an approval marker (session id + nonce). The session ref is the source
 * of truth; the marker must match the open request it names (its nonce, and the comment id the
 * session recorded), so a marker copied into another comment, or a reply to an older question,
 * runs nothing.
 *
 * The claim is a compare-and-swap on the session ref: of two runs started for one reply, one wins;
 * the other reports "already handled" and does nothing.
 */
import { messageOf } from '../../common/errors.js';
import type { ApprovalAnswer } from '../../scheduler/types.js';
import type { SessionDoc } from '../../session/codec.js';
import { readThreadSessions } from '../../session/store.js';
import { restoreWorktree } from '../../session/worktree.js';
import { readRole } from '../authorize.js';
import type { TaskKind } from '../event-command.js';
import type { GitHubClient } from '../github-client.js';
import { formatMarker } from '../markers.js';
import type { ActionResult, ActionRunContext, HandleApprovalReply, Log, RepoRef, ReplyCommand } from '../run-context.js';
import { answersFor, parseApprovalReply, tryParseApprovalMarker } from './approval-comment.js';
import { postThreadReply, statsOf, storeFor, suspendSession, type AwaitingRun, type HeldSession, type SuspendDeps } from './suspend.js';

const WRITE_ROLES = new Set(['admin', 'maintain', 'write']);
const TASKS: readonly TaskKind[] = ['fix', 'review', 'triage', 'question', 'prompt'];
const taskKindOf = (command: string): TaskKind | undefined => TASKS.find((k) => k === command);

interface QuestionComment {
  id: number;
  createdAt: string;
  session: string;
  nonce: string;
}

const notPermitted = (login: string) => `@${login}, only people with write, maintain or admin permission can answer agent-action's requests; nothing was run.`;

/**
 * main.ts refuses a comment whose author lacks write access before any run starts, silently for
 * commands. A reply to an approval request is answered in one line instead (the maintainer-facing
 * protocol promises it), but never to a bot: two bots must not talk to each other.
 */
export async function tellRefusedReplier(octokit: GitHubClient, repo: RepoRef, reply: ReplyCommand, log: Log): Promise<void> {
  const { requester, thread } = reply.trigger;
  if (requester.isBot) return;
  try {
    await octokit.rest.issues.createComment({ ...repo, issue_number: thread.number, body: `${notPermitted(requester.login)}\n\n${formatMarker('approval-reply')}` });
  } catch (e) {
    log.warning(`could not tell @${requester.login} why nothing ran: ${messageOf(e)}`);
  }
}

const isBotUser = (u: { login?: string; type?: string } | null | undefined) => u?.type === 'Bot' || Boolean(u?.login?.endsWith('[bot]'));

/** The newest approval question agent-action (a bot account) posted in the thread. */
async function findQuestion(ctx: ActionRunContext, threadNumber: number): Promise<QuestionComment | undefined> {
  const comments = await ctx.octokit.paginate(ctx.octokit.rest.issues.listComments, { ...ctx.repo, issue_number: threadNumber, per_page: 100 });
  for (const c of [...comments].reverse()) {
    if (!isBotUser(c.user)) continue; // people can type markers too; only the action's account counts
    const marker = tryParseApprovalMarker(c.body ?? '');
    if (marker) return { id: c.id, createdAt: c.created_at, ...marker };
  }
  return undefined;
}

const skipped = (summary: string, sessionId?: string): ActionResult => ({ status: 'skipped', summary, ...(sessionId ? { sessionId } : {}) });

/** Tell the thread, end green as skipped: nothing ran. */
async function refuse(ctx: ActionRunContext, text: string, sessionId?: string): Promise<ActionResult> {
  ctx.log.notice(text);
  await postThreadReply(ctx, text);
  return skipped(text, sessionId);
}

/** Tell the thread, end red; the session ref stays for inspection. */
async function fail(ctx: ActionRunContext, text: string, sessionId?: string): Promise<ActionResult> {
  ctx.log.warning(text);
  await postThreadReply(ctx, `${text}\n\nThe session is kept on its ref for inspection; nothing was run.`).catch((e) => ctx.log.warning(`could not tell the thread: ${messageOf(e)}`));
  const result: ActionResult = { status: 'failed', summary: text, ...(sessionId ? { sessionId } : {}) };
  await ctx.progress.finish(result).catch(() => undefined);
  return result;
}

export async function handleApprovalReplyWith(ctx: ActionRunContext, reply: ReplyCommand, deps: SuspendDeps = {}): Promise<ActionResult> {
  const { requester, thread, comment } = reply.trigger;
  const t = ctx.settings.trigger;
  const now = (deps.now ?? (() => new Date()))();

  // Bots never answer approvals, and get no reply (two bots must not talk to each other).
  if (requester.isBot) return skipped(`${requester.login} is a bot; bots cannot answer approval requests`);
  const role = await readRole(ctx.octokit, ctx.repo, requester.login);
  if (!role || !WRITE_ROLES.has(role)) return refuse(ctx, notPermitted(requester.login));

  const store = storeFor(ctx, deps);
  let held: HeldSession;
  let answers: ApprovalAnswer[];

  if (reply.verb === 'continue') {
    // After a crash: the newest session of this thread that a run claimed and never finished.
    const sessions = await readThreadSessions(store, thread.number);
    const crashed = sessions.find((s) => s.doc.request.status === 'claimed');
    if (!crashed) return refuse(ctx, `There is no interrupted agent-action session in this thread to continue; nothing was run.`);
    held = { doc: crashed.doc, version: crashed.stored.version };
    answers = crashed.doc.state.open ? (crashed.doc.request.answers ?? []) : [];
  } else {
    const question = await findQuestion(ctx, thread.number);
    if (!question) return refuse(ctx, `There is no open agent-action request in this thread; nothing was run.`);
    const stored = await store.read(question.session);
    if (!stored) return refuse(ctx, `The request this thread asked (session \`${question.session}\`) no longer exists; nothing was run.`, question.session);
    if (!stored.parsed.ok) return fail(ctx, `The saved session \`${question.session}\` cannot be read: ${stored.parsed.error.message}.`, question.session);
    const doc = stored.parsed.doc;
    const r = doc.request;
    if (r.nonce !== question.nonce || (r.commentId !== undefined && r.commentId !== question.id)) {
      return refuse(ctx, `That question is no longer the session's current request (its nonce does not match); nothing was run.`, doc.id);
    }
    if (r.status !== 'open') {
      const by = r.claimedBy ? ` by @${r.claimedBy}${r.claimedAt ? ` at ${r.claimedAt}` : ''}` : '';
      return refuse(ctx, `This request was already handled${by}; nothing more was run.`, doc.id);
    }
    if (now.getTime() > Date.parse(r.expiresAt)) {
      return refuse(ctx, `This request expired at ${r.expiresAt}; nothing was run. Start again with \`${t} ${doc.trigger.command}\`.`, doc.id);
    }
    if (comment.createdAt && Date.parse(comment.createdAt) < Date.parse(question.createdAt)) {
      return refuse(ctx, `This reply was written before the current question; answer the newest question instead. Nothing was run.`, doc.id);
    }
    const directives = parseApprovalReply(comment.body, t);
    const fit = directives.ok ? answersFor(directives.directives, doc.pending) : directives;
    if (!fit.ok) return refuse(ctx, `I could not use this answer: ${fit.error}. Nothing was run; reply again.`, doc.id);
    held = { doc, version: stored.version };
    answers = fit.answers;
  }

  // Claim: one run wins; the loser does nothing (the winner reports in the thread).
  const claimedDoc: SessionDoc = {
    ...held.doc,
    request: { ...held.doc.request, status: 'claimed', claimedBy: requester.login, claimedAt: now.toISOString(), answers },
    updatedAt: now.toISOString(),
  };
  const claim = await store.update(held.doc.id, held.version, claimedDoc);
  if (!claim.ok) {
    ctx.log.notice(`session ${held.doc.id}: already handled by another run (${claim.message})`);
    return skipped('already handled by another run', held.doc.id);
  }
  held = { doc: claimedDoc, version: claim.version };

  try {
    await restoreWorktree(ctx.workspace, held.doc.worktree, { branch: held.doc.branch });
  } catch (e) {
    return fail(ctx, `The work tree of session \`${held.doc.id}\` could not be restored: ${messageOf(e)}`, held.doc.id);
  }

  const command = taskKindOf(held.doc.trigger.command);
  if (!command) return fail(ctx, `Session \`${held.doc.id}\` was started by an unknown command \`${held.doc.trigger.command}\`.`, held.doc.id);
  const prepared = await ctx.prepareRun({ command, instructions: held.doc.trigger.instructions }, held.doc.publish);
  ctx.log.info(`session ${held.doc.id}: resuming with ${answers.map((a) => `${a.id}=${a.kind}`).join(', ') || 'no answers'}`);
  const run = await prepared.agent.resume(held.doc.state, answers, prepared.emit);

  if (run.outcome.status === 'awaiting_approval') return suspendSession(ctx, run as AwaitingRun, prepared, held, deps);

  const result = await ctx.finishRun(run, prepared);
  const finished: SessionDoc = { ...held.doc, state: run.state, request: { ...held.doc.request, status: 'finished' }, updatedAt: new Date().toISOString() };
  const closed = await store.update(held.doc.id, held.version, finished);
  if (!closed.ok) ctx.log.warning(`session ${held.doc.id}: could not mark finished: ${closed.message}`);
  return { ...result, sessionId: held.doc.id, stats: result.stats ?? statsOf(run.state) };
}

/** The HandleApprovalReply main.ts calls for `reply` commands. */
export const handleApprovalReply: HandleApprovalReply = (ctx, reply) => handleApprovalReplyWith(ctx, reply);
