/**
 * The issue or pull request the agent acts on, read from the API into the context layer's
 * TaskContext (which sanitizes, fences and cuts it to what was written before the trigger).
 */
import type { ChangedFile, ReviewThreadContext, TaskComment, TaskContext } from '../context/task-context.js';
import type { CommentRef, Thread } from './event-command.js';
import type { GitHubClient } from './github-client.js';
import type { RepoRef } from './run-context.js';
import { isoTime } from '../common/time.js';

interface PullInfo {
  headRef: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  /** The head lives in another repository: the token cannot push to it. */
  isFork: boolean;
  state: string;
}

export interface ThreadInfo {
  context: TaskContext;
  pull?: PullInfo;
  /** The issue's updated_at as read: a triage's marker records what it saw (triage-marker.ts). */
  updatedAt?: string;
}

export interface ThreadInfoOptions {
  trigger?: CommentRef;
  requester?: string;
  availableLabels?: string[];
}

export async function readThreadInfo(
  octokit: GitHubClient,
  repo: RepoRef,
  o: ThreadInfoOptions & { thread: Thread },
): Promise<ThreadInfo> {
  const { thread } = o;
  const { data: issue } = await octokit.rest.issues.get({ ...repo, issue_number: thread.number });
  const raw = await octokit.paginate(octokit.rest.issues.listComments, {
    ...repo,
    issue_number: thread.number,
    per_page: 100,
  });
  const context = taskContextOf(thread, issue, { ...o, comments: raw });
  if (!thread.isPullRequest) return { context, updatedAt: issue.updated_at };

  const { data: pr } = await octokit.rest.pulls.get({ ...repo, pull_number: thread.number });
  const files = await octokit.paginate(octokit.rest.pulls.listFiles, {
    ...repo,
    pull_number: thread.number,
    per_page: 100,
  });
  context.baseRef = pr.base.ref;
  context.headRef = pr.head.ref;
  if (pr.merged_at) context.state = 'merged';
  context.changedFiles = files.map((f): ChangedFile => ({
    path: f.filename,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    previousPath: f.previous_filename,
    patch: f.patch,
  }));
  if (o.trigger?.kind === 'review' && o.trigger.path)
    context.reviewThread = await readReviewThread(octokit, repo, { pull: thread.number, trigger: o.trigger });
  const pull: PullInfo = {
    headRef: pr.head.ref,
    headSha: pr.head.sha,
    baseRef: pr.base.ref,
    baseSha: pr.base.sha,
    isFork: (pr.head.repo?.full_name ?? '') !== `${repo.owner}/${repo.repo}`,
    state: pr.state,
  };
  return { context, pull };
}

/**
 * The review thread a review comment belongs to: its place (from the event) and the thread's other
 * comments (from the API: the thread's first comment and the replies to it). Which of them were
 * written before the trigger is the context layer's to decide, as for the conversation.
 */
async function readReviewThread(
  octokit: GitHubClient,
  repo: RepoRef,
  { pull, trigger }: { pull: number; trigger: CommentRef },
): Promise<ReviewThreadContext> {
  const top = threadTopOf(trigger);
  const all = await octokit.paginate(octokit.rest.pulls.listReviewComments, {
    ...repo,
    pull_number: pull,
    per_page: 100,
  });
  const inThread = all.filter((c) => c.id !== trigger.id && (c.id === top || c.in_reply_to_id === top));
  const p = trigger.place ?? {};
  return {
    path: trigger.path ?? '',
    line: trigger.line,
    side: p.side,
    startLine: p.startLine,
    startSide: p.startSide,
    diffHunk: p.diffHunk,
    comments: inThread.map((c) => ({
      author: c.user?.login ?? 'ghost',
      body: c.body,
      createdAt: c.created_at,
      updatedAt: c.updated_at,
    })),
  };
}

/** A review thread is named by its first comment: the replies endpoint takes that one, not a reply. */
export const threadTopOf = (c: CommentRef): number => c.place?.inReplyTo ?? c.id;

/** The REST fields of an issue and of its comments that the task context reads. */
export interface IssueFields {
  title: string;
  body?: string | null;
  state: string;
  user?: { login?: string } | null;
  labels: ReadonlyArray<string | { name?: string | null }>;
}
export interface CommentFields {
  id: number;
  body?: string | null;
  created_at: string;
  updated_at: string;
  user?: { login?: string } | null;
}

/** Pure: an issue and its comments (as the REST API gives them) as the context layer's TaskContext. */
export function taskContextOf(
  thread: Thread,
  issue: IssueFields,
  o: ThreadInfoOptions & { comments: readonly CommentFields[] },
): TaskContext {
  const raw = o.comments;
  const { trigger, availableLabels } = o;
  const comments: TaskComment[] = raw
    .filter((c) => c.id !== trigger?.id)
    .map((c) => ({
      author: c.user?.login ?? 'ghost',
      body: c.body ?? '',
      createdAt: c.created_at,
      updatedAt: c.updated_at,
    }));
  return {
    kind: thread.isPullRequest ? 'pull_request' : 'issue',
    number: thread.number,
    title: issue.title,
    body: issue.body ?? '',
    labels: issue.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean),
    author: issue.user?.login ?? 'ghost',
    state: issue.state === 'closed' ? 'closed' : 'open',
    comments,
    trigger: trigger
      ? { author: o.requester ?? '', body: trigger.body, createdAt: trigger.createdAt ?? isoTime() }
      : undefined,
    availableLabels: availableLabels?.map((name) => ({ name })),
  };
}
