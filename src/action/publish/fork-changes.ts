/**
 * `/agent fix` on a pull request from a fork. The workflow's token cannot push to a fork, so the
 * agent's commit (on top of the fork's head) is delivered where a maintainer takes it in one click:
 *
 * - a small change that falls inside the pull request's diff (only lines of files the pull request
 *   changes, text, at most MAX_SUGGESTIONS hunks and MAX_SUGGESTED_LINES new lines): one review
 *   whose comments are suggestion blocks ("Commit suggestion", or a batch of them);
 * - anything larger: a branch in the base repository, `agent-action/pr-N-<slug>`, holding the fork's
 *   commits and the agent's on top, and a pull request from it into the same base, linked from the
 *   fork's pull request.
 *
 * If the branch cannot be pushed (a token without `contents: write`), the change still reaches the
 * thread: suggestions where they fit and the whole patch, collapsed, in the review's body.
 */
import { messageOf } from '../../common/errors.js';
import { oneLine } from '../../common/text.js';
import { assertGit } from '../../git/git.js';
import { readTreeChanges, type TreeChange } from '../../git/tree.js';
import type { RecordedReviewComment } from '../../tools/github/recorder.js';
import type { ActionResult, RunContext } from '../run-context.js';
import type { ThreadInfo } from '../task-context.js';
import { makeInert, makeInertLine, type MentionBudget } from './inert-text.js';
import { apiOf } from './api-commit.js';
import { publishBranchPull, slugOf } from './pull-request.js';
import { collapsedPatch, publishReview, readPullDiffSides, suggestionsFromDiff, type DiffSides } from './review.js';

/** Most suggestion blocks in one review, and most new lines in them all: past that, a branch reads better. */
const MAX_SUGGESTIONS = 10;
const MAX_SUGGESTED_LINES = 40;

export interface ForkChangesInput {
  /** The agent's commit (HEAD) and the fork's head it sits on. */
  commit: { sha: string; parent: string };
  pull: NonNullable<ThreadInfo['pull']> & { number: number; title: string };
  finalText: string;
  /** The commands the agent ran, rendered (command-checks.ts); '' for none. */
  checks: string;
  mentions: MentionBudget;
  result: ActionResult;
  problems: string[];
}

const TEXT_MODES = new Set(['100644', '100755']);

/** Suggestions for the whole change, or undefined when it is not small or not all inside the diff. */
function planSuggestions(
  diff: string,
  changes: readonly TreeChange[],
  files: ReadonlyMap<string, DiffSides>,
): RecordedReviewComment[] | undefined {
  if (changes.some((c) => c.status !== 'M' || !c.mode || !TEXT_MODES.has(c.mode))) return undefined;
  const { comments, rest } = suggestionsFromDiff(diff, files);
  const lines = comments.reduce((n, c) => n + (c.suggestion === '' ? 0 : (c.suggestion ?? '').split('\n').length), 0);
  // A file with no hunk (binary, mode only) would be lost from a review: every changed file must have one.
  const covered = new Set(comments.map((c) => c.path));
  if (rest.length > 0 || comments.length === 0 || comments.length > MAX_SUGGESTIONS || lines > MAX_SUGGESTED_LINES)
    return undefined;
  return changes.every((c) => covered.has(c.path)) ? comments : undefined;
}

