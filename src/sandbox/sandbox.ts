/**
 * OS isolation for every process the model can influence: the shell tool's commands now, hooks and
 * MCP stdio servers later (they call `spawn` the same way). Linux, bubblewrap.
 *
 * Each process gets fresh user, mount, PID, IPC and UTS namespaces (and network, unless allowed),
 * no capabilities, no nested user namespaces, and a filesystem built from nothing: /usr, /etc,
 * /opt and the merged-/usr symlinks read-only, a fresh /proc (no other process's environ), /dev,
 * a private /tmp, an empty tmpfs $HOME, the workspace read-write with `.git/`, `.gemini/` and
 * `.github/` read-only over it and `.git/config` replaced by a copy without credentials. Nothing of
 * the runner's RUNNER_TEMP, file commands (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT,
 * GITHUB_STEP_SUMMARY, GITHUB_STATE) or event file is mounted, and their variables are dropped.
 * `--die-with-parent` and the PID namespace end every process of a call with it.
 *
 * Why bwrap called directly, not @anthropic-ai/sandbox-runtime (evaluated: 0.0.78, which wraps the
 * same bwrap on Linux):
 * - Its filesystem model reads everything by default and denies listed paths; ours binds only
 *   what a command needs. A deny list misses what nobody thought of (a new runner folder, a
 *   credential file under $HOME); an allow list cannot.
 * - Its wrapper returns a shell string to run with `sh -c`, and keeps process-wide state (proxy
 *   servers, socat bridges, a count of active sandboxes); we want argv in, a process out, one
 *   object per run, and the PID-namespace kill semantics a timeout needs.
 * - Its network filtering (HTTP and SOCKS proxies per domain, socat, a MITM CA) is far more than
 *   on/off, which is what the policy decides today, and adds socat and ripgrep as runtime needs.
 * - It is a 0.0.x "research preview" whose options change between releases; the bwrap flags we
 *   use have been stable for years, and this module is a few hundred lines we can read and test.
 * What we took from reading it: `--unshare-user` with `--cap-drop ALL` even as root (as root,
 * bwrap otherwise keeps every capability and a command can remount a read-only bind read-write;
 * verified here), and that Ubuntu 24.04's AppArmor restriction is the failure to expect.
 * What it has and we do not: a seccomp filter against AF_UNIX sockets; with the network
 * namespace unshared, the host's abstract sockets are out of reach anyway.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentError, messageOf } from '../common/errors.js';
import { buildBwrapArgs, isUnder } from './bwrap-args.js';
import { sanitizeGitConfig } from './git-config.js';
import {
  chooseToolchainDirs,
  chooseWritableDirs,
  readHiddenEntries,
  readProtectedLayout,
  readResolvConfTarget,
  readSystemEntries,
  readToolchainDirs,
  readVisiblePaths,
  whyNotHomeDir,
} from './layout.js';
import {
  boundedArgv,
  DEFAULT_BOUNDS,
  findPrlimit,
  readHardLimits,
  type HardLimits,
  type ProcessBounds,
} from './bounds.js';
import { holdPlaceholders, releasePlaceholders, type Placeholders } from './placeholders.js';
import { DATA_FD, STATUS_FD, spawnBwrap, type BwrapProcess } from './process-bwrap.js';
import { withTaskBound } from './process-count.js';
import { spawnDirect } from './process-direct.js';
import { DEFAULT_BWRAP, probeBwrap, supportsDisableUserns, type Probe } from './probe.js';
import type { Remedy } from './remedy.js';
import { runnerInstallSecrets, runnerPathsOf, withoutRunnerVariables } from './runner-paths.js';
import { APPARMOR_FIX } from './remedy.js';
import type { ProbeResult, Sandbox, SandboxMode, SandboxStatus, SpawnRequest } from './types.js';

export interface SandboxOptions {
  mode: SandboxMode;
  /** Processes may reach the network (no network namespace). Default false. */
  network?: boolean;
  /** The environment of the host process: where RUNNER_TEMP and the file commands are named. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Default /usr/bin/bwrap. */
  bwrap?: string;
  /** Default: run bwrap once. Tests inject a result (an AppArmor refusal). */
  probe?: Probe;
  /** Tried once after a failed probe. Only the Action passes one (createAppArmorRemedy). */
  remedy?: Remedy;
  /** Extra read-only folders (toolchains outside the defaults). */
  readOnly?: readonly string[];
  /** What bounds each sandboxed call (processes, memory, file size); default DEFAULT_BOUNDS. */
  bounds?: ProcessBounds;
}

