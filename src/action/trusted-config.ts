/**
 * What steers a run (the repository's `.gemini/` policies and settings, its context files: GEMINI.md
 * at every level and the Markdown they import) comes from trusted bytes: a commit read with git,
 * never the work tree. The work tree is the model's to write, and for pull requests its head is the
 * author's; a planted `.gemini/policies/x.toml` must never become a rule.
 *
 * Which commit: a pull request's base; otherwise the commit the run started on (HEAD before any
 * agent change). A resumed run reads the commit its session recorded. The files are copied into a
 * temporary directory, which becomes the memory root and the workspace policy folder, and is
 * removed when the run ends: createTrustedConfigSource owns every such directory and its dispose()
 * removes them all, a failed read's too.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { AgentError } from '../common/errors.js';
import { contextSettingsOf } from '../context/memory.js';
import { parseSettingsText } from '../context/settings-file.js';
import { GIT_REMOTE, runGit, type GitRemote } from '../git/git.js';

export interface TrustedConfig {
  /** Where context files and `.gemini/settings.json` are read from. */
  memoryRoot: string;
  /**
   * The commit's `.gemini/` folder (empty when it has none), with executable bits as committed:
   * bound over the work tree's `.gemini/` for hooks and MCP servers, so they run the committed
   * scripts, never a pull request's.
   */
  geminiDir: string;
  /** The workspace-tier policy folder (may not exist: then there are no workspace rules). */
  policyDir: string;
  /** The commit the configuration was read from; undefined when the workspace has no commit. */
  fromCommit?: string;
}

export interface TrustedConfigOptions {
  workspace: string;
  /** A full commit id. */
  commit: string;
  contextFileNames: readonly string[];
  /** Where to fetch the commit from when the checkout lacks it (shallow clones). */
  remote?: GitRemote;
  /**
   * The directory to fill, owned by the caller, who removes it (createTrustedConfigSource does, when
   * the run ends). Never made here: a snapshot nobody owns outlives the run on the runner's disk.
   */
  into: string;
}

/** Per file: largest size read from the commit. Context files are small; this bounds a hostile one. */
const MAX_FILE_BYTES = 1024 * 1024;
/** Under `.gemini/`: scripts that hooks and MCP servers run (a bundled server is a few MB), bounded all the same. */
const MAX_GEMINI_FILE_BYTES = 16 * 1024 * 1024;

/** The commit HEAD names now, or undefined when the workspace is no repository or has no commit. */
export async function readHeadCommit(workspace: string): Promise<string | undefined> {
  const r = await runGit(workspace, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  return r.code === 0 ? r.stdout.toString('utf8').trim() : undefined;
}

/**
 * Snapshots `.gemini/**`, every file named like a context file, and Markdown files (a context file's
 * `@imports`) from `commit` into a directory. Fetches the commit when the checkout does not have it
 * (actions/checkout fetches one commit by default).
 */
export async function readTrustedConfig(o: TrustedConfigOptions): Promise<TrustedConfig> {
  const { workspace, commit } = o;
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(commit))
    throw new AgentError('general', `trusted configuration: '${commit}' is not a full commit id`);
  if ((await runGit(workspace, ['cat-file', '-e', `${commit}^{commit}`])).code !== 0) {
    const fetched = o.remote
      ? await runGit(workspace, ['fetch', '-q', '--no-tags', '--depth=1', GIT_REMOTE, commit], { remote: o.remote })
      : { code: 1, stderr: 'no remote given' };
    if (fetched.code !== 0)
      throw new AgentError(
        'general',
        `could not fetch the commit ${commit} that holds the trusted configuration: ${fetched.stderr.trim()}`,
      );
  }
  const listing = await runGit(workspace, ['ls-tree', '-r', '-z', '--full-tree', '-l', commit]);
  if (listing.code !== 0)
    throw new AgentError('general', `could not list the commit ${commit}: ${listing.stderr.trim()}`);
  const names = new Set(o.contextFileNames.length ? o.contextFileNames : ['GEMINI.md']);
  const entries = listing.stdout.toString('utf8').split('\0');
  // The commit's own settings may name other context files (context.fileName): copy those too.
  for (const n of await committedContextNames(workspace, entries)) names.add(n);
  const root = o.into;
  for (const entry of entries) {
    // "<mode> blob <sha> <size>\t<path>"
    const m = /^(\d+) blob ([0-9a-f]+)\s+(\d+)\t(.+)$/s.exec(entry);
    if (!m || m[1] === '120000') continue; // symlinks could point anywhere
    const path = m[4];
    if (!(path.startsWith('.gemini/') || names.has(basename(path)) || /\.md$/i.test(path))) continue;
    if (Number(m[3]) > (path.startsWith('.gemini/') ? MAX_GEMINI_FILE_BYTES : MAX_FILE_BYTES)) continue;
    const blob = await runGit(workspace, ['cat-file', 'blob', m[2]]);
    if (blob.code !== 0) continue;
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, blob.stdout, { mode: m[1] === '100755' ? 0o755 : 0o644 });
  }
  await mkdir(join(root, '.gemini'), { recursive: true });
  return {
    memoryRoot: root,
    geminiDir: join(root, '.gemini'),
    policyDir: join(root, '.gemini', 'policies'),
    fromCommit: commit.toLowerCase(),
  };
}

