/**
 * `/agent fix` on an issue: the work on a new branch `agent-action/issue-N-<slug>`, pushed first,
 * then a pull request that says `Fixes #N`. The branch is on the remote before anything links it,
 * so an API failure after the push still leaves the work where a person can find it.
 */
import { messageOf } from '../../common/errors.js';
import { redactSecrets } from '../../common/redact.js';
import { assertGit, type GitRemote } from '../../session/git.js';
import type { GitHubClient } from '../github-client.js';
import type { RepoRef } from '../run-context.js';
import { capBody } from './body-cap.js';
import { commitWorktree, pushHead, readRemoteBranchExists } from './commits.js';
import { makeInert, makeInertLine, type MentionBudget } from './inert-text.js';

export interface IssueFixOptions {
  octokit: GitHubClient;
  repo: RepoRef;
  root: string;
  issue: { number: number; title: string };
  baseBranch: string;
  requester: string;
  /** The agent's closing words: the pull request's description. */
  summary: string;
  /** Where to push (read before the model ran), with the token. */
  remote: GitRemote;
  /** False for a prompt run without an issue: no `Fixes #N`. */
  linkIssue?: boolean;
  /** The run's mention budget, shared with its other comments. */
  mentions?: MentionBudget;
  /** Redacted from the commit message and the branch name (the API request is redacted by the client). */
  secrets?: readonly string[];
}

export type IssueFixResult =
  | { status: 'no_changes' }
  | { status: 'opened'; branch: string; pullRequest: number; url: string }
  /** The branch is pushed but the pull request could not be opened. */
  | { status: 'pushed'; branch: string; error: string };

export async function publishIssueFix(o: IssueFixOptions): Promise<IssueFixResult> {
  const link = o.linkIssue !== false && o.issue.number > 0;
  // The issue's title is a stranger's text and the summary the model's: neither may mention anyone.
  const title = makeInertLine(link ? `Fix #${o.issue.number}: ${oneLine(o.issue.title)}` : oneLine(o.issue.title));
  const branch = await pickBranchName(o.root, { ...o.issue, title: redactSecrets(o.issue.title, o.secrets ?? []) }, o.remote);
  await assertGit(o.root, ['checkout', '-q', '-b', branch]);
  const sha = await commitWorktree(o.root, { subject: title, coAuthor: o.requester, secrets: o.secrets });
  if (!sha) return { status: 'no_changes' };
  await pushHead(o.root, branch, { remote: o.remote });
  try {
    const { data } = await o.octokit.rest.pulls.create({
      ...o.repo,
      head: branch,
      base: o.baseBranch,
      title,
      body: `${capBody(makeInert(o.summary.trim(), o.mentions))}${link ? `\n\nFixes #${o.issue.number}` : ''}\n\nRequested by @${o.requester}.`,
    });
    return { status: 'opened', branch, pullRequest: data.number, url: data.html_url };
  } catch (e) {
    return { status: 'pushed', branch, error: messageOf(e) };
  }
}

/** `agent-action/issue-12-crash-on-empty-input`, with a numeric suffix when taken. */
async function pickBranchName(root: string, issue: { number: number; title: string }, remote: GitRemote): Promise<string> {
  const slug = slugOf(issue.title);
  const base = issue.number > 0 ? `agent-action/issue-${issue.number}${slug ? `-${slug}` : ''}` : `agent-action/task-${slug || 'change'}`;
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

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 100);
