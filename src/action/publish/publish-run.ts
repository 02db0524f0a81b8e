/**
 * Publishing, once, at the end of a run that did not suspend: the work tree's changes (commit to a
 * same-repository pull request, suggestions or a patch for a fork, a branch and pull request for an
 * issue or a prompt), the review, labels and replies the model recorded. Pushes come before any
 * comment that links them, so an API failure afterwards keeps the work.
 */
import { messageOf } from '../../common/errors.js';
import type { AgentRun } from '../../compose/prepare-agent.js';
import type { Outcome } from '../../core/events.js';
import { PUBLISH_LIMITS, type PublishRecord } from '../../tools/github/recorder.js';
import { formatMarker } from '../markers.js';
import { missingScopeIn, withPermissionHint } from '../permissions.js';
import type { ActionResult, RunContext, AgentTask } from '../run-context.js';
import { threadTopOf, type ThreadInfo } from '../task-context.js';
import { capBody } from './body-cap.js';
import { createMentionBudget, makeInert, type MentionBudget } from './inert-text.js';
import { publishLabels, readAllowedLabels } from './labels.js';
import { publishChanges } from './publish-changes.js';
import { publishReview, readPullDiffSides } from './review.js';
import { isoTime } from '../../common/time.js';

export interface PublishInput {
  run: AgentRun;
  task: AgentTask;
  record: PublishRecord;
  info?: ThreadInfo;
  stats: ActionResult['stats'];
}

export async function publishRun(ctx: RunContext, p: PublishInput): Promise<ActionResult> {
  const { outcome } = p.run;
  const finalText = outcome.status === 'success' ? outcome.finalText : '';
  const result: ActionResult = {
    status: outcome.status === 'success' ? 'success' : 'failed',
    summary: summaryOf(outcome),
    stats: p.stats,
  };
  const problems: string[] = [];
  const edits = p.task.command === 'fix' || p.task.command === 'prompt';
  // One budget for every comment of the run: mentions neutralized, at most MAX_MENTIONS_PER_RUN kept.
  const mentions = createMentionBudget();
  const s: PublishState = { ctx, p, thread: ctx.thread, finalText, mentions, result, problems };

  // 1. The work tree: pushed before anything links it. Kept even when the loop hit a limit.
  if (edits) {
    await publishChanges(ctx, { task: p.task, info: p.info, finalText, mentions, result, problems });
  }
  await publishRunReview(s);
  await publishRunLabels(s);
  await publishReplies(s);
  foldProblems(ctx, result, problems);
  return result;
}

/** What the publishing steps share: the result they fill in and the problems they collect. */
interface PublishState {
  ctx: RunContext;
  p: PublishInput;
  /** ctx.thread, read once at the start of publishing. */
  thread: RunContext['thread'];
  finalText: string;
  mentions: MentionBudget;
  result: ActionResult;
  problems: string[];
}

// 2. The review the model recorded (pull requests only; one batched review). A review command that
// succeeded posts its summary as a review even when it recorded no inline comments.
async function publishRunReview(s: PublishState): Promise<void> {
  const { ctx, p, thread, result } = s;
  if (!thread?.isPullRequest || result.reviewId !== undefined) return;
  const recorded = p.record.reviewComments.length > 0;
  if (!recorded && !(p.task.command === 'review' && p.run.outcome.status === 'success')) return;
  try {
    const files = recorded ? await readPullDiffSides(ctx.octokit, ctx.repo, thread.number) : new Map();
    const review = await publishReview({
      octokit: ctx.octokit,
      repo: ctx.repo,
      pull: thread.number,
      commitId: p.info?.pull?.headSha,
      summary: s.finalText,
      comments: recorded ? p.record.reviewComments : [],
      files,
      mentions: s.mentions,
    });
    result.reviewId = review.reviewId;
  } catch (e) {
    s.problems.push(`The review could not be posted: ${messageOf(e)}`);
  }
}