export function createSandbox(o: SandboxOptions): Sandbox {
  const bwrap = o.bwrap ?? DEFAULT_BWRAP;
  const network = o.network ?? false;
  const placeholders: Placeholders = { counts: new Map(), queue: Promise.resolve() };
  let version = '';
  let statusOnce: Promise<SandboxStatus> | undefined;
  const bounds = o.bounds ?? DEFAULT_BOUNDS;
  let limitsOnce: Promise<Limits> | undefined;
  const limits = () =>
    (limitsOnce ??= Promise.all([findPrlimit(), readHardLimits()]).then(([prlimit, hard]) => ({
      bounds,
      prlimit,
      hard,
    })));

  const launch = async (req: SpawnRequest, bwrapVersion: string) =>
    spawnSandboxed(req, {
      bwrap,
      version: bwrapVersion,
      network,
      hostEnv: o.hostEnv,
      readOnly: o.readOnly ?? [],
      placeholders,
      limits: await limits(),
    });
  const probe: Probe =
    o.probe ??
    (() =>
      probeBwrap(bwrap, async (dir, bwrapVersion) => {
        const p = await launch(
          { argv: ['true'], workspace: dir, cwd: dir, env: { PATH: '/usr/bin:/bin' }, network: false },
          bwrapVersion,
        );
        let stderr = '';
        p.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        p.stdout.resume();
        const [done, started] = await Promise.all([p.closed, p.started]);
        return { code: done.code, stderr, started: started !== undefined };
      }));

  const resolveStatus = async (): Promise<SandboxStatus> => {
    if (o.mode === 'off')
      return {
        kind: 'unconfined',
        warning:
          'the sandbox is off: commands run with the full access of this process (its files, its network, its other processes)',
      };
    let r = await probe();
    let remedy: string | undefined;
    if (!r.ok && o.remedy) {
      const applied = await o.remedy.apply(r);
      remedy = applied.message;
      if (applied.applied) r = await probe();
    }
    if (r.ok) {
      version = r.version;
      const missing = (await limits()).prlimit
        ? {}
        : { rlimitsMissing: 'prlimit (util-linux) is not installed: only the process count bounds a call' };
      return {
        kind: 'sandboxed',
        bwrap: r.bwrap,
        version: r.version,
        network,
        ...(remedy ? { remedy } : {}),
        bounds,
        ...missing,
      };
    }
    const { reason, fix } = explainFailure(r, remedy);
    if (o.mode === 'required') return { kind: 'refused', reason, fix };
    return { kind: 'unconfined', warning: `commands run without the sandbox: ${reason}. To fix: ${fix}` };
  };

  return {
    mode: o.mode,
    status: () => (statusOnce ??= resolveStatus()),
    async spawn(req) {
      // Trusted configuration's own choice (a Docker client): no sandbox to ask for.
      if (req.unconfined) return spawnDirect({ ...req, env: withoutRunnerVariables(req.env) });
      const s = await (statusOnce ??= resolveStatus());
      if (s.kind === 'refused')
        throw new AgentError('config', `the sandbox is required and unavailable: ${s.reason}. To fix: ${s.fix}`);
      if (s.kind === 'unconfined') return spawnDirect({ ...req, env: withoutRunnerVariables(req.env) });
      return launch(req, version);
    },
  };
}

