/**
 * The host paths a sandbox plan is made of, looked at on disk: which system folders exist and
 * which are merged-/usr symlinks, which PATH folders hold toolchains worth binding, what the
 * workspace's protected folders are, where the runner's files are. Pure decisions are separate
 * functions (`parse*`/`choose*`) so they are tested without a particular machine.
 */
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
import type { HostEntry } from './bwrap-args.js';
import { isUnder } from './bwrap-args.js';
import { AgentError } from '../common/errors.js';

/**
 * Read-only inside. /etc holds no secrets a non-root user can read; /opt holds the runner's tool
 * cache (setup-node's Node lives in /opt/hostedtoolcache). /home, /root, /var and /run are absent.
 */
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix'];

/** Folders of the workspace a command must not change: history and config git runs, and the steering files. */
const PROTECTED_NAMES = ['.git', '.gemini', '.github'];

/** PATH entries under these are never bound: homes, the private and runtime folders, kernel views. */
const NEVER_BIND = [
  '/home',
  '/root',
  '/tmp',
  '/var',
  '/run',
  '/proc',
  '/sys',
  '/dev',
  '/mnt',
  '/media',
  '/srv',
  '/boot',
  '/lost+found',
];

/** Pure: whether `path` is one of the folders the sandbox never binds as a toolchain, or under one. */
export function isNeverBound(path: string): boolean {
  return NEVER_BIND.some((f) => isUnder(path, f));
}

/** The system folders as found under `root` (`/`; tests give a folder laid out like one). */
// Stryker disable next-line StringLiteral: join('', '/usr') is '/usr' too
export async function readSystemEntries(root = '/'): Promise<HostEntry[]> {
  const out: HostEntry[] = [];
  for (const path of SYSTEM_PATHS) {
    const e = await readEntry(join(root, path));
    if (e) out.push(e);
  }
  return out;
}

/** What is at `path` (without following a final symlink), or undefined when nothing is. */
async function readEntry(path: string): Promise<HostEntry | undefined> {
  const st = await lstat(path).catch(() => undefined);
  if (st === undefined) return undefined;
  if (st.isSymbolicLink()) return { path, kind: 'symlink', target: await readlink(path) };
  return { path, kind: st.isDirectory() ? 'dir' : 'file' };
}

/**
 * Pure: the PATH folders to bind read-only, so that a command finds the same `node` and `npm`
 * the runner has. Folders already inside a bound tree are skipped, and so is anything under a
 * home, a private or runtime folder, the workspace or a hidden path: binding those would show
 * what the sandbox hides.
 */
export function chooseToolchainDirs(
  pathVar: string | undefined,
  o: { bound: readonly string[]; home: string; hidden: readonly string[]; workspace: string },
): string[] {
  const out: string[] = [];
  // Stryker disable next-line StringLiteral: any stand-in for an unset PATH is one relative entry, skipped below
  for (const raw of (pathVar ?? '').split(':')) {
    if (!raw || !isAbsolute(raw)) continue;
    // Stryker disable next-line Regex: normalize() has already made a run of slashes one
    const dir = normalize(raw).replace(/\/+$/, '') || '/';
    if (dir === '/' || out.includes(dir)) continue;
    const forbidden = [o.home, o.workspace, ...o.hidden];
    if (isNeverBound(dir) || forbidden.some((f) => isUnder(dir, f)) || o.bound.some((b) => isUnder(dir, b))) continue;
    out.push(dir);
  }
  return out;
}

/**
 * Pure: which of the folders a caller asks to make writable (a cache a hook or an MCP server
 * needs) are allowed. A specific folder is; what would expose what the sandbox hides is not: /,
 * a whole system folder, $HOME or a folder above it, a runner path or anything above or inside it.
 */
export function chooseWritableDirs(
  paths: readonly string[],
  o: { home: string; hidden: readonly string[] },
): { allowed: string[]; refused: string[] } {
  const allowed: string[] = [];
  const refused: string[] = [];
  for (const raw of paths) {
    // Stryker disable next-line Regex,StringLiteral: normalize() has already made a run of slashes one; only an all-slash path gives '', which exposes everything as '/' does
    const dir = normalize(raw).replace(/\/+$/, '') || '/';
    const exposes =
      !isAbsolute(raw) ||
      // `/` itself is refused by the first: /proc is under it.
      ['/proc', '/sys', '/dev', '/etc', '/usr', '/tmp', '/home', '/root', '/run', '/var'].some((d) =>
        isUnder(d, dir),
      ) ||
      isUnder(o.home, dir) ||
      o.hidden.some((h) => isUnder(h, dir) || isUnder(dir, h));
    (exposes ? refused : allowed).push(exposes ? raw : dir);
  }
  return { allowed, refused };
}

/** chooseToolchainDirs, keeping only real folders, by their real paths. */
export async function readToolchainDirs(...args: Parameters<typeof chooseToolchainDirs>): Promise<string[]> {
  const out: string[] = [];
  for (const dir of chooseToolchainDirs(...args)) {
    try {
      const real = await realpath(dir);
      const again = chooseToolchainDirs(real, args[1]);
      if (again.length === 1 && (await lstat(real)).isDirectory() && !out.includes(real)) out.push(real);
    } catch {
      // A PATH entry that does not exist: nothing to bind.
    }
  }
  return out;
}

export interface ProtectedLayout {
  /** Present protected paths, to bind read-only over themselves. */
  present: HostEntry[];
  /** Absent protected folders: an empty folder is made for the call and bound read-only. */
  absent: string[];
  /** A regular .git/config to replace with its sanitized copy. */
  gitConfig?: string;
}

