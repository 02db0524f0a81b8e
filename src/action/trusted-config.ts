/**
 * What steers a run must come from trusted code. For pull-request events the work tree is the pull
 * request's head, written by whoever opened it; its `.gemini/` policies and settings and its context
 * files (GEMINI.md at every level) could rewrite the rules. So they are read from the base branch's
 * commit into a temporary snapshot, which becomes the memory root and the workspace policy folder.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { AgentError } from '../common/errors.js';
import { assertGit, runGit } from '../session/git.js';

export interface TrustedConfig {
  /** Where context files and `.gemini/settings.json` are read from. */
  memoryRoot: string;
  /** The workspace-tier policy folder (may not exist: then there are no workspace rules). */
  policyDir: string;
  /** The commit the configuration was read from; undefined: the work tree itself. */
  fromCommit?: string;
}

/** Not a pull request: the checked-out work tree is the trusted default branch (or the dispatcher's ref). */
export const trustedFromWorktree = (workspace: string): TrustedConfig => ({ memoryRoot: workspace, policyDir: join(workspace, '.gemini', 'policies') });

/** Per file: largest size read from the base commit. Context files are small; this bounds a hostile base. */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Snapshots `.gemini/**`, every file named like a context file, and Markdown files (a context file's
 * `@imports`) from `baseSha` into a temporary directory. Fetches the base commit when the checkout
 * does not have it (actions/checkout fetches one commit by default).
 */
export async function readTrustedConfig(workspace: string, baseSha: string, contextFileNames: readonly string[], remote = 'origin'): Promise<TrustedConfig> {
  if (!/^[0-9a-f]{40,64}$/i.test(baseSha)) throw new AgentError('general', `base commit '${baseSha}' is not a commit id`);
  if ((await runGit(workspace, ['cat-file', '-e', `${baseSha}^{commit}`])).code !== 0) {
    const fetched = await runGit(workspace, ['fetch', '-q', '--no-tags', '--depth=1', remote, baseSha]);
    if (fetched.code !== 0) throw new AgentError('general', `could not fetch the base commit ${baseSha}: ${fetched.stderr.trim()}`);
  }
  const listing = await runGit(workspace, ['ls-tree', '-r', '-z', '--full-tree', '-l', baseSha]);
  if (listing.code !== 0) throw new AgentError('general', `could not list the base commit ${baseSha}: ${listing.stderr.trim()}`);
  const names = new Set(contextFileNames.length ? contextFileNames : ['GEMINI.md']);
  const root = await mkdtemp(join(tmpdir(), 'agent-action-trusted-'));
  for (const entry of listing.stdout.toString('utf8').split('\0')) {
    // "<mode> blob <sha> <size>\t<path>"
    const m = /^(\d+) blob ([0-9a-f]+)\s+(\d+)\t(.+)$/s.exec(entry);
    if (!m || m[1] === '120000' || Number(m[3]) > MAX_FILE_BYTES) continue; // symlinks could point anywhere
    const path = m[4];
    if (!(path.startsWith('.gemini/') || names.has(basename(path)) || /\.md$/i.test(path))) continue;
    const blob = await runGit(workspace, ['cat-file', 'blob', m[2]]);
    if (blob.code !== 0) continue;
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, blob.stdout);
  }
  return { memoryRoot: root, policyDir: join(root, '.gemini', 'policies'), fromCommit: await assertGit(workspace, ['rev-parse', `${baseSha}^{commit}`]) };
}
