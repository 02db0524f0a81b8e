/**
 * A branch of the agent's own and a pull request from it: for `/agent fix` on an issue (or a prompt),
 * `agent-action/issue-N-<slug>` from the commit checked out; for a fork's pull request, which the token
 * cannot push to, `agent-action/pr-N-<slug>` from the fork's head (src/action/publish/fork-changes.ts).
 * The agent's commit is HEAD already (commits.ts). The branch is pushed first, then the pull request
 * opened, so an API failure after the push still leaves the work where a person can find it.
 */
import { messageOf } from '../../common/errors.js';
import { oneLine } from '../../common/text.js';
import { redactSecrets } from '../../common/redact.js';
import { assertGit, type GitRemote } from '../../git/git.js';
import type { GitHubClient } from '../github-client.js';
import type { RepoRef } from '../run-context.js';
import type { ApiTarget } from './api-commit.js';
import { capBody } from './body-cap.js';
import { pushHead, readRemoteBranchExists } from './commits.js';
import { makeInert, makeInertLine, type MentionBudget } from './inert-text.js';

export interface BranchPullOptions {
  octokit: GitHubClient;
  repo: RepoRef;
  root: string;
  /** The branch name before a free suffix is found (`agent-action/issue-12-crash`). */
  branchBase: string;
  /** The pull request's base branch. */
  baseBranch: string;
  title: string;
  /** The description, posted as it is (the caller made the model's words in it inert). */
  body: string;
  /** Where to push (read before the model ran), with the token. */
  remote: GitRemote;
  /** Redacted from the branch name (the API request is redacted by the client). */
  secrets?: readonly string[];
  /** `commit-signing: true`: the branch is created through GitHub's API (api-commit.ts), no git push. */
  api?: ApiTarget;
}

export type BranchPullResult =
  | { status: 'opened'; branch: string; pullRequest: number; url: string }
  /** The branch is pushed but the pull request could not be opened. */
  | { status: 'pushed'; branch: string; error: string };

/** Pushes HEAD to a new branch and opens a pull request from it. */
export async function publishBranchPull(o: BranchPullOptions): Promise<BranchPullResult> {
  const branch = await pickBranchName(o.root, redactSecrets(o.branchBase, o.secrets ?? []), o.remote);
  await assertGit(o.root, ['checkout', '-q', '-b', branch]);
  await pushHead(o.root, branch, { remote: o.remote, isNew: true, ...(o.api ? { api: o.api } : {}) });
  try {
    const { data } = await o.octokit.rest.pulls.create({
      ...o.repo,
      head: branch,
      base: o.baseBranch,
      title: o.title,
      body: capBody(o.body),
    });
    return { status: 'opened', branch, pullRequest: data.number, url: data.html_url };
  } catch (e) {
    return { status: 'pushed', branch, error: messageOf(e) };
  }
}

export interface IssueFixOptions extends Omit<BranchPullOptions, 'branchBase' | 'title' | 'body'> {
  issue: { number: number; title: string };
  /** The `branch-prefix` input (`agent-action/`). */
  branchPrefix: string;
  requester: string;
  /** The agent's closing words: the pull request's description. */
  summary: string;
  /** The commands the agent ran, rendered (command-checks.ts); '' for none. */
  checks?: string;
  /** False for a prompt run without an issue: no `Fixes #N`. */
  linkIssue?: boolean;
  /** The run's mention budget, shared with its other comments. */
  mentions?: MentionBudget;
}

/** `Fix #12: Crash on empty input`: the title of an issue fix's commit and of its pull request. */
export function issueFixTitle(issue: { number: number; title: string }, linkIssue = true): string {
  // The issue's title is a stranger's text: it may not mention anyone.
  return makeInertLine(
    linkIssue && issue.number > 0 ? `Fix #${issue.number}: ${oneLine(issue.title, 100)}` : oneLine(issue.title, 100),
  );
}

/** `/agent fix` on an issue: `<prefix>issue-N-<slug>` and a pull request that says `Fixes #N`. */
export function publishIssueFix(o: IssueFixOptions): Promise<BranchPullResult> {
  const link = o.linkIssue !== false && o.issue.number > 0;
  const slug = slugOf(o.issue.title);
  const branchBase =
    o.issue.number > 0
      ? `${o.branchPrefix}issue-${o.issue.number}${slug ? `-${slug}` : ''}`
      : `${o.branchPrefix}task-${slug || 'change'}`;
  const checks = o.checks ? `\n\n${o.checks}` : '';
  const body = `${makeInert(o.summary.trim(), o.mentions)}${checks}${link ? `\n\nFixes #${o.issue.number}` : ''}\n\nRequested by @${o.requester}.`;
  return publishBranchPull({ ...o, branchBase, title: issueFixTitle(o.issue, link), body });
}

/** `base`, or `base-2`, `base-3`... when taken. */
async function pickBranchName(root: string, base: string, remote: GitRemote): Promise<string> {
  for (let i = 1; i < 100; i++) {
    const name = i === 1 ? base : `${base}-${i}`;
    if (!(await readRemoteBranchExists(root, name, remote))) return name;
  }
  return `${base}-${Date.now()}`;
}

export const slugOf = (title: string): string =>
  title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents off: "Ünïcode" -> "unicode"
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
