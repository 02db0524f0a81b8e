/**
 * The MCP servers of one run: a plain factory any face can use (the Action, `-p`, `mcp list`, an
 * ACP session). Servers start in parallel, each within a start timeout, either when the agent is
 * prepared (`eager`) or when their tools are first needed (`lazy`: the first model request, or a
 * call on resume). A server that cannot start, or exits later, never ends the run: its tools give
 * the model a clear error, the face gets a warning, and `status()` says why. `stop()` ends every
 * server and everything it started.
 */
import { messageOf } from '../../common/errors.js';
import type { Sandbox } from '../../sandbox/types.js';
import type { Tool } from '../define-tool.js';
import type { StartTimer } from '../process-group.js';
import { isToolEnabled, type McpServerConfig } from './config.js';
import { blockedBySelection, type McpSelection } from './selection.js';
import { connectMcpServer, type McpConnection } from './connection.js';
import { createMcpTool } from './mcp-tool.js';
import { mcpToolName } from './names.js';

export type McpStartMode = 'eager' | 'lazy';

/** Without a `timeout` of its own, a server gets this long to start and list its tools. */
const DEFAULT_MCP_START_TIMEOUT_MS = 60_000;

type McpServerState = 'not_started' | 'starting' | 'ready' | 'failed' | 'exited' | 'blocked' | 'stopped';

export interface McpServerStatus {
  name: string;
  /** Where it was configured (`.gemini/settings.json`, `input 'mcp-servers'`). */
  source: string;
  /** `node server.js (stdio)`, `https://... (http)`. */
  target: string;
  state: McpServerState;
  /** failed, exited, blocked: why. */
  reason?: string;
  /** The tools registered for it: our name and the server's. */
  tools: Array<{ name: string; serverTool: string; description: string }>;
  /** How long it took to start (ready or failed). */
  startMs?: number;
}

export interface McpManagerOptions {
  servers: readonly McpServerConfig[];
  selection?: McpSelection;
  sandbox: Sandbox;
  /** Real path of the workspace. */
  workspace: string;
  /** The environment every command gets (sandbox/command-env.ts); a stdio server's `env` goes on top. */
  env: Readonly<Record<string, string>>;
  secrets: readonly string[];
  /** A trusted copy of `.gemini/`, bound over the work tree's in every stdio server's sandbox. */
  configDir?: string;
  /** Whether stdio servers may reach the network (the run's sandbox setting; a server's own `network` wins). */
  network?: boolean;
  /** The job-long $HOME of stdio servers, their package cache (stdio-spawn.ts jobHomeOf). */
  jobHome?: string;
  start?: McpStartMode;
  startTimeoutMs?: number;
  graceMs?: number;
  clientVersion?: string;
  /** A server failed, exited, or two tools got one name: for the face to show. */
  onWarning?: (message: string) => void;
  now?: () => number;
  /** The start and call deadlines (real timers by default; tests fire them on an event instead). */
  startTimer?: StartTimer;
}

export interface McpManager {
  readonly startMode: McpStartMode;
  /** Starts every allowed server (once; later calls wait for the same start). Never throws. */
  start(): Promise<void>;
  /** The tools of the servers that started, in configuration order (a later tool replaces an earlier one of the same name). */
  tools(): Tool[];
  status(): McpServerStatus[];
  /** Why a tool named like `mcp_<server>_...` of a configured server is not there, if that is the case. */
  explainMissing(toolName: string): string | undefined;
  /** Stops every server (and its process tree); idempotent. */
  stop(): Promise<void>;
}

interface Entry {
  config: McpServerConfig;
  status: McpServerStatus;
  connection?: McpConnection;
}

/** One manager's state: its servers and where their start and stop are. */
interface Servers {
  o: McpManagerOptions;
  now: () => number;
  entries: Entry[];
  starting?: Promise<void>;
  stopped: boolean;
  /** Aborted by `stop()`: gives up the starts in progress. */
  giveUp: AbortController;
  registered: Tool[];
}

export function createMcpManager(o: McpManagerOptions): McpManager {
  const s: Servers = {
    o,
    now: o.now ?? Date.now,
    entries: o.servers.map((config) => entryOf(config, o.selection)),
    stopped: false,
    giveUp: new AbortController(),
    registered: [],
  };
  return {
    startMode: o.start ?? 'eager',
    start() {
      s.starting ??= (async () => {
        await Promise.all(s.entries.filter((e) => e.status.state === 'not_started').map((e) => startOne(s, e)));
        registerTools(s);
      })();
      return s.starting;
    },
    tools: () => s.registered,
    status() {
      for (const e of s.entries) if (e.connection) connectionOf(s, e);
      return s.entries.map((e) => ({ ...e.status, tools: [...e.status.tools] }));
    },
    explainMissing: (toolName) => explainMissing(s.entries, toolName),
    stop: () => stopAll(s),
  };
}

function entryOf(config: McpServerConfig, selection: McpSelection | undefined): Entry {
  const blocked = selection ? blockedBySelection(config.name, selection) : undefined;
  return {
    config,
    status: {
      name: config.name,
      source: config.source.label,
      target: targetOf(config),
      state: blocked ? 'blocked' : 'not_started',
      ...(blocked && { reason: blocked }),
      tools: [],
    },
  };
}

