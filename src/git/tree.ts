/**
 * Git plumbing over commits and trees, for the action's work tree (src/action/work-tree.ts) and its
 * commits (src/action/publish/commits.ts). Every process is src/git/git.ts's runGit: hardened,
 * the token only for fetches.
 *
 * Nothing here needs history. The agent's commit is replayed onto a moved head by a three-way merge
 * whose base is named (the commit the agent started from), not found by `merge-base`, so a depth-1
 * clone holding just the three commits is enough; and a fetch into a shallow clone is one commit deep
 * (without --depth, git would fetch every ancestor the clone lacks: the project's whole history).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../common/errors.js';
import { assertGit, GIT_REMOTE, runGit, type GitRemote, type GitResult } from './git.js';

/** One path that differs between two trees, as `git diff-tree --raw` lists it (renames off). */
export interface TreeChange {
  path: string;
  /** A added, M modified (content or mode), D deleted, T type changed. */
  status: 'A' | 'M' | 'D' | 'T';
  /** The new side; absent for a deletion. */
  mode?: string;
  blob?: string;
}

const ZERO_OID = /^0+$/;

/** Pure: `git diff-tree -r -z --raw` output as changes. */
function parseRawDiff(out: string): TreeChange[] {
  const fields = out.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([AMDT])/.exec(fields[i]);
    if (!m) continue;
    const path = fields[i + 1];
    if (m[5] === 'D') changes.push({ path, status: 'D' });
    else
      changes.push({
        path,
        status: m[5] as TreeChange['status'],
        mode: m[2],
        blob: ZERO_OID.test(m[4]) ? undefined : m[4],
      });
  }
  return changes;
}

/** Every path that differs between two commits or trees. */
export async function readTreeChanges(root: string, from: string, to: string): Promise<TreeChange[]> {
  const r = await runGit(root, ['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-commit-id', from, to]);
  if (r.code !== 0)
    throw new AgentError('general', `git diff-tree ${from.slice(0, 12)} ${to.slice(0, 12)} failed: ${r.stderr.trim()}`);
  return parseRawDiff(r.stdout.toString('utf8'));
}

/** Sizes in bytes of blobs, by id (objects that are not blobs, such as submodule commits, are left out). */
export async function readBlobSizes(root: string, blobs: readonly string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (blobs.length === 0) return sizes;
  const r = await runGit(root, ['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], {
    input: `${blobs.join('\n')}\n`,
  });
  if (r.code !== 0) throw new AgentError('general', `git cat-file failed: ${r.stderr.trim()}`);
  for (const line of r.stdout.toString('utf8').split('\n')) {
    const [id, type, size] = line.split(' ');
    if (type === 'blob') sizes.set(id, Number(size));
  }
  return sizes;
}

