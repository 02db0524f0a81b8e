/**
 * Publishing's first step, for the runs that edit (fix, prompt): the agent's changes as one commit
 * (commits.ts: never what earlier steps left, never a file GitHub would refuse), then delivered by
 * where the run is. A same-repository pull request: pushed to its head branch, fast-forward on top of
 * the head the agent worked on (replayed onto it if the head moved). A fork's pull request:
 * suggestions or a branch and pull request of this repository (fork-changes.ts). An issue or a
 * prompt: a new branch and a pull request. No change: nothing is committed, pushed or opened, and
 * the run says so.
 */
import { messageOf } from '../../common/errors.js';
import type { ActionResult, RunContext, AgentTask } from '../run-context.js';
import type { ThreadInfo } from '../task-context.js';
import { listOf } from '../work-tree.js';
import { apiOf } from './api-commit.js';
import { commitWorktree, GITHUB_MAX_FILE_BYTES, pushHead, type CommitResult, type LeftOut } from './commits.js';
import { publishForkChanges } from './fork-changes.js';
import { makeInert, type MentionBudget } from './inert-text.js';
import { issueFixTitle, publishIssueFix } from './pull-request.js';

export interface ChangesInput {
  task: AgentTask;
  info?: ThreadInfo;
  /** The model's closing text: the commit body, the review's or the pull request's summary. */
  finalText: string;
  /** The commands the agent ran and their exit codes (command-checks.ts), for a pull request's body; '' for none. */
  checks?: string;
  mentions: MentionBudget;
  /** Filled in: `branch`, `reviewId`, `pullRequest`, as the changes were published. */
  result: ActionResult;
  /** Appended to: what went wrong (the run goes on to publish the rest). */
  problems: string[];
}

/** Commits and delivers the agent's changes, if it made any; a failure becomes a problem, not an exception. */
export async function publishChanges(ctx: RunContext, c: ChangesInput): Promise<void> {
  await ctx.log.group('publish: changes', async () => {
    try {
      const commit = await commitWorktree(ctx.workspace, {
        subject: subjectOf(ctx, c),
        body: c.info?.pull ? makeInert(c.finalText.slice(0, 2000)) : undefined,
        coAuthor: ctx.requester.login,
        start: ctx.workTree,
        maxFileBytes: ctx.settings.maxFileBytes,
        secrets: ctx.secrets,
      });
      for (const line of leftOutNotes(commit.leftOut)) ctx.progress.note(line);
      if (!commit.sha) {
        const why = commit.leftOut.some((l) => l.reason !== 'leftover')
          ? 'The agent changed no file that can be committed'
          : 'The agent changed no files';
        ctx.progress.note(`${why}: nothing was committed, pushed or opened.`);
        ctx.log.notice(`${why}: nothing was committed, pushed or opened.`);
        return;
      }
      await deliver(ctx, c, { ...commit, sha: commit.sha });
    } catch (e) {
      c.problems.push(`Publishing the changes failed: ${messageOf(e)}`);
    }
  });
}

async function deliver(ctx: RunContext, c: ChangesInput, commit: CommitResult & { sha: string }): Promise<void> {
  const { result, problems } = c;
  const thread = ctx.thread;
  const pull = c.info?.pull;
  if (pull && thread && pull.isFork) {
    const title = c.info?.context.title ?? `pull request ${thread.number}`;
    return publishForkChanges(ctx, {
      commit,
      pull: { ...pull, number: thread.number, title },
      finalText: c.finalText,
      checks: c.checks ?? '',
      mentions: c.mentions,
      result,
      problems,
    });
  }
  if (pull) {
    const pushed = await pushHead(ctx.workspace, pull.headRef, { remote: ctx.remote, ...apiOf(ctx) });
    if (pushed.rebased)
      ctx.progress.note(
        `\`${pull.headRef}\` moved while the agent worked: its commit was rebased onto the new head and pushed.`,
      );
    result.branch = pull.headRef;
    return;
  }
  const fix = await publishIssueFix({
    octokit: ctx.octokit,
    repo: ctx.repo,
    root: ctx.workspace,
    issue: issueOf(ctx, c),
    baseBranch: ctx.settings.baseBranch ?? (await readDefaultBranch(ctx)),
    branchPrefix: ctx.settings.branchPrefix,
    requester: ctx.requester.login,
    summary: c.finalText,
    checks: c.checks ?? '',
    linkIssue: Boolean(thread),
    mentions: c.mentions,
    remote: ctx.remote,
    secrets: ctx.secrets,
    ...apiOf(ctx),
  });
  result.branch = fix.branch;
  if (fix.status === 'opened') result.pullRequest = fix.pullRequest;
  else problems.push(`The branch \`${fix.branch}\` was pushed, but the pull request could not be opened: ${fix.error}`);
}

/** The commit's subject: a pull request's fix says what it is; an issue fix is titled like its pull request. */
function subjectOf(ctx: RunContext, c: ChangesInput): string {
  const n = ctx.thread?.number;
  if (c.info?.pull)
    return `agent-action: ${c.task.command}${n ? ` (#${n})` : ''}${c.task.instructions ? `: ${c.task.instructions.split('\n')[0].slice(0, 60)}` : ''}`;
  return issueFixTitle(issueOf(ctx, c), Boolean(ctx.thread));
}

const issueOf = (ctx: RunContext, c: ChangesInput) => ({
  number: ctx.thread?.number ?? 0,
  title: ctx.thread
    ? (c.info?.context.title ?? `issue ${ctx.thread.number}`)
    : (c.task.instructions ?? 'agent-action task'),
});

/** One note per reason, naming the files. */
function leftOutNotes(leftOut: readonly LeftOut[]): string[] {
  const notes: string[] = [];
  const edited = leftOut.filter((l) => l.reason === 'leftover-edited');
  if (edited.length) {
    notes.push(
      `Left out of the commit: ${listOf(edited)}, which earlier steps of the job had changed before the agent started; the agent's edits to ${edited.length === 1 ? 'it stay' : 'them stay'} in the work tree, uncommitted.`,
    );
  }
  for (const l of leftOut) {
    if (l.reason !== 'too-large') continue;
    const which =
      l.limit < GITHUB_MAX_FILE_BYTES
        ? `the max-file-size input (${formatBytes(l.limit)})`
        : `GitHub's file size limit (${formatBytes(l.limit)})`;
    notes.push(
      `Left out of the commit: \`${l.path}\` (${formatBytes(l.bytes)}) is over ${which}; it stays in the work tree.`,
    );
  }
  return notes;
}

/** 1536 -> "1.5 KiB"; bytes as GitHub counts them (MiB). */
function formatBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} bytes` : `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[u]}`;
}

async function readDefaultBranch(ctx: RunContext): Promise<string> {
  const { data } = await ctx.octokit.rest.repos.get({ ...ctx.repo });
  return data.default_branch;
}