/** Pure: a failed probe as a sentence of why and a sentence of how to fix it. */
export function explainFailure(
  r: Extract<ProbeResult, { ok: false }>,
  remedy?: string,
): { reason: string; fix: string } {
  const tried = remedy ? ` (tried: ${remedy})` : '';
  switch (r.kind) {
    case 'missing':
      return {
        reason: `${r.message}${tried}`,
        fix: 'install bubblewrap before this step (`sudo apt-get install -y bubblewrap` on Debian and Ubuntu)',
      };
    case 'userns_denied':
      return {
        reason: `bubblewrap may not create user namespaces here: ${firstLine(r.message)}${tried}`,
        fix: `on Ubuntu 23.10 and later (the ubuntu-24.04 runners), AppArmor restricts unprivileged user namespaces: run \`${APPARMOR_FIX}\` in a step before this one, or install an AppArmor profile that allows ${r.bwrap} to use them`,
      };
    case 'failed':
      return {
        reason: `bubblewrap failed: ${firstLine(r.message)}${tried}`,
        fix: `run \`agent-action sandbox check\` on this machine to see which part fails`,
      };
  }
}

const firstLine = (s: string) => s.trim().split('\n')[0] ?? '';

interface LaunchContext {
  bwrap: string;
  version: string;
  network: boolean;
  hostEnv: Readonly<Record<string, string | undefined>>;
  readOnly: readonly string[];
  placeholders: Placeholders;
  limits: Limits;
}

/** The bounds of every call, how they are set (prlimit's path, none without it) and the host's ceilings. */
interface Limits {
  bounds: ProcessBounds;
  prlimit: string | undefined;
  hard: HardLimits;
}

/** One process in bubblewrap: look at the paths, make absent protected folders, build, spawn, clean up. */
async function spawnSandboxed(given: SpawnRequest, c: LaunchContext): Promise<BwrapProcess> {
  // Real paths: a mount follows symlinks, and the protected folders are found by their paths.
  const req = { ...given, workspace: await realpath(given.workspace), cwd: await realpath(given.cwd) };
  if (!isUnder(req.cwd, req.workspace))
    throw new AgentError('internal', `sandbox: cwd ${req.cwd} is outside the workspace ${req.workspace}`);
  if (req.workspace === '/') throw new AgentError('config', 'sandbox: the workspace cannot be /');
  const env = withoutRunnerVariables(req.env);
  const hiddenPaths = [...runnerPathsOf(c.hostEnv), ...runnerInstallSecrets(process.execPath)];
  const home = homeFor(env.HOME, req.workspace, hiddenPaths);
  const network = req.network ?? c.network;
  let protectedLayout;
  try {
    protectedLayout = await readProtectedLayout(req.workspace);
  } catch (e) {
    throw new AgentError('config', `sandbox: ${messageOf(e)}`);
  }
  const { allowed: writable, refused } = chooseWritableDirs(req.writable ?? [], { home, hidden: hiddenPaths });
  if (refused.length)
    throw new AgentError('config', `sandbox: these folders cannot be made writable: ${refused.join(', ')}`);
  const system = await readSystemEntries();
  const bound = system.filter((e) => e.kind !== 'symlink').map((e) => e.path);
  const toolchains = await readToolchainDirs(env.PATH, { bound, home, hidden: hiddenPaths, workspace: req.workspace });
  const visible = await readVisiblePaths(req.visible ?? [], {
    home,
    hidden: hiddenPaths,
    workspace: req.workspace,
    bound: [...bound, ...toolchains],
  });
  const homeSource = await readHomeSource(req.homeDir, { hidden: hiddenPaths, workspace: req.workspace });
  const resolv = network ? await readResolvConfTarget() : undefined;
  const gitConfig = protectedLayout.gitConfig
    ? sanitizeGitConfig(await readFile(protectedLayout.gitConfig, 'utf8')).text
    : undefined;
  const overlays = await configOverlay(req.configDir, req.workspace, protectedLayout.present);

  const made = await holdPlaceholders(protectedLayout, c.placeholders);
  try {
    const args = buildBwrapArgs({
      argv: c.limits.prlimit ? boundedArgv({ ...c.limits, prlimit: c.limits.prlimit }, req.argv) : req.argv,
      workspace: req.workspace,
      cwd: req.cwd,
      home,
      ...(homeSource !== undefined && { homeSource }),
      network,
      system,
      // Extra folders obey the toolchain rules too: never a home, a hidden path or the workspace.
      readOnly: [
        ...toolchains,
        ...chooseToolchainDirs(c.readOnly.join(':'), {
          bound: [],
          home,
          hidden: hiddenPaths,
          workspace: req.workspace,
        }),
        ...(resolv ? [resolv] : []),
      ],
      visible: visible.allowed,
      writable,
      protectedPaths: [
        ...protectedLayout.present,
        ...protectedLayout.absent.map((path) => ({ path, kind: 'dir' as const })),
      ],
      overlays,
      gitConfig: gitConfig === undefined ? undefined : { path: protectedLayout.gitConfig!, dataFd: DATA_FD },
      hidden: await readHiddenEntries(hiddenPaths),
      statusFd: STATUS_FD,
      disableUserns: supportsDisableUserns(c.version),
    });
    const p = spawnBwrap({
      bwrap: c.bwrap,
      args,
      env: { ...sandboxEnv(env, home) },
      stdin: req.stdin,
      data: gitConfig,
    });
    // The call is over only when its placeholders are gone: the caller may look at the tree next.
    const closed = p.closed.then(async (status) => {
      await releasePlaceholders(made, c.placeholders);
      return status;
    });
    const notVisible = visible.refused.length > 0 ? { notVisible: visible.refused } : {};
    return withTaskBound({ ...p, closed, bounds: c.limits.bounds, ...notVisible }, c.limits.bounds.processes);
  } catch (e) {
    await releasePlaceholders(made, c.placeholders);
    throw e;
  }
}