/** `base`'s tree with `changes` applied (through a throwaway index; the repository's index is left alone). */
export async function writeTreeWith(root: string, base: string, changes: readonly TreeChange[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-action-index-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    await assertGit(root, ['read-tree', base], { env });
    // `mode SP oid TAB path`, NUL-terminated; mode 0 removes the path.
    const info = changes
      .map((c) =>
        c.status === 'D' || !c.blob ? `0 ${'0'.repeat(40)}\t${c.path}\0` : `${c.mode} ${c.blob}\t${c.path}\0`,
      )
      .join('');
    await assertGit(root, ['update-index', '-z', '--index-info'], { env, input: info });
    return await assertGit(root, ['write-tree'], { env });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface CommitSpec {
  tree: string;
  parents: readonly string[];
  message: string;
  /** GIT_AUTHOR_* and GIT_COMMITTER_* (runners have no identity). */
  identity: Record<string, string>;
}

/** A commit object (no ref moves). */
export function writeCommit(root: string, c: CommitSpec): Promise<string> {
  return assertGit(root, ['commit-tree', '--no-gpg-sign', c.tree, ...c.parents.flatMap((p) => ['-p', p]), '-F', '-'], {
    input: c.message,
    env: c.identity,
  });
}

/** A commit's author (name, email, date as git stores it) and message. */
export async function readCommitParts(
  root: string,
  commit: string,
): Promise<{ author: { name: string; email: string; date: string }; message: string }> {
  const raw = await runGit(root, ['cat-file', 'commit', commit]);
  if (raw.code !== 0)
    throw new AgentError('general', `git cat-file commit ${commit.slice(0, 12)} failed: ${raw.stderr.trim()}`);
  const text = raw.stdout.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = text.slice(0, split);
  const m = /^author (.*) <([^>]*)> (\d+ [+-]\d{4})$/m.exec(headers);
  if (!m) throw new AgentError('general', `commit ${commit.slice(0, 12)} has no author line`);
  return { author: { name: m[1], email: m[2], date: m[3] }, message: text.slice(split + 2) };
}

/** `driver`: a file both sides changed has a merge driver, which the action's git does not run (which file, git does not say). */
export type Replay = { ok: true; tree: string } | { ok: false; conflicts: string[]; driver?: boolean };

/**
 * `commit`'s change from `base` applied onto `onto`: the tree a rebase of that one commit gives, or
 * the paths that conflict. merge-tree finds the merge base itself, so it is given two commits whose
 * only common ancestor is `base`: `commit`, and a throwaway commit of `onto`'s tree on top of `base`.
 * Needs git 2.38 (`merge-tree --write-tree`).
 */
export async function replayCommit(
  root: string,
  o: { commit: string; base: string; onto: string; identity: Record<string, string> },
): Promise<Replay> {
  const ontoTree = await assertGit(root, ['rev-parse', '--verify', `${o.onto}^{tree}`]);
  const stand = await writeCommit(root, {
    tree: ontoTree,
    parents: [o.base],
    message: 'agent-action: the moved head, on the commit the agent started from\n',
    identity: o.identity,
  });
  const r = await runGit(root, ['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', stand, o.commit]);
  const [tree, ...paths] = r.stdout.toString('utf8').split('\0').filter(Boolean);
  if (r.code === 0 && tree) return { ok: true, tree };
  if (r.code === 1 && tree) return { ok: false, conflicts: [...new Set(paths)] };
  // Both sides changed a file whose .gitattributes names a merge driver: drivers do not run in the
  // action's git (git.ts empties them), and merge-tree stops instead of counting it as a conflict.
  if (/Failed to execute internal merge/.test(r.stderr)) return { ok: false, conflicts: [], driver: true };
  const why =
    r.code === 129
      ? 'this git has no `merge-tree --write-tree` (git 2.38 or later is needed)'
      : r.stderr.trim() || `exit ${r.code}`;
  throw new AgentError('general', `could not replay the agent's commit onto ${o.onto.slice(0, 12)}: ${why}`);
}

/** True when the clone is shallow (actions/checkout's default, fetch-depth 1). */
async function readIsShallow(root: string): Promise<boolean> {
  return (await assertGit(root, ['rev-parse', '--is-shallow-repository'])) === 'true';
}

/**
 * Fetches refspecs or commit ids from the action's remote. In a shallow clone one commit deep: a
 * commit of a shallow clone's fetch without --depth drags in every ancestor the clone lacks.
 */
export async function fetchForWork(root: string, specs: readonly string[], remote: GitRemote): Promise<GitResult> {
  const depth = (await readIsShallow(root)) ? ['--depth=1'] : [];
  return runGit(root, ['fetch', '-q', '--no-tags', ...depth, GIT_REMOTE, ...specs], { remote });
}

/** The commit `rev` names, or undefined. */
export async function tryReadCommit(root: string, rev: string): Promise<string | undefined> {
  const r = await runGit(root, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  return r.code === 0 ? r.stdout.toString('utf8').trim() : undefined;
}