/** `context.fileName` of the commit's `.gemini/settings.json`, from its ls-tree entries; none when absent or broken. */
async function committedContextNames(workspace: string, entries: readonly string[]): Promise<string[]> {
  const entry = entries
    .map((e) => /^100\d{3} blob ([0-9a-f]+)\s+(\d+)\t\.gemini\/settings\.json$/.exec(e))
    .find(Boolean);
  if (!entry || Number(entry[2]) > MAX_GEMINI_FILE_BYTES) return [];
  const blob = await runGit(workspace, ['cat-file', 'blob', entry[1]!]);
  const parsed = blob.code === 0 ? parseSettingsText(blob.stdout.toString('utf8')) : undefined;
  return parsed && 'value' in parsed ? (contextSettingsOf(parsed.value, '').fileNames ?? []) : [];
}

export interface TrustedConfigSource {
  /** The configuration of `commit` (a resumed session's), or of the run's starting commit; read once per commit. */
  read(commit?: string): Promise<TrustedConfig>;
  /** Removes the snapshots. */
  dispose(): Promise<void>;
}

export interface TrustedSourceOptions {
  workspace: string;
  /** A pull request's base, or HEAD when the run started; undefined: no commit, no repository configuration. */
  startCommit: string | undefined;
  contextFileNames: readonly string[];
  remote?: GitRemote;
}

export function createTrustedConfigSource(o: TrustedSourceOptions): TrustedConfigSource {
  const read = new Map<string, Promise<TrustedConfig>>();
  const dirs: string[] = [];
  const snapshot = async (commit: string | undefined): Promise<TrustedConfig> => {
    const into = await mkdtemp(join(tmpdir(), 'agent-action-trusted-'));
    dirs.push(into);
    // No commit to read (not a repository): no workspace policies, no repository memory.
    if (!commit) {
      await mkdir(join(into, '.gemini'));
      return { memoryRoot: into, geminiDir: join(into, '.gemini'), policyDir: join(into, '.gemini', 'policies') };
    }
    return readTrustedConfig({
      workspace: o.workspace,
      commit,
      contextFileNames: o.contextFileNames,
      remote: o.remote,
      into,
    });
  };
  return {
    read(commit) {
      const c = commit ?? o.startCommit;
      const key = c ?? '';
      if (!read.has(key)) read.set(key, snapshot(c));
      return read.get(key)!;
    },
    async dispose() {
      // A read still in flight (a run that failed or was cancelled mid-read) has made its directory or
      // is about to: wait for it, so that directory goes too.
      await Promise.allSettled(read.values());
      read.clear();
      await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}
