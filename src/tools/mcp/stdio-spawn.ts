/**
 * What the sandbox is asked for to start one stdio server, in the forms users write them:
 * - `node /opt/tools/server.js`, a server under `$HOME`, a command found on a PATH folder: the
 *   files the command names (the command, an absolute script argument, and the package each sits
 *   in) and the PATH folders are shown read-only (SpawnRequest.visible), since trusted
 *   configuration named them;
 * - `npx -y pkg`, `uvx pkg`: $HOME is a folder that lasts for the job (RUNNER_TEMP's, which the
 *   runner empties after the job), so a package fetched once, or primed by an earlier step, is
 *   there for every later start; npm and uv are told to use their cache without asking the
 *   registry first (and, with the network off, never to ask: a fast ENOTCACHED instead of
 *   minutes of retries);
 * - the network per server (`"network": true`, or the run's setting);
 * - a `docker` server with `dockerOutsideSandbox: true`: the Docker client runs outside bubblewrap.
 */
import { constants } from 'node:fs';
import { access, mkdir, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { AgentError } from '../../common/errors.js';
import type { SpawnRequest } from '../../sandbox/types.js';
import { resolveInWorkspace } from '../workspace.js';
import type { McpServerConfig } from './config.js';

type StdioConfig = Extract<McpServerConfig['transport'], { kind: 'stdio' }>;

export interface StdioSpawnContext {
  /** Real path of the workspace: a server's cwd is resolved in it. */
  workspace: string;
  /** The environment every command gets; the server's own `env` goes on top. */
  env: Readonly<Record<string, string>>;
  configDir?: string;
  /** The run's network setting; a server's own `network` wins. */
  network?: boolean;
  /** The job-long $HOME of stdio servers (jobHomeOf); absent: an empty one per process. */
  jobHome?: string;
}

/** The server's network: its own setting, else the run's; off when neither says. */
export const networkOf = (c: Pick<McpServerConfig, 'network'>, d: Pick<StdioSpawnContext, 'network'>): boolean =>
  c.network ?? d.network ?? false;

/**
 * Pure: where stdio servers' job-long $HOME goes: under RUNNER_TEMP in a workflow (emptied after
 * each job, so nothing lasts into another job or repository), under the user's cache folder for
 * the CLI. Undefined when neither is known.
 */
export function jobHomeOf(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.RUNNER_TEMP && isAbsolute(env.RUNNER_TEMP)) return join(env.RUNNER_TEMP, 'agent-action', 'mcp-home');
  const cache = env.XDG_CACHE_HOME || (env.HOME && join(env.HOME, '.cache'));
  return cache && isAbsolute(cache) ? join(cache, 'agent-action', 'mcp-home') : undefined;
}

/**
 * Pure: npm's and uv's settings for a job-long cache: use it without asking the registry first;
 * with the network off, never ask (ENOTCACHED at once, not minutes of retries). The server's own
 * `env` may say otherwise.
 */
function packageCacheEnv(network: boolean): Record<string, string> {
  return network ? { npm_config_prefer_offline: 'true' } : { npm_config_offline: 'true', UV_OFFLINE: '1' };
}

export async function stdioSpawnRequest(
  c: McpServerConfig & { transport: StdioConfig },
  d: StdioSpawnContext,
): Promise<SpawnRequest> {
  const t = c.transport;
  const cwd = t.cwd === undefined ? d.workspace : (await resolveInWorkspace(d.workspace, t.cwd, 'read')).abs;
  if (
    !(await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    throw new AgentError('config', `its cwd ${t.cwd} is not a folder in the workspace`);
  const network = networkOf(c, d);
  const env = { ...d.env, ...packageCacheEnv(network), ...t.env };
  const base = { argv: [t.command, ...t.args], workspace: d.workspace, cwd, env, stdin: 'pipe' as const };
  if (c.dockerOutsideSandbox) return { ...base, unconfined: true };
  if (d.jobHome !== undefined) await mkdir(d.jobHome, { recursive: true, mode: 0o700 });
  return {
    ...base,
    network,
    visible: await visiblePathsOf(t, env),
    ...(d.jobHome !== undefined && { homeDir: d.jobHome }),
    ...(d.configDir !== undefined && { configDir: d.configDir }),
  };
}

/** The PATH folders, then each file the command line names (by its path and its real path) and the package it sits in. */
async function visiblePathsOf(t: StdioConfig, env: Readonly<Record<string, string>>): Promise<string[]> {
  const pathDirs = (env.PATH ?? '').split(':').filter((p) => isAbsolute(p));
  const named: string[] = [];
  const command = isAbsolute(t.command) ? t.command : await findOnPath(t.command, pathDirs);
  if (command) named.push(command);
  for (const arg of t.args) if (isAbsolute(arg) && (await isFile(arg))) named.push(arg);
  const out = [...pathDirs];
  for (const file of named) {
    // By its real path: a symlink (node_modules/.bin/x) sits in a folder bound read-only already,
    // where a mount on the link itself cannot be made; what it leads to can.
    const real = await realpath(file).catch(() => file);
    for (const p of [real, await packageRootOf(real, env.HOME)]) if (p !== undefined && !out.includes(p)) out.push(p);
  }
  return out;
}

/** The first PATH folder holding an executable `name` (execvp's order); undefined for a name with a slash or none found. */
async function findOnPath(name: string, dirs: readonly string[]): Promise<string | undefined> {
  if (name.includes('/')) return undefined;
  for (const dir of dirs) {
    const path = join(dir, name);
    if (
      (await isFile(path)) &&
      (await access(path, constants.X_OK).then(
        () => true,
        () => false,
      ))
    )
      return path;
  }
  return undefined;
}

const isFile = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

/** Files that mark the root of what a script needs beside it: its node_modules, its virtual environment. */
const PACKAGE_MARKERS = ['package.json', 'pyvenv.cfg'];

/**
 * The nearest folder above `file` that holds a package.json (or a venv's pyvenv.cfg), below
 * `home` and below a top folder: `/opt/tools/srv/dist/index.js` needs `/opt/tools/srv/node_modules`.
 */
async function packageRootOf(file: string, home: string | undefined): Promise<string | undefined> {
  for (let dir = dirname(file); dirname(dir) !== '/' && dir !== home; dir = dirname(dir)) {
    if (home && isAbsolute(home) && !dir.startsWith(`${home}/`) && home.startsWith(`${dir}/`)) return undefined;
    for (const marker of PACKAGE_MARKERS) if (await isFile(join(dir, marker))) return dir;
  }
  return undefined;
}
