/**
 * What settings.json adds to a run, wired for the agent: MCP servers (tools/mcp/) and hooks
 * (hooks/). The face decides where the configuration comes from (trusted commits in the Action);
 * this only builds and ends them. Both run their processes in the run's sandbox with the environment
 * every command gets (the allow-list and what trusted configuration passes), their own `env` on top,
 * and the trusted `.gemini/` in place of the work tree's when the face has one.
 */
import type { HookGroup } from '../hooks/config.js';
import { createHookSystem, type HookSystem } from '../hooks/hook-system.js';
import type { Sandbox } from '../sandbox/types.js';
import type { McpServerConfig } from '../tools/mcp/config.js';
import type { McpSelection } from '../tools/mcp/selection.js';
import type { McpManager, McpStartMode } from '../tools/mcp/manager.js';
import { commandEnvOf } from '../sandbox/command-env.js';
import { jobHomeOf } from '../tools/mcp/stdio-spawn.js';

export interface ExtensionOptions {
  mcp?: {
    servers: readonly McpServerConfig[];
    /** `mcp.allowed` / `mcp.excluded`, `--allowed-mcp-server-names`. */
    selection?: McpSelection;
    start?: McpStartMode;
    startTimeoutMs?: number;
  };
  hooks?: readonly HookGroup[];
  /** A trusted copy of `.gemini/` (the Action's commit snapshot), bound over the work tree's in every hook and server sandbox. */
  configDir?: string;
  /** Whether stdio servers may reach the network; default: the sandbox's own setting. */
  network?: boolean;
  /** Between SIGTERM and SIGKILL when a hook or server is stopped (tests shorten it). */
  graceMs?: number;
  /** stdio servers' job-long $HOME; default: from RUNNER_TEMP (or the user's cache folder). */
  jobHome?: string;
}

export interface Extensions {
  mcp?: McpManager;
  hooks?: HookSystem;
  /** SessionEnd hooks, then every MCP server stopped (with its process tree). Idempotent. */
  close(): Promise<void>;
}

export interface ExtensionContext {
  root: string;
  sandbox: Sandbox;
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** Variables trusted configuration passes to every process as they are (ToolEnv.passEnv). */
  passEnv?: Readonly<Record<string, string>>;
  secrets: readonly string[];
  /** Problems found while starting (an MCP server that did not start): the face shows them. */
  warn: (message: string) => void;
}

export async function prepareExtensions(o: ExtensionOptions | undefined, c: ExtensionContext): Promise<Extensions> {
  const servers = o?.mcp?.servers ?? [];
  // Made only for a server or a hook: the many runs that have neither never build it.
  let shared: ReturnType<typeof sharedOf> | undefined;
  const sharedOf = () => ({
    sandbox: c.sandbox,
    workspace: c.root,
    env: { ...commandEnvOf(c.baseEnv, c.secrets), ...c.passEnv },
    ...(o?.configDir !== undefined && { configDir: o.configDir }),
    ...(o?.graceMs !== undefined && { graceMs: o.graceMs }),
  });
  // Where stdio servers' package caches last for the job (RUNNER_TEMP's folder in a workflow).
  const jobHome = servers.length > 0 ? (o?.jobHome ?? jobHomeOf(c.baseEnv)) : undefined;
  // Imported only when a server is configured: the MCP client and its schema validator (Ajv) are
  // a chunk of their own that a run without servers never loads (start-up time and memory).
  const mcp =
    servers.length > 0
      ? (await import('../tools/mcp/manager.js')).createMcpManager({
          ...(shared ??= sharedOf()),
          servers,
          secrets: c.secrets,
          ...(o?.mcp?.selection && { selection: o.mcp.selection }),
          ...(o?.mcp?.start && { start: o.mcp.start }),
          ...(o?.mcp?.startTimeoutMs !== undefined && { startTimeoutMs: o.mcp.startTimeoutMs }),
          ...(o?.network !== undefined && { network: o.network }),
          ...(jobHome !== undefined && { jobHome }),
          onWarning: c.warn,
        })
      : undefined;
  const hooks = o?.hooks?.length ? createHookSystem({ ...(shared ??= sharedOf()), groups: o.hooks }) : undefined;
  if (mcp?.startMode === 'eager') await mcp.start();
  let closed: Promise<void> | undefined;
  return {
    ...(mcp && { mcp }),
    ...(hooks && { hooks }),
    close: () =>
      (closed ??= (async () => {
        try {
          await hooks?.sessionEnd('exit');
        } finally {
          await mcp?.stop();
        }
      })()),
  };
}
