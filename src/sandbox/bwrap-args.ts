/**
 * Pure: the bwrap command line for one process, from a plan whose every path has already been
 * looked at (sandbox/layout.ts). bwrap applies its options in order, so the order here is the
 * design: a read-only system, fresh /proc, /dev, /tmp and $HOME, toolchains, then the workspace
 * read-write, then its protected folders read-only over it, then the sanitized .git/config, then
 * the runner's files hidden wherever they would show through.
 */

/** A host path as found on disk: bound as a folder or file, or recreated as the same symlink. */
export type HostEntry = { path: string; kind: 'dir' | 'file' } | { path: string; kind: 'symlink'; target: string };

export interface BwrapPlan {
  argv: readonly string[];
  workspace: string;
  cwd: string;
  /** The home folder ($HOME inside): empty, unless `homeSource` is bound there. */
  home: string;
  /** A host folder bound read-write as $HOME (a job-long package cache), instead of an empty tmpfs. */
  homeSource?: string;
  network: boolean;
  /** /usr, /etc, the /bin and /lib symlinks of a merged-/usr system, /opt... */
  system: readonly HostEntry[];
  /** Toolchain folders from PATH, resolv.conf's target when the network is on. */
  readOnly: readonly string[];
  /** Files and folders trusted configuration names (an MCP server's script, its PATH folders): read-only. */
  visible?: readonly string[];
  writable: readonly string[];
  /** `.git`, `.gemini`, `.github` inside the workspace, bound read-only over the writable tree. */
  protectedPaths: readonly HostEntry[];
  /** Folders bound read-only over a protected path (a trusted `.gemini/` over the work tree's). */
  overlays?: ReadonlyArray<{ source: string; path: string }>;
  /** Where the sanitized .git/config goes, read from `dataFd`. */
  gitConfig?: { path: string; dataFd: number };
  /** The runner's files and folders, where a bound tree would otherwise show them. */
  hidden: readonly HostEntry[];
  statusFd: number;
  /** bwrap >= 0.8: no user namespaces inside (less kernel surface for an escape). */
  disableUserns: boolean;
}

export function buildBwrapArgs(p: BwrapPlan): string[] {
  const a: string[] = [
    // A user namespace even when we are root, so that --cap-drop ALL leaves a process that
    // cannot remount its read-only binds read-write (as root, bwrap otherwise keeps every capability).
    '--unshare-user',
    ...(p.disableUserns ? ['--disable-userns'] : []),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(p.network ? [] : ['--unshare-net']),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--json-status-fd',
    String(p.statusFd),
  ];
  for (const e of p.system) a.push(...mountHost(e));
  a.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/var/tmp', '--tmpfs', '/run');
  if (p.homeSource !== undefined) a.push('--bind', p.homeSource, p.home);
  else if (!isUnder(p.home, '/tmp')) a.push('--tmpfs', p.home);
  else a.push('--dir', p.home);
  for (const path of p.readOnly) a.push('--ro-bind', path, path);
  for (const path of p.visible ?? []) a.push('--ro-bind', path, path);
  a.push('--bind', p.workspace, p.workspace);
  for (const path of p.writable) a.push('--bind', path, path);
  for (const e of p.protectedPaths) a.push(...mountHost(e));
  for (const o of p.overlays ?? []) a.push('--ro-bind', o.source, o.path);
  if (p.gitConfig) a.push('--ro-bind-data', String(p.gitConfig.dataFd), p.gitConfig.path);
  const visible = [
    ...p.system.filter((e) => e.kind !== 'symlink').map((e) => e.path),
    ...p.readOnly,
    ...(p.visible ?? []),
    p.workspace,
    ...p.writable,
  ];
  const hiddenDirs = p.hidden.filter((e) => e.kind === 'dir').map((e) => e.path);
  for (const e of p.hidden) {
    if (!visible.some((root) => isUnder(e.path, root))) continue;
    // Inside a folder already hidden: nothing of it shows (and the empty folder is read-only).
    if (hiddenDirs.some((d) => d !== e.path && isUnder(e.path, d))) continue;
    if (e.kind === 'dir') a.push('--tmpfs', e.path, '--remount-ro', e.path);
    // /dev/null bound without device access (bwrap binds are nodev): it cannot even be opened.
    else if (e.kind === 'file') a.push('--ro-bind', '/dev/null', e.path);
  }
  a.push('--chdir', p.cwd, '--', ...p.argv);
  return a;
}

/** A host entry read-only at its own path, or the same symlink recreated (a bind would follow it). */
function mountHost(e: HostEntry): string[] {
  if (e.kind === 'symlink') return ['--symlink', e.target, e.path];
  return ['--ro-bind', e.path, e.path];
}

/** Pure: `path` is `root` or inside it (both absolute, normalized). */
export function isUnder(path: string, root: string): boolean {
  // `/` ends with its separator: every absolute path starts with it.
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}