// 3. Labels, only those on the allow-list (never the ones that start agent runs, by default). A
// triage of an issue that ran (to its end or to a limit, as a shard counts it) also leaves the
// durable marker the nightly plan skips by: the triaged label here, and the marker in the progress
// comment's last edit (result.triaged), after every other write.
async function publishRunLabels(s: PublishState): Promise<void> {
  const { ctx, p, thread, result } = s;
  const { status } = p.run.outcome;
  const triaged =
    p.task.command === 'triage' &&
    thread !== undefined &&
    !thread.isPullRequest &&
    (status === 'success' || status === 'limit');
  if (!thread || (p.record.labels === undefined && !triaged)) return;
  try {
    const allowed = await readAllowedLabels(ctx.octokit, ctx.repo, ctx.settings);
    const own = triaged ? [ctx.settings.triage.triagedLabel] : [];
    const { applied, dropped } = await publishLabels({
      octokit: ctx.octokit,
      repo: ctx.repo,
      issue: thread.number,
      wanted: (p.record.labels ?? []).slice(0, PUBLISH_LIMITS.labels),
      allowed,
      own,
    });
    result.labels = applied;
    if (triaged && ctx.settings.triage.triagedLabel) result.triaged = { seen: p.info?.updatedAt ?? isoTime() };
    if (dropped.length)
      ctx.log.notice(`labels not allowed for the agent or not in the repository, not applied: ${dropped.join(', ')}`);
  } catch (e) {
    s.problems.push(`Labels could not be applied: ${messageOf(e)}`);
  }
}

// 4. Replies (capped again: a record may come from a saved session); a question's answer is the
// final text when the model recorded none.
async function publishReplies(s: PublishState): Promise<void> {
  const { ctx, p, thread } = s;
  const replies = p.record.replies.slice(0, PUBLISH_LIMITS.replies);
  if (replies.length === 0 && p.task.command === 'question' && s.finalText) replies.push(s.finalText);
  if (!thread) return;
  // Asked in a review thread: answered in that thread (the replies endpoint takes its first comment).
  const inReview = ctx.trigger.comment?.kind === 'review' ? ctx.trigger.comment : undefined;
  for (const body of replies) {
    const text = `${capBody(makeInert(body, s.mentions))}\n\n${formatMarker('reply')}`;
    try {
      if (inReview)
        await ctx.octokit.rest.pulls.createReplyForReviewComment({
          ...ctx.repo,
          pull_number: thread.number,
          comment_id: threadTopOf(inReview),
          body: text,
        });
      else await ctx.octokit.rest.issues.createComment({ ...ctx.repo, issue_number: thread.number, body: text });
    } catch (e) {
      s.problems.push(`A reply could not be posted: ${messageOf(e)}`);
    }
  }
}

/** The problems, if any, logged and listed in the summary; they may fail the run. */
function foldProblems(ctx: RunContext, result: ActionResult, problems: string[]): void {
  if (!problems.length) return;
  // A git push refused with 403 says nothing of `permissions:`; the API's refusals already name the scope.
  const lines = problems.map(withPermissionHint);
  for (const pr of lines) ctx.log.warning(pr);
  const list = lines.map((x) => `- ${x}`).join('\n');
  // A write the token's permissions refused fails the run whatever else was published: the
  // workflow needs fixing. Its reason comes first (the failure annotation is the first line).
  if (lines.some((x) => missingScopeIn(x))) {
    result.status = 'failed';
    result.summary = `${list}\n\n${result.summary}`;
  } else {
    result.summary = `${result.summary}\n\n${list}`;
    if (result.status === 'success' && !result.branch && !result.reviewId && !result.labels) result.status = 'failed';
  }
}

function summaryOf(o: Outcome): string {
  switch (o.status) {
    case 'success':
      return o.finalText.trim() || 'Done.';
    case 'limit':
      return `Stopped at a limit (${o.which}): ${o.message}. What was done so far is published.`;
    case 'error':
      return `Failed: ${o.error.message}`;
    case 'cancelled':
      return 'Cancelled.';
    case 'awaiting_approval':
      return 'Waiting for a maintainer.';
  }
}
