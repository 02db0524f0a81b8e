/**
 * Publishing's first step, for the runs that edit (fix, prompt): the work tree's changes, committed
 * to a same-repository pull request, offered as suggestions (and a patch) on a fork's pull request,
 * or pushed to a new branch with a pull request for an issue or a prompt. publish-run.ts loads this
 * module only for those commands, so a question or a review never loads the commit and pull-request code.
 */
import { messageOf } from '../../common/errors.js';
import { assertGit } from '../../session/git.js';
import type { ActionResult, ActionRunContext, AgentTask } from '../run-context.js';
import type { ThreadInfo } from '../task-context.js';
import { commitWorktree, pushHead, readHasChanges } from './commits.js';
import { makeInert, type MentionBudget } from './inert-text.js';
import { publishIssueFix } from './pull-request.js';
import { collapsedPatch, publishReview, readPullDiffSides, suggestionsFromDiff } from './review.js';

export interface ChangesInput {
  task: AgentTask;
  info?: ThreadInfo;
  /** The model's closing text: the commit body, the review's or the pull request's summary. */
  finalText: string;
  mentions: MentionBudget;
  /** Filled in: `branch`, `reviewId`, `pullRequest`, as the changes were published. */
  result: ActionResult;
  /** Appended to: what went wrong (the run goes on to publish the rest). */
  problems: string[];
}

/** Pushes (or suggests) the work tree's changes, if it has any; a failure to publish them becomes a problem, not an exception. */
export async function publishChanges(ctx: ActionRunContext, c: ChangesInput): Promise<void> {
  if (!(await readHasChanges(ctx.workspace))) return;
  const { result, problems, finalText, mentions } = c;
  const thread = ctx.thread;
  const pull = c.info?.pull;
  await ctx.log.group('publish: changes', async () => {
    try {
      if (pull && !pull.isFork) {
        await commitWorktree(ctx.workspace, { subject: commitSubject(c.task, thread?.number), body: makeInert(finalText.slice(0, 2000)), coAuthor: ctx.requester.login, secrets: ctx.secrets });
        await pushHead(ctx.workspace, pull.headRef, { remote: ctx.remote });
        result.branch = pull.headRef;
      } else if (pull?.isFork) {
        await assertGit(ctx.workspace, ['add', '-A', '--intent-to-add']);
        const diff = await assertGit(ctx.workspace, ['diff', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', 'HEAD']);
        const full = await assertGit(ctx.workspace, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--binary', 'HEAD']);
        const files = await readPullDiffSides(ctx.octokit, ctx.repo, thread!.number);
        const { comments, rest } = suggestionsFromDiff(diff, files);
        const appendix = rest.length ? `This pull request comes from a fork, which this workflow cannot push to. The rest of the change:\n\n${collapsedPatch(full)}` : undefined;
        const review = await publishReview({ octokit: ctx.octokit, repo: ctx.repo, pull: thread!.number, commitId: pull.headSha, summary: finalText, comments, files, appendix, mentions });
        result.reviewId = review.reviewId;
      } else {
        const title = thread ? (c.info?.context.title ?? `issue ${thread.number}`) : (c.task.instructions ?? 'agent-action task');
        const fix = await publishIssueFix({
          octokit: ctx.octokit,
          repo: ctx.repo,
          root: ctx.workspace,
          issue: { number: thread?.number ?? 0, title },
          baseBranch: await readDefaultBranch(ctx),
          requester: ctx.requester.login,
          summary: finalText,
          linkIssue: Boolean(thread),
          mentions,
          remote: ctx.remote,
          secrets: ctx.secrets,
        });
        if (fix.status !== 'no_changes') result.branch = fix.branch;
        if (fix.status === 'opened') result.pullRequest = fix.pullRequest;
        if (fix.status === 'pushed') problems.push(`The branch \`${fix.branch}\` was pushed, but the pull request could not be opened: ${fix.error}`);
      }
    } catch (e) {
      problems.push(`Publishing the changes failed: ${messageOf(e)}`);
    }
  });
}

const commitSubject = (task: AgentTask, n?: number) => `agent-action: ${task.command}${n ? ` (#${n})` : ''}${task.instructions ? `: ${task.instructions.split('\n')[0].slice(0, 60)}` : ''}`;

async function readDefaultBranch(ctx: ActionRunContext): Promise<string> {
  const { data } = await ctx.octokit.rest.repos.get({ ...ctx.repo });
  return data.default_branch;
}