/**
 * The workspace's protected paths. A symlink among them is refused: a mount follows it, and
 * `.github -> /` in a hostile checkout would bind the host's root into the sandbox.
 */
export async function readProtectedLayout(workspace: string): Promise<ProtectedLayout> {
  const out: ProtectedLayout = { present: [], absent: [] };
  for (const name of PROTECTED_NAMES) {
    const path = join(workspace, name);
    const e = await readEntry(path);
    if (!e) out.absent.push(path);
    else if (e.kind === 'symlink')
      throw new AgentError(
        'config',
        `${path} is a symbolic link: the sandbox cannot protect it (replace it with a folder)`,
        { site: { file: path } },
      );
    else out.present.push(e);
  }
  const git = out.present.find((e) => e.path === join(workspace, '.git'));
  if (git?.kind === 'dir') {
    const config = await readEntry(join(git.path, 'config'));
    if (config?.kind === 'symlink')
      throw new AgentError(
        'config',
        `${config.path} is a symbolic link: the sandbox cannot replace it with a sanitized copy`,
        { site: { file: config.path } },
      );
    if (config?.kind === 'file') out.gitConfig = config.path;
  }
  return out;
}

/** The runner's paths as files or folders, by real path; those that do not exist are left out. */
export async function readHiddenEntries(paths: readonly string[]): Promise<HostEntry[]> {
  const out: HostEntry[] = [];
  for (const p of paths) {
    try {
      const real = await realpath(p);
      out.push({ path: real, kind: (await stat(real)).isDirectory() ? 'dir' : 'file' });
    } catch {
      // Not there: nothing to hide.
    }
  }
  return out;
}

/**
 * With the network on, name resolution needs resolv.conf's target, which on Ubuntu is a symlink
 * into /run (not bound): that one file is bound read-only.
 */
export async function readResolvConfTarget(path = '/etc/resolv.conf'): Promise<string | undefined> {
  const real = await realpath(path).catch(() => undefined);
  return real === undefined || isUnder(real, '/etc') ? undefined : real;
}

/** Never shown, however trusted the configuration that names them: the kernel's views and the device folder. */
const KERNEL_VIEWS = ['/proc', '/sys', '/dev'];

interface VisibleContext {
  home: string;
  hidden: readonly string[];
  workspace: string;
  /** Folders bound anyway (the system's): a path inside one is visible already. */
  bound: readonly string[];
}

/**
 * Pure: why `path` (absolute, normalized) may not be shown read-only to a process (or undefined:
 * it may, or it is visible already: see `alreadyVisible`). Trusted configuration names these
 * paths, so a folder under /home or /tmp is fine; what would show more than the one thing named
 * is not: a whole top folder, $HOME or above, a folder holding the workspace or a runner path.
 */
function whyNotVisible(path: string, c: VisibleContext): string | undefined {
  if (path === '/' || NEVER_BIND.includes(path)) return `would show all of ${path}`;
  if (KERNEL_VIEWS.some((k) => isUnder(path, k))) return 'is a kernel view';
  if (isUnder(c.home, path)) return 'is the home folder or holds it (a home holds credentials)';
  if (isUnder(c.workspace, path)) return 'holds the workspace (and what sits beside it)';
  if (c.hidden.some((h) => isUnder(path, h) || isUnder(h, path)))
    return "is or holds one of the runner's own files (RUNNER_TEMP, the file commands, the event, the runner's credentials)";
  return undefined;
}

const alreadyVisible = (path: string, c: VisibleContext) =>
  isUnder(path, c.workspace) || c.bound.some((b) => isUnder(path, b));

/**
 * The paths of `SpawnRequest.visible` to bind read-only, checked as given and by their real paths
 * (a symlink can point anywhere), and those refused with why. Paths visible anyway are dropped
 * without a word; so is a path inside another allowed one.
 */
export async function readVisiblePaths(
  paths: readonly string[],
  c: VisibleContext,
): Promise<{ allowed: string[]; refused: Array<{ path: string; why: string }> }> {
  const allowed: string[] = [];
  const refused: Array<{ path: string; why: string }> = [];
  for (const raw of paths) {
    if (!isAbsolute(raw)) {
      refused.push({ path: raw, why: 'is not an absolute path' });
      continue;
    }
    const path = normalize(raw).replace(/\/+$/, '') || '/';
    // Not there (a PATH entry of a folder never made): nothing to show, nothing to say.
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined) continue;
    const why = whyNotVisible(path, c) ?? (real === path ? undefined : whyNotVisible(real, c));
    if (why) refused.push({ path, why: real === path ? why : `${why} (it leads to ${real})` });
    else if (!alreadyVisible(path, c) || !alreadyVisible(real, c)) allowed.push(path);
  }
  return { allowed: allowed.filter((p) => !allowed.some((q) => q !== p && isUnder(p, q))), refused };
}

/**
 * Pure: why `dir` (a real path) cannot be $HOME inside, read-write (or undefined: it can). It may
 * sit inside a hidden runner folder (the caller made it there to last the job), never hold one.
 */
export function whyNotHomeDir(dir: string, c: { hidden: readonly string[]; workspace: string }): string | undefined {
  if (!isAbsolute(dir) || dir === '/') return 'must be an absolute folder other than /';
  if (SYSTEM_PATHS.some((s) => isUnder(dir, s)) || KERNEL_VIEWS.some((k) => isUnder(dir, k)))
    return 'is a system folder';
  if (isUnder(dir, c.workspace) || isUnder(c.workspace, dir)) return 'is inside the workspace or holds it';
  if (c.hidden.some((h) => isUnder(h, dir))) return "holds one of the runner's own files";
  return undefined;
}
