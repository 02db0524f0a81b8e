/**
 * The agent's commit, and its push. The commit holds what the agent changed and nothing else: not
 * what earlier steps of the job left in the work tree (recorded before the agent started,
 * src/action/work-tree.ts), even when the agent edited it afterwards, and not a file over GitHub's
 * 100 MiB limit or the `max-file-size` input (GitHub refuses the whole push for one such file). What
 * is left out stays in the work tree, and is returned with the reason, for the run's notes.
 *
 * The commit is built with plumbing (a throwaway index, commit-tree) on top of HEAD, which is then
 * detached at it: no local branch moves, nothing of the index or work tree is lost. The identity is
 * set explicitly (runners have none); the person who asked is credited as co-author.
 *
 * A push is never forced. When the branch moved while the agent worked, the agent's commit is
 * replayed onto its new tip (a rebase of one commit, src/session/git-tree.ts's replayCommit) and
 * pushed again: fast-forward, never a merge commit. A conflict names the files and pushes nothing.
 *
 * Every git process is src/session/git.ts's: the repository's config runs nothing, and the token
 * reaches only the push and fetch processes, through their environment.
 */
import { AgentError } from '../../common/errors.js';
import { redactSecrets } from '../../common/redact.js';
import { assertGit, GIT_REMOTE, runGit, type GitRemote } from '../../git/git.js';
import {
  fetchForWork,
  readBlobSizes,
  readCommitParts,
  readTreeChanges,
  replayCommit,
  tryReadCommit,
  writeCommit,
  writeTreeWith,
  type TreeChange,
} from '../../git/tree.js';
import { writeWorktreeTree } from '../../session/worktree.js';
import type { WorkTreeStart } from '../work-tree.js';
import { sendCommitByApi, type ApiSend, type ApiTarget } from './api-commit.js';

interface Identity {
  name: string;
  email: string;
}

/** The workflow token's account: what GitHub shows for commits an action pushes. */
const ACTION_IDENTITY: Identity = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com',
};

/** GitHub refuses a push that carries a file over 100 MiB ("this exceeds GitHub's file size limit of 100.00 MB"). */
export const GITHUB_MAX_FILE_BYTES = 100 * 1024 * 1024;

const identityEnv = (who: Identity): Record<string, string> => ({
  GIT_AUTHOR_NAME: who.name,
  GIT_AUTHOR_EMAIL: who.email,
  GIT_COMMITTER_NAME: who.name,
  GIT_COMMITTER_EMAIL: who.email,
});

const coAuthorTrailer = (login: string) => `Co-authored-by: ${login} <${login}@users.noreply.github.com>`;

export interface CommitOptions {
  subject: string;
  body?: string;
  /** The requester's login, credited with a Co-authored-by trailer. */
  coAuthor?: string;
  identity?: Identity;
  /** The work tree as the agent got it: its leftovers are never committed. Absent: every change is the agent's. */
  start?: WorkTreeStart;
  /** Files larger than this are left out (default, and at most, GitHub's 100 MiB). */
  maxFileBytes?: number;
  /** Redacted from the message (common/redact.ts): its body is the model's closing words. */
  secrets?: readonly string[];
}

/** A path left out of the commit, and why. */
export type LeftOut =
  | { path: string; reason: 'leftover' }
  /** An earlier step left it and the agent changed it again: not the agent's alone. */
  | { path: string; reason: 'leftover-edited' }
  | { path: string; reason: 'too-large'; bytes: number; limit: number };

export interface CommitResult {
  /** The new commit, HEAD now (detached); undefined when the agent changed nothing committable. */
  sha?: string;
  /** The commit the agent's commit goes on (HEAD before). */
  parent: string;
  /** The paths the commit changes. */
  files: string[];
  leftOut: LeftOut[];
}

/** True when the work tree has changes (tracked or untracked, respecting .gitignore). */
export async function readHasChanges(root: string): Promise<boolean> {
  return (await assertGit(root, ['status', '--porcelain', '--untracked-files=all'])).length > 0;
}