async function startOne(s: Servers, e: Entry): Promise<void> {
  const { o } = s;
  const t0 = s.now();
  e.status.state = 'starting';
  // A long per-request `timeout` (a server that pulls an image first) extends the start; a short one does not cut it.
  const timeoutMs = Math.max(e.config.timeoutMs ?? 0, o.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS);
  try {
    const connection = await connectMcpServer(
      e.config,
      {
        sandbox: o.sandbox,
        workspace: o.workspace,
        env: o.env,
        clientVersion: o.clientVersion ?? '0.1.0',
        signal: s.giveUp.signal,
        ...(o.configDir !== undefined && { configDir: o.configDir }),
        ...(o.network !== undefined && { network: o.network }),
        ...(o.jobHome !== undefined && { jobHome: o.jobHome }),
        ...(o.graceMs !== undefined && { graceMs: o.graceMs }),
        ...(o.startTimer !== undefined && { startTimer: o.startTimer }),
      },
      timeoutMs,
    );
    if (s.stopped) return void (await connection.close().catch(() => undefined));
    e.connection = connection;
    e.status.state = 'ready';
  } catch (err) {
    if (s.stopped) return void (e.status.state = 'stopped');
    e.status.state = 'failed';
    e.status.reason = messageOf(err);
    o.onWarning?.(`MCP server ${e.config.name} (${e.config.source.label}) did not start: ${e.status.reason}`);
  } finally {
    e.status.startMs = s.now() - t0;
  }
}

/** The tools of the started servers, in configuration order; a later tool of one name replaces the earlier. */
function registerTools(s: Servers): void {
  const byName = new Map<string, { tool: Tool; entry: Entry }>();
  for (const e of s.entries) {
    e.status.tools = [];
    if (!e.connection) continue;
    for (const def of e.connection.tools) {
      if (!isToolEnabled(def.name, e.config)) continue;
      const name = mcpToolName(e.config.name, def.name);
      const earlier = byName.get(name);
      if (earlier) {
        earlier.entry.status.tools = earlier.entry.status.tools.filter((t) => t.name !== name);
        s.o.onWarning?.(
          `MCP tool name ${name} is taken twice: ${e.config.name}'s ${def.name} replaces ${earlier.entry.config.name}'s (Gemini CLI keeps the last one registered too)`,
        );
      }
      byName.set(name, {
        tool: createMcpTool(name, {
          server: e.config.name,
          def,
          connection: () => connectionOf(s, e),
          timeoutMs: e.config.timeoutMs,
          context: contextOf(e.config),
        }),
        entry: e,
      });
      e.status.tools.push({ name, serverTool: def.name, description: def.description ?? '' });
    }
  }
  s.registered = [...byName.values()].map((v) => v.tool);
}

/** The server's live connection, or why there is none; notices (and warns of) a server that exited. */
function connectionOf(s: Servers, e: Entry): McpConnection | { unavailable: string } {
  if (s.stopped) return { unavailable: 'was stopped: the run is over' };
  const dead = e.connection?.deadReason();
  if (dead) {
    if (e.status.state !== 'exited') {
      e.status.state = 'exited';
      e.status.reason = dead;
      s.o.onWarning?.(`MCP server ${e.config.name} ${dead}`);
    }
    return { unavailable: dead };
  }
  return e.connection ?? { unavailable: 'is not running' };
}

function explainMissing(entries: readonly Entry[], toolName: string): string | undefined {
  for (const e of entries) {
    if (!toolName.startsWith(mcpToolName(e.config.name, ''))) continue;
    if (e.status.state === 'failed')
      return `${toolName} is unavailable: MCP server ${e.config.name} did not start (${e.status.reason})`;
    if (e.status.state === 'blocked')
      return `${toolName} is unavailable: MCP server ${e.config.name} is ${e.status.reason}`;
    if (e.status.state === 'exited')
      return `${toolName} is unavailable: MCP server ${e.config.name} ${e.status.reason}`;
  }
  return undefined;
}

async function stopAll(s: Servers): Promise<void> {
  if (s.stopped) return;
  s.stopped = true;
  s.giveUp.abort();
  await s.starting?.catch(() => undefined);
  await Promise.all(
    s.entries.map(async (e) => {
      const c = e.connection;
      if (!c) return;
      await c.close().catch(() => undefined);
      if (e.status.state === 'ready') e.status.state = 'stopped';
    }),
  );
}

function targetOf(c: McpServerConfig): string {
  const t = c.transport;
  if (t.kind === 'stdio') return `${t.shown ?? [t.command, ...t.args].join(' ')} (stdio)`;
  return `${t.url} (${t.protocol === 'sse' ? 'sse' : 'http'})`;
}

/** Gemini CLI's mcp_context for hooks: connection details, no secrets (env and headers are left out). */
function contextOf(c: McpServerConfig): Record<string, unknown> {
  const t = c.transport;
  if (t.kind === 'stdio')
    return { server_name: c.name, command: t.command, args: t.args, ...(t.cwd !== undefined && { cwd: t.cwd }) };
  return { server_name: c.name, url: t.url };
}
