/**
 * The work tree's uncommitted changes, captured as a binary-safe patch against the base commit and
 * restored in another runner byte for byte.
 *
 * Capture stages everything (tracked changes, deletions, new files that are not ignored) into a
 * throwaway index (GIT_INDEX_FILE), so the repository's own index and HEAD are left as they were.
 * The resulting tree id is the fingerprint: restore applies the patch to a clean checkout of the
 * base, stages it the same way and must arrive at the same tree id, or it fails loudly.
 * Ignored files (node_modules, build output) are not part of the snapshot, by design.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../common/errors.js';
import type { WorktreeSnapshot } from './codec.js';
import { assertGit, GIT_REMOTE, runGit, type GitRemote } from '../git/git.js';
import { readTreeChanges, writeTreeWith } from '../git/tree.js';

/**
 * Plumbing (diff-tree reads no diff.* UI settings such as noprefix) with flags that make the patch
 * independent of the repository's configuration and run no textconv or external diff.
 */
const DIFF_FLAGS = [
  '-r',
  '-p',
  '--binary',
  '--full-index',
  '--no-renames',
  '--no-ext-diff',
  '--no-textconv',
  '--no-color',
];

/** Stage the work tree into a temporary index; returns the tree id. Leaves the real index alone. */
export async function writeWorktreeTree(root: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-action-index-'));
  const index = join(dir, 'index');
  try {
    // A fresh index from HEAD's tree, not a copy of the real index: a copy gets a new mtime, which
    // defeats git's racy-file check, so a file rewritten with the same size in the same second as
    // the index would look unchanged and silently miss the snapshot. Every file is hashed instead.
    // HEAD's tree (not an empty index) keeps tracked files that match .gitignore.
    const env = { GIT_INDEX_FILE: index };
    await assertGit(root, ['read-tree', 'HEAD'], { env });
    await assertGit(root, ['add', '-A', '--', '.'], { env });
    return await assertGit(root, ['write-tree'], { env });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Snapshot root's changes against `baseCommit` (default HEAD); paths in `leave` keep the base's content in it. */
export async function captureWorktree(
  root: string,
  baseCommit?: string,
  o: { leave?: readonly string[] } = {},
): Promise<WorktreeSnapshot> {
  const base = await assertGit(root, ['rev-parse', '--verify', `${baseCommit ?? 'HEAD'}^{commit}`]);
  const whole = await writeWorktreeTree(root);
  const leave = new Set(o.leave ?? []);
  const tree =
    leave.size === 0
      ? whole
      : await writeTreeWith(
          root,
          base,
          (await readTreeChanges(root, base, whole)).filter((c) => !leave.has(c.path)),
        );
  const diff = await runGit(root, ['diff-tree', ...DIFF_FLAGS, base, tree]);
  if (diff.code !== 0) throw new AgentError('general', `git diff failed: ${diff.stderr.trim()}`);
  return { baseCommit: base, tree, patchBase64: diff.stdout.toString('base64') };
}

export interface RestoreOptions {
  /** Check out this branch, reset to the base commit; otherwise a detached HEAD at the base. */
  branch?: string;
  /** Where to fetch the base commit from when the clone lacks it (shallow checkouts). */
  remote?: GitRemote;
}

/**
 * Make root's work tree equal to the snapshot: clean checkout of the base, apply the patch, verify
 * the tree id. Throws AgentError with the reason when the base is missing, the patch does not apply
 * or the result differs. Untracked, non-ignored files in root are removed first.
 */
export async function restoreWorktree(root: string, snap: WorktreeSnapshot, opts: RestoreOptions = {}): Promise<void> {
  const { baseCommit } = snap;
  const has = await runGit(root, ['cat-file', '-e', `${baseCommit}^{commit}`]);
  if (has.code !== 0) {
    const fetched = opts.remote
      ? await runGit(root, ['fetch', '--no-tags', '--quiet', GIT_REMOTE, baseCommit], { remote: opts.remote })
      : { code: 1, stderr: 'no remote to fetch it from' };
    if (fetched.code !== 0) {
      throw new AgentError(
        'general',
        `the session's base commit ${baseCommit} is not in this clone and could not be fetched: ${fetched.stderr.trim()}`,
      );
    }
  }
  const checkout = opts.branch
    ? ['checkout', '--quiet', '--force', '-B', opts.branch, baseCommit]
    : ['checkout', '--quiet', '--force', '--detach', baseCommit];
  await assertGit(root, checkout);
  await assertGit(root, ['clean', '-fdq']);

  const patch = Buffer.from(snap.patchBase64, 'base64');
  if (patch.length > 0) {
    const applied = await runGit(root, ['apply', '--binary', '--whitespace=nowarn', '-'], { input: patch });
    if (applied.code !== 0) {
      throw new AgentError(
        'general',
        `the saved work-tree patch no longer applies on ${baseCommit.slice(0, 12)}: ${applied.stderr.trim()}`,
      );
    }
  }
  const tree = await writeWorktreeTree(root);
  if (tree !== snap.tree) {
    throw new AgentError(
      'general',
      `the restored work tree (tree ${tree.slice(0, 12)}) differs from the saved one (tree ${snap.tree.slice(0, 12)})`,
    );
  }
}