/** Commits the agent's changes on top of HEAD and detaches HEAD at the commit. */
export async function commitWorktree(root: string, o: CommitOptions): Promise<CommitResult> {
  const parent = await assertGit(root, ['rev-parse', '--verify', 'HEAD^{commit}']);
  const changes = await readTreeChanges(root, parent, await writeWorktreeTree(root));
  const { kept, leftOut } = await sortChanges(root, changes, o);
  if (kept.length === 0) return { parent, files: [], leftOut };
  const tree = await writeTreeWith(root, parent, kept);
  const trailer = o.coAuthor ? `\n\n${coAuthorTrailer(o.coAuthor)}` : '';
  const message = redactSecrets(`${o.subject}${o.body ? `\n\n${o.body}` : ''}${trailer}\n`, o.secrets ?? []);
  const sha = await writeCommit(root, {
    tree,
    parents: [parent],
    message,
    identity: identityEnv(o.identity ?? ACTION_IDENTITY),
  });
  await moveHead(root, sha);
  return { sha, parent, files: kept.map((c) => c.path), leftOut };
}

/** HEAD detached at `sha`, the index at its tree; the work tree is not touched. */
async function moveHead(root: string, sha: string): Promise<void> {
  await assertGit(root, ['update-ref', '--no-deref', '-m', 'agent-action: the agent commit', 'HEAD', sha]);
  // A mixed reset to HEAD: the index becomes the commit's tree, with the work tree's stat data refreshed.
  await assertGit(root, ['reset', '-q']);
}

/** The changes that are the agent's and fit GitHub; the rest with the reason. */
async function sortChanges(
  root: string,
  changes: readonly TreeChange[],
  o: CommitOptions,
): Promise<{ kept: TreeChange[]; leftOut: LeftOut[] }> {
  const leftovers = new Map((o.start?.leftovers ?? []).map((l) => [l.path, l]));
  const leftOut: LeftOut[] = [];
  const agents: TreeChange[] = [];
  for (const c of changes) {
    const l = leftovers.get(c.path);
    if (!l) agents.push(c);
    else
      leftOut.push({ path: c.path, reason: l.blob === c.blob && l.mode === c.mode ? 'leftover' : 'leftover-edited' });
  }
  const limit = Math.min(o.maxFileBytes ?? GITHUB_MAX_FILE_BYTES, GITHUB_MAX_FILE_BYTES);
  const sizes = await readBlobSizes(
    root,
    agents.flatMap((c) => (c.blob ? [c.blob] : [])),
  );
  const kept: TreeChange[] = [];
  for (const c of agents) {
    const bytes = c.blob ? sizes.get(c.blob) : undefined;
    if (bytes !== undefined && bytes > limit) leftOut.push({ path: c.path, reason: 'too-large', bytes, limit });
    else kept.push(c);
  }
  return { kept, leftOut };
}

export interface PushResult {
  sha: string;
  /** True when the branch had moved and the agent's commit was replayed onto it. */
  rebased: boolean;
}

export interface PushOptions {
  remote: GitRemote;
  identity?: Identity;
  /** A branch the run creates: a rejection means someone else made it meanwhile, and fails. */
  isNew?: boolean;
  /** `commit-signing: true`: the commit is made through GitHub's API (api-commit.ts), no git push. */
  api?: ApiTarget;
}

/**
 * Pushes HEAD (the agent's commit, on top of HEAD^) to `refs/heads/<branch>`, or with `api` makes it
 * through GitHub's API and moves HEAD to the commit GitHub made. Never forced: when the branch moved,
 * the commit is replayed onto its new tip and sent once more; a conflict, or a second rejection,
 * throws and publishes nothing.
 */
export async function pushHead(root: string, branch: string, o: PushOptions): Promise<PushResult> {
  const ours = await assertGit(root, ['rev-parse', 'HEAD']);
  const send = (sha: string): Promise<ApiSend> =>
    o.api
      ? sendCommitByApi(root, o.api, { sha, branch, isNew: o.isNew === true })
      : pushCommit(root, o.remote, { sha, branch });
  const first = await send(ours);
  if (first.status === 'pushed') {
    if (o.api) await adoptApiCommit(root, { branch, sha: first.sha }, o.remote);
    return { sha: first.sha, rebased: false };
  }
  if (o.isNew)
    throw new AgentError(
      'general',
      `the branch ${branch} appeared on the remote while the agent worked; nothing was pushed`,
    );
  const rebased = await replayOntoMovedBranch(root, { branch, ours }, o);
  const second = await send(rebased);
  if (second.status !== 'pushed')
    throw new AgentError('general', `git push to ${branch} was rejected twice: it keeps moving; nothing was pushed`);
  if (o.api) await adoptApiCommit(root, { branch, sha: second.sha }, o.remote);
  // The work tree follows when it can (the files the new tip changed); the pushed commit is on the remote either way.
  else await runGit(root, ['reset', '-q', '--keep', rebased]);
  return { sha: second.sha, rebased: true };
}