/** SpawnRequest.homeDir by its real path, checked (whyNotHomeDir); undefined when none was asked for. */
async function readHomeSource(
  dir: string | undefined,
  c: { hidden: readonly string[]; workspace: string },
): Promise<string | undefined> {
  if (dir === undefined) return undefined;
  const real = await realpath(dir).catch(() => undefined);
  if (!real || !(await stat(real)).isDirectory())
    throw new AgentError('config', `sandbox: the home folder ${dir} is not a folder`);
  const hidden = await Promise.all(c.hidden.map((h) => realpath(h).catch(() => h)));
  const why = whyNotHomeDir(real, { hidden, workspace: c.workspace });
  if (why) throw new AgentError('config', `sandbox: ${dir} cannot be the home folder: it ${why}`);
  return real;
}

/** The trusted `.gemini/` over the work tree's: a real folder, and only where the work tree's is a folder or absent. */
async function configOverlay(
  configDir: string | undefined,
  workspace: string,
  present: readonly { path: string; kind: string }[],
): Promise<Array<{ source: string; path: string }>> {
  if (configDir === undefined) return [];
  const target = join(workspace, '.gemini');
  const source = await realpath(configDir).catch(() => undefined);
  if (!source || !(await stat(source)).isDirectory())
    throw new AgentError('config', `sandbox: the trusted configuration folder ${configDir} is not a folder`);
  if (present.some((e) => e.path === target && e.kind !== 'dir'))
    throw new AgentError(
      'config',
      `sandbox: ${target} is not a folder, so the trusted .gemini/ cannot be put in its place`,
    );
  return [{ source, path: target }];
}

/**
 * Pure: $HOME inside: the caller's path (an empty tmpfs there), unless it is /, inside the
 * workspace, or inside a hidden runner folder (whose name would then show in the sandbox).
 */
export function homeFor(home: string | undefined, workspace: string, hidden: readonly string[] = []): string {
  if (
    !home ||
    !home.startsWith('/') ||
    home === '/' ||
    isUnder(home, workspace) ||
    hidden.some((h) => isUnder(home, h))
  )
    return '/home/sandbox';
  return home;
}

/**
 * Pure: the environment inside: HOME set, no temp or runtime folder that does not exist there, and
 * update checks off (with an empty home every npm call would check, ~0.7 s each without network).
 */
function sandboxEnv(env: Record<string, string>, home: string): Record<string, string> {
  const out: Record<string, string> = {
    npm_config_update_notifier: 'false',
    NO_UPDATE_NOTIFIER: '1',
    ...env,
    HOME: home,
  };
  delete out.TMPDIR;
  delete out.XDG_RUNTIME_DIR;
  return out;
}

/**
 * The sandbox of code paths that were given none (tests, library use): `auto`, from this
 * process's environment. Created on first use, not at import.
 */
let fallback: Sandbox | undefined;
export function defaultSandbox(): Sandbox {
  return (fallback ??= createSandbox({ mode: 'auto', hostEnv: process.env }));
}
