/**
 * `commit-signing: true`: the agent's commit published through GitHub's Git database API instead of
 * git push, so GitHub signs it (it shows as Verified, and branch protection that requires signed
 * commits takes it). The local commit (commits.ts) is the plan: every path it changes from its parent
 * becomes a blob (sent base64: binary-safe), one tree on the parent's tree (a deletion is an entry
 * with `sha: null`, a rename a deletion and an addition, modes 100644, 100755 and 120000 for a
 * symlink as they are), then a commit with no author or committer (GitHub's condition for signing
 * it; the requester's Co-authored-by trailer stays in the message), then the branch's ref created or
 * moved, never forced. GitHub names every object by its git id, so each id it answers must be the
 * local one: a blob or tree that came back different was changed on the way, and nothing is moved.
 */
import { AgentError } from '../../common/errors.js';
import { assertGit, runGit } from '../../git/git.js';
import { readTreeChanges, type TreeChange } from '../../git/tree.js';
import type { GitHubClient } from '../github-client.js';
import type { RepoRef, RunContext } from '../run-context.js';

/** GitHub's blob API takes files up to 100 MB. */
const BLOB_API_MAX_BYTES = 100 * 1024 * 1024;

export interface ApiTarget {
  octokit: GitHubClient;
  repo: RepoRef;
}

/** `commit-signing: true`: the run's commits go through GitHub's API; false: git push. */
export const apiOf = (ctx: RunContext): { api?: ApiTarget } =>
  ctx.settings.commitSigning ? { api: { octokit: ctx.octokit, repo: ctx.repo } } : {};

/** 'pushed' with the commit GitHub made, or 'rejected' when the branch is not an ancestor of it (it moved). */
export type ApiSend = { status: 'pushed'; sha: string } | { status: 'rejected' };

/**
 * The local commit `sha` (one parent, on GitHub already) made again through the API and `branch`
 * pointed at it: created when `isNew`, else moved by a fast-forward.
 */
export async function sendCommitByApi(
  root: string,
  api: ApiTarget,
  to: { sha: string; branch: string; isNew: boolean },
): Promise<ApiSend> {
  const parent = await assertGit(root, ['rev-parse', '--verify', `${to.sha}^1`]);
  const [parentTree, tree] = await Promise.all([
    assertGit(root, ['rev-parse', '--verify', `${parent}^{tree}`]),
    assertGit(root, ['rev-parse', '--verify', `${to.sha}^{tree}`]),
  ]);
  const changes = await readTreeChanges(root, parent, to.sha);
  const entries = await uploadBlobs(root, api, changes);
  const { data: made } = await api.octokit.rest.git.createTree({ ...api.repo, base_tree: parentTree, tree: entries });
  if (made.sha !== tree)
    throw new AgentError(
      'general',
      `GitHub made tree ${made.sha.slice(0, 12)} for the agent's commit, whose tree is ${tree.slice(0, 12)}: nothing was published`,
    );
  const { data: commit } = await api.octokit.rest.git.createCommit({
    ...api.repo,
    message: await readMessage(root, to.sha),
    tree,
    parents: [parent],
  });
  return moveRef(api, { branch: to.branch, sha: commit.sha, isNew: to.isNew });
}

type TreeEntry = {
  path: string;
  mode: '100644' | '100755' | '120000' | '160000';
  type: 'blob' | 'commit';
  sha: string | null;
};

const MODES = new Set(['100644', '100755', '120000', '160000']);

/** One blob per distinct content (a renamed file's content is sent once), then the tree's entries. */
async function uploadBlobs(root: string, api: ApiTarget, changes: readonly TreeChange[]): Promise<TreeEntry[]> {
  const sent = new Set<string>();
  const entries: TreeEntry[] = [];
  for (const c of changes) {
    if (c.status === 'D' || !c.blob || !c.mode) {
      entries.push({ path: c.path, mode: '100644', type: 'blob', sha: null });
      continue;
    }
    if (!MODES.has(c.mode))
      throw new AgentError('general', `\`${c.path}\` has git mode ${c.mode}, which GitHub's tree API does not take`);
    const mode = c.mode as TreeEntry['mode'];
    // A submodule's entry names its commit: there is no blob to send.
    if (mode === '160000') {
      entries.push({ path: c.path, mode, type: 'commit', sha: c.blob });
      continue;
    }
    if (!sent.has(c.blob)) {
      await uploadBlob(root, api, { path: c.path, blob: c.blob });
      sent.add(c.blob);
    }
    entries.push({ path: c.path, mode, type: 'blob', sha: c.blob });
  }
  return entries;
}

async function uploadBlob(root: string, api: ApiTarget, { path, blob }: { path: string; blob: string }): Promise<void> {
  const r = await runGit(root, ['cat-file', 'blob', blob]);
  if (r.code !== 0)
    throw new AgentError('general', `git cat-file blob ${blob.slice(0, 12)} failed: ${r.stderr.trim()}`);
  if (r.stdout.length > BLOB_API_MAX_BYTES)
    throw new AgentError(
      'general',
      `\`${path}\` is ${r.stdout.length} bytes, over the 100 MB GitHub's blob API takes (commit-signing: true): nothing was published`,
    );
  const { data } = await api.octokit.rest.git.createBlob({
    ...api.repo,
    content: r.stdout.toString('base64'),
    encoding: 'base64',
  });
  if (data.sha !== blob)
    throw new AgentError(
      'general',
      `GitHub stored \`${path}\` as blob ${data.sha.slice(0, 12)}, not ${blob.slice(0, 12)}: it changed on the way, so nothing was published`,
    );
}

/** The commit's message as git stores it (the subject, the body, the Co-authored-by trailer). */
async function readMessage(root: string, sha: string): Promise<string> {
  const r = await runGit(root, ['cat-file', 'commit', sha]);
  if (r.code !== 0)
    throw new AgentError('general', `git cat-file commit ${sha.slice(0, 12)} failed: ${r.stderr.trim()}`);
  const text = r.stdout.toString('utf8');
  return text.slice(text.indexOf('\n\n') + 2);
}

/** `refs/heads/<branch>` created, or moved without force; a 422 there is a branch that exists, or moved. */
async function moveRef(
  api: ApiTarget,
  { branch, sha, isNew }: { branch: string; sha: string; isNew: boolean },
): Promise<ApiSend> {
  try {
    if (isNew) await api.octokit.rest.git.createRef({ ...api.repo, ref: `refs/heads/${branch}`, sha });
    else await api.octokit.rest.git.updateRef({ ...api.repo, ref: `heads/${branch}`, sha, force: false });
    return { status: 'pushed', sha };
  } catch (e) {
    if ((e as { status?: number }).status === 422) return { status: 'rejected' };
    throw e;
  }
}
