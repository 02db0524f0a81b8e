/**
 * The tree the agent works on. The workflow's checkout is a starting point, not the truth: for
 * `issue_comment` GitHub checks out the default branch, for review events the test-merge commit
 * `refs/pull/N/merge`, and by default one commit deep. For a pull request the action fetches
 * `refs/pull/N/head` (GitHub keeps it in the base repository, for forks too) and checks out that
 * commit, detached; its own commit goes on top of it, and only that is published.
 *
 * What earlier steps of the job left in the work tree (files not ignored that differ from the commit
 * checked out: written, changed or deleted) is recorded first, path by path with its content's blob
 * id. Those files stay where they are for the agent and its commands, and are never committed
 * (src/action/publish/commits.ts). Moving to a pull request's head does not carry an earlier step's
 * changes to tracked files along: they stay behind, and the notes say so.
 */
import { AgentError } from '../common/errors.js';
import type { GitRemote } from '../git/git.js';
import { fetchForWork, readTreeChanges, tryReadCommit, type TreeChange } from '../git/tree.js';
import { writeWorktreeTree } from '../session/worktree.js';
import { assertGit } from '../git/git.js';

/** A path an earlier step left changed; no blob: it deleted a tracked file. */
export interface Leftover {
  path: string;
  mode?: string;
  blob?: string;
}

/** The work tree as the agent got it: the commit its work goes on, and what was not its doing. */
export interface WorkTreeStart {
  head: string;
  leftovers: Leftover[];
}

export interface PreparedWorkTree extends WorkTreeStart {
  /** For the progress comment and the job summary. */
  notes: string[];
  /** For the job log. */
  logLine: string;
}

export interface PrepareOptions {
  root: string;
  remote: GitRemote;
  /** A command on a pull request: its head is fetched and checked out; its base commit fetched too. */
  pull?: { number: number; baseSha?: string };
  /** Otherwise, the `base-branch` input: its tip is fetched and checked out. */
  branch?: string;
}

/** Where the fetched head is kept: where actions/checkout keeps a pull ref (`refs/remotes/pull/N/merge`). */
const pullHeadRef = (n: number) => `refs/remotes/pull/${n}/head`;

/** Records what earlier steps left, then (for a pull request, or a base branch) moves the work tree there. Undefined: no commit checked out. */
export async function prepareWorkTree(o: PrepareOptions): Promise<PreparedWorkTree | undefined> {
  const { root } = o;
  const checkedOut = await tryReadCommit(root, 'HEAD');
  if (!checkedOut) return undefined;
  const before = await readTreeChanges(root, checkedOut, await writeWorktreeTree(root));
  const target = o.pull
    ? {
        head: await fetchPullHead(o.remote, root, o.pull),
        what: `pull request #${o.pull.number}'s head`,
        ref: `refs/pull/${o.pull.number}/head`,
      }
    : o.branch
      ? { head: await fetchBranch(o.remote, root, o.branch), what: `the base branch`, ref: `refs/heads/${o.branch}` }
      : undefined;
  if (!target)
    return {
      head: checkedOut,
      leftovers: before.map(leftoverOf),
      notes: leftoverNotes(before),
      logLine: `work tree: the commit checked out, ${checkedOut}`,
    };
  const { head, what, ref } = target;
  if (head === checkedOut)
    return {
      head,
      leftovers: before.map(leftoverOf),
      notes: leftoverNotes(before),
      logLine: `work tree: ${what} ${head}, as checked out`,
    };
  // --force: an earlier step's change to a file of the checked-out commit is not carried to the head,
  // and a file an earlier step wrote where the head has one gives way to the head's.
  await assertGit(root, ['checkout', '-q', '--force', '--detach', head]);
  const after = await readLeftovers(root, head);
  return {
    head,
    leftovers: after,
    notes: [
      ...movedNotes(
        before,
        after,
        o.pull ? ["the pull request's head", 'head'] : [`the base branch \`${o.branch}\``, 'branch'],
      ),
      ...leftoverNotes(after),
    ],
    logLine: `work tree: ${what} ${head} (${ref}); the workflow had checked out ${checkedOut}`,
  };
}

/** What became of earlier steps' changes when the work tree moved to `where`. */
function movedNotes(
  before: readonly TreeChange[],
  after: readonly Leftover[],
  [where, short]: [string, string],
): string[] {
  const kept = new Set(after.map((l) => l.path));
  const discarded = before.filter((c) => c.status !== 'A');
  const replaced = before.filter((c) => c.status === 'A' && !kept.has(c.path));
  return [
    ...(discarded.length
      ? [
          `Earlier steps of the job changed ${listOf(discarded)} in the commit the workflow checked out; the agent works on ${where}, without those changes.`,
        ]
      : []),
    ...(replaced.length
      ? [
          `Earlier steps of the job wrote ${listOf(replaced)}, which ${where} has too: the ${short}'s version is in the work tree.`,
        ]
      : []),
  ];
}

/** The tip of `refs/heads/<branch>` on the remote now (the `base-branch` input), fetched. */
async function fetchBranch(remote: GitRemote, root: string, branch: string): Promise<string> {
  const local = `refs/remotes/origin/${branch}`;
  const fetched = await fetchForWork(root, [`+refs/heads/${branch}:${local}`], remote);
  const head = fetched.code === 0 ? await tryReadCommit(root, local) : undefined;
  if (!head)
    throw new AgentError(
      'general',
      `the base branch \`${branch}\` (input 'base-branch') could not be fetched: ${fetched.stderr.trim() || 'no commit'}`,
    );
  return head;
}

/** The head as GitHub's `refs/pull/N/head` names it now, fetched with the base commit if the clone lacks it. */
async function fetchPullHead(
  remote: GitRemote,
  root: string,
  pull: { number: number; baseSha?: string },
): Promise<string> {
  const fetched = await fetchForWork(root, [`+refs/pull/${pull.number}/head:${pullHeadRef(pull.number)}`], remote);
  const head = fetched.code === 0 ? await tryReadCommit(root, pullHeadRef(pull.number)) : undefined;
  if (!head)
    throw new AgentError(
      'general',
      `the pull request's head could not be fetched (refs/pull/${pull.number}/head): ${fetched.stderr.trim() || 'no commit'}`,
    );
  // The trusted configuration is read from the base commit (src/action/trusted-config.ts fetches it
  // too when this fails, and names the cause then).
  if (pull.baseSha && !(await tryReadCommit(root, pull.baseSha))) await fetchForWork(root, [pull.baseSha], remote);
  return head;
}

/** Every path whose work-tree content differs from `head` (ignored files aside), with its blob id. */
export async function readLeftovers(root: string, head: string): Promise<Leftover[]> {
  return (await readTreeChanges(root, head, await writeWorktreeTree(root))).map(leftoverOf);
}

const leftoverOf = (c: TreeChange): Leftover => ({
  path: c.path,
  ...(c.mode ? { mode: c.mode } : {}),
  ...(c.blob ? { blob: c.blob } : {}),
});

const leftoverNotes = (left: ReadonlyArray<{ path: string }>): string[] =>
  left.length
    ? [
        `${listOf(left)}, left in the work tree by earlier steps of the job, ${left.length === 1 ? 'is' : 'are'} not the agent's work: never committed.`,
      ]
    : [];

/** `a`, `b` and 3 more files. */
export function listOf(items: ReadonlyArray<{ path: string }>, max = 5): string {
  const shown = items.slice(0, max).map((i) => `\`${i.path}\``);
  const more = items.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${more} more file${more === 1 ? '' : 's'}`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : (shown[0] ?? '');
}