/** The agent's commit replayed onto the branch's new tip (fetched): the new local commit, or a conflict that throws. */
async function replayOntoMovedBranch(
  root: string,
  { branch, ours }: { branch: string; ours: string },
  o: PushOptions,
): Promise<string> {
  const fetched = await fetchForWork(root, [`refs/heads/${branch}`], o.remote);
  if (fetched.code !== 0)
    throw new AgentError(
      'general',
      `${branch} moved while the agent worked, and its new tip could not be fetched: ${fetched.stderr.trim()}`,
    );
  const tip = await assertGit(root, ['rev-parse', 'FETCH_HEAD^{commit}']);
  const base = await assertGit(root, ['rev-parse', `${ours}^`]);
  const { author, message } = await readCommitParts(root, ours);
  const identity = identityEnv(o.identity ?? ACTION_IDENTITY);
  const replay = await replayCommit(root, { commit: ours, base, onto: tip, identity });
  if (!replay.ok) {
    const where = replay.driver
      ? "in a file whose merge driver (named in .gitattributes) does not run in the action's git, so it counts as conflicting"
      : `in ${replay.conflicts.map((p) => `\`${p}\``).join(', ')}`;
    throw new AgentError(
      'general',
      `${branch} moved while the agent worked (to ${tip.slice(0, 12)}), and the agent's changes conflict with it ${where}; nothing was pushed`,
    );
  }
  // As a rebase does: the commit keeps its author, message and date; the committer is the action.
  return writeCommit(root, {
    tree: replay.tree,
    parents: [tip],
    message,
    identity: {
      ...identity,
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: author.date,
    },
  });
}

/**
 * The local checkout moved to the commit GitHub made (fetched back), so later steps and a resumed
 * session see what was published. Its tree is the local commit's (api-commit.ts checked), so the work
 * tree stays as it is, or follows a moved branch's files. Best effort: the commit is on GitHub either way.
 */
async function adoptApiCommit(
  root: string,
  { branch, sha }: { branch: string; sha: string },
  remote: GitRemote,
): Promise<void> {
  const fetched = await fetchForWork(root, [`refs/heads/${branch}`], remote);
  if (fetched.code !== 0 || (await tryReadCommit(root, 'FETCH_HEAD')) !== sha) return;
  await runGit(root, ['reset', '-q', '--keep', sha]);
}

/** Pushed, or rejected when the branch is not an ancestor of `sha` (it moved); other failures throw. */
async function pushCommit(root: string, remote: GitRemote, to: { sha: string; branch: string }): Promise<ApiSend> {
  const { sha, branch } = to;
  const r = await runGit(
    root,
    ['push', '-q', '--porcelain', '--no-verify', GIT_REMOTE, `${sha}:refs/heads/${branch}`],
    { remote },
  );
  if (r.code === 0) return { status: 'pushed', sha };
  if (isRejection(r.stderr + r.stdout.toString('utf8'))) return { status: 'rejected' };
  throw new AgentError('general', `git push to ${branch} failed: ${r.stderr.trim()}`);
}

const isRejection = (out: string) =>
  /\[rejected\]|non-fast-forward|fetch first|\[remote rejected\].*(stale|cannot lock)/i.test(out);

/** Whether `branch` exists on the remote. */
export async function readRemoteBranchExists(root: string, branch: string, remote: GitRemote): Promise<boolean> {
  const r = await runGit(root, ['ls-remote', '--exit-code', '--heads', GIT_REMOTE, `refs/heads/${branch}`], { remote });
  return r.code === 0;
}