export async function publishForkChanges(ctx: RunContext, f: ForkChangesInput): Promise<void> {
  const { commit, pull, result } = f;
  const root = ctx.workspace;
  const changes = await readTreeChanges(root, commit.parent, commit.sha);
  const zeroContext = await assertGit(root, [
    'diff-tree',
    '-r',
    '-p',
    '-U0',
    '--no-renames',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    commit.parent,
    commit.sha,
  ]);
  const files = await readPullDiffSides(ctx.octokit, ctx.repo, pull.number);
  const suggestions = planSuggestions(zeroContext, changes, files);
  if (suggestions) {
    const review = await publishReview({
      octokit: ctx.octokit,
      repo: ctx.repo,
      pull: pull.number,
      commitId: commit.parent,
      summary: f.finalText,
      comments: suggestions,
      files,
      mentions: f.mentions,
    });
    result.reviewId = review.reviewId;
    ctx.progress.note(
      `#${pull.number} comes from a fork, which this workflow cannot push to: the change is in a review, as ${suggestions.length === 1 ? 'a suggestion' : `${suggestions.length} suggestions`} to commit.`,
    );
    return;
  }
  try {
    const opened = await publishBranchPull({
      octokit: ctx.octokit,
      repo: ctx.repo,
      root,
      remote: ctx.remote,
      secrets: ctx.secrets,
      ...apiOf(ctx),
      branchBase: `${ctx.settings.branchPrefix}pr-${pull.number}${slugOf(pull.title) ? `-${slugOf(pull.title)}` : ''}`,
      baseBranch: pull.baseRef,
      title: makeInertLine(`${oneLine(pull.title, 100)} (#${pull.number}, with agent-action's change)`),
      body: forkPullBody(ctx, f),
    });
    result.branch = opened.branch;
    if (opened.status === 'pushed') {
      f.problems.push(
        `The branch \`${opened.branch}\` was pushed, but the pull request could not be opened: ${opened.error}`,
      );
      return;
    }
    result.pullRequest = opened.pullRequest;
    ctx.progress.note(
      `#${pull.number} comes from a fork, which this workflow cannot push to: the change is in #${opened.pullRequest} (branch \`${opened.branch}\` of this repository: #${pull.number}'s commits with the agent's on top).`,
    );
  } catch (e) {
    // No branch (a read-only token, say): the change goes to the thread as a review instead.
    f.problems.push(`The change could not be pushed to a branch of this repository: ${messageOf(e)}`);
    await publishPatchReview(ctx, f, { zeroContext, files });
  }
}

function forkPullBody(ctx: RunContext, f: ForkChangesInput): string {
  const { pull, commit } = f;
  const summary = makeInert(f.finalText.trim(), f.mentions);
  return (
    `${summary ? `${summary}\n\n` : ''}This is #${pull.number} (its head, ${commit.parent.slice(0, 12)}) with agent-action's change on top: ` +
    `#${pull.number} comes from a fork, which this workflow's token cannot push to. Merging this pull request merges #${pull.number}'s commits and the change; ` +
    `merged with a merge commit, #${pull.number}'s commits land as they are and GitHub closes it as merged.${f.checks ? `\n\n${f.checks}` : ''}\n\nRequested by @${ctx.requester.login}.`
  );
}

/** The fallback: suggestions where a hunk fits the diff, and the whole patch collapsed in the body. */
async function publishPatchReview(
  ctx: RunContext,
  f: ForkChangesInput,
  diff: { zeroContext: string; files: ReadonlyMap<string, DiffSides> },
): Promise<void> {
  const { zeroContext, files } = diff;
  const { commit, pull } = f;
  try {
    const full = await assertGit(ctx.workspace, [
      'diff-tree',
      '-r',
      '-p',
      '--binary',
      '--no-renames',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      commit.parent,
      commit.sha,
    ]);
    const { comments } = suggestionsFromDiff(zeroContext, files);
    const appendix = `This pull request comes from a fork, which this workflow cannot push to. The whole change:\n\n${collapsedPatch(full)}`;
    const review = await publishReview({
      octokit: ctx.octokit,
      repo: ctx.repo,
      pull: pull.number,
      commitId: commit.parent,
      summary: f.finalText,
      comments,
      files,
      appendix,
      mentions: f.mentions,
    });
    f.result.reviewId = review.reviewId;
  } catch (e) {
    f.problems.push(`The review with the change could not be posted: ${messageOf(e)}`);
  }
}
