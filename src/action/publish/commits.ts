/**
 * Commits the agent's work tree and pushes it, never forcing. The identity is set explicitly on
 * every commit (runners have no global one); the person who asked is credited as co-author. When a
 * push is rejected because the branch moved, fetch, rebase onto it and push once more.
 *
 * Every git process is src/session/git.ts's: the repository's config runs nothing, and the token
 * reaches only the push and fetch processes, through their environment.
 */
import { AgentError } from '../../common/errors.js';
import { redactSecrets } from '../../common/redact.js';
import { assertGit, GIT_REMOTE, runGit, type GitRemote } from '../../session/git.js';

export interface Identity {
  name: string;
  email: string;
}

/** The workflow token's account: what GitHub shows for commits an action pushes. */
const ACTION_IDENTITY: Identity = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' };

const identityEnv = (who: Identity) => ({
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
  /** Redacted from the message (common/redact.ts): its body is the model's closing words. */
  secrets?: readonly string[];
}

/** True when the work tree has changes (tracked or untracked, respecting .gitignore). */
export async function readHasChanges(root: string): Promise<boolean> {
  return (await assertGit(root, ['status', '--porcelain', '--untracked-files=all'])).length > 0;
}

/** Commits everything in the work tree; returns the new commit, or undefined when nothing changed. */
export async function commitWorktree(root: string, o: CommitOptions): Promise<string | undefined> {
  if (!(await readHasChanges(root))) return undefined;
  await assertGit(root, ['add', '-A']);
  const trailer = o.coAuthor ? `\n\n${coAuthorTrailer(o.coAuthor)}` : '';
  const message = redactSecrets(`${o.subject}${o.body ? `\n\n${o.body}` : ''}${trailer}\n`, o.secrets ?? []);
  await assertGit(root, ['-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '-F', '-'], {
    input: message,
    env: identityEnv(o.identity ?? ACTION_IDENTITY),
  });
  return assertGit(root, ['rev-parse', 'HEAD']);
}

export interface PushResult {
  sha: string;
  /** True when the branch had moved and our commits were rebased onto it. */
  rebased: boolean;
}

/**
 * Pushes HEAD to `refs/heads/<branch>` on `remote`. Never forced: a rejection fetches the branch,
 * rebases onto it and tries once more; a second rejection or a conflict throws.
 */
export async function pushHead(root: string, branch: string, o: { remote: GitRemote; identity?: Identity }): Promise<PushResult> {
  const { remote } = o;
  const refspec = `HEAD:refs/heads/${branch}`;
  const first = await runGit(root, ['push', '-q', '--porcelain', '--no-verify', GIT_REMOTE, refspec], { remote });
  if (first.code === 0) return { sha: await assertGit(root, ['rev-parse', 'HEAD']), rebased: false };
  if (!isRejection(first.stderr + first.stdout.toString('utf8'))) {
    throw new AgentError('general', `git push to ${branch} failed: ${first.stderr.trim()}`);
  }
  await assertGit(root, ['fetch', '-q', '--no-tags', GIT_REMOTE, `refs/heads/${branch}`], { remote });
  const rebase = await runGit(root, ['-c', 'commit.gpgsign=false', 'rebase', '-q', 'FETCH_HEAD'], { env: identityEnv(o.identity ?? ACTION_IDENTITY) });
  if (rebase.code !== 0) {
    await runGit(root, ['rebase', '--abort']);
    throw new AgentError('general', `${branch} moved while the agent worked and its changes conflict with ours; nothing was pushed`);
  }
  const second = await runGit(root, ['push', '-q', '--porcelain', '--no-verify', GIT_REMOTE, refspec], { remote });
  if (second.code !== 0) throw new AgentError('general', `git push to ${branch} was rejected twice: ${second.stderr.trim()}`);
  return { sha: await assertGit(root, ['rev-parse', 'HEAD']), rebased: true };
}

const isRejection = (out: string) => /\[rejected\]|non-fast-forward|fetch first|\[remote rejected\].*(stale|cannot lock)/i.test(out);

/** Whether `branch` exists on the remote. */
export async function readRemoteBranchExists(root: string, branch: string, remote: GitRemote): Promise<boolean> {
  const r = await runGit(root, ['ls-remote', '--exit-code', '--heads', GIT_REMOTE, `refs/heads/${branch}`], { remote });
  return r.code === 0;
}
