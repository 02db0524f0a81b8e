/**
 * One MCP server, connected with the official SDK client: a stdio server is started in the
 * sandbox (its own process tree, the environment every command gets plus the `env` it declares, the trusted
 * `.gemini/` in place of the work tree's) and spoken to over its pipes; an HTTP server is reached
 * with the SDK's Streamable HTTP transport (SSE when `type` says so, or as the fallback Gemini CLI
 * also tries). Connects, lists its tools (every page), and from then on calls them. A server that
 * exits is noticed at once: its pending calls fail with the reason, later calls fail before sending.
 *
 * Loaded with the manager, at the one seam a run without MCP servers never crosses (core/extensions.ts).
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool as McpToolDef,
} from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AgentError, messageOf } from '../../common/errors.js';
import type { Sandbox } from '../../sandbox/types.js';
import type { McpServerConfig } from './config.js';
import { createLenientValidator } from './lenient-validator.js';
import { createConfinedStdioTransport, type ConfinedStdioTransport } from './stdio-transport.js';
import { networkOf, stdioSpawnRequest } from './stdio-spawn.js';
import { explainStartFailure } from './start-failure.js';
import { startRealTimer, type StartTimer } from '../process-group.js';

/**
 * The SDK's own request timers, set out of reach (the largest delay a Node timer takes): the
 * deadlines here own every limit, on a timer a test can fire.
 */
const SDK_NO_TIMEOUT_MS = 2_147_483_647;

export interface ConnectDeps {
  sandbox: Sandbox;
  /** Real path of the workspace: a stdio server's cwd is resolved in it. */
  workspace: string;
  /** The environment every command gets (sandbox/command-env.ts); the server's own `env` goes on top. */
  env: Readonly<Record<string, string>>;
  /** A trusted copy of `.gemini/` bound over the work tree's (SpawnRequest.configDir). */
  configDir?: string;
  /** Whether a stdio server may reach the network (the run's sandbox setting; a server's own `network` wins). */
  network?: boolean;
  /** The job-long $HOME of stdio servers (stdio-spawn.ts). */
  jobHome?: string;
  /** Between SIGTERM and SIGKILL when a server is stopped. */
  graceMs?: number;
  clientVersion: string;
  /** Aborting gives up a start in progress (the run is over) and stops what was started. */
  signal?: AbortSignal;
  /** The start and call deadlines (real timers by default; tests fire them on an event instead). */
  startTimer?: StartTimer;
}

export interface McpConnection {
  readonly tools: readonly McpToolDef[];
  /** Whether the server has exited or the connection closed (then: why). */
  deadReason(): string | undefined;
  call(
    name: string,
    args: Record<string, unknown>,
    o: { signal: AbortSignal; timeoutMs: number; onProgress?: (line: string) => void },
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Throws an Error whose message says why the server could not be used (for the tool errors and `mcp list`). */
export async function connectMcpServer(c: McpServerConfig, d: ConnectDeps, timeoutMs: number): Promise<McpConnection> {
  const client: Client = new Client(
    { name: 'agent-action', version: d.clientVersion },
    { capabilities: { roots: {} }, jsonSchemaValidator: createLenientValidator() },
  );
  const startTimer = d.startTimer ?? startRealTimer;
  // The one root a server may know: the workspace (Gemini CLI sends its workspace folders too).
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: pathToFileURL(d.workspace).href, name: 'workspace' }],
  }));

  let dead: string | undefined;
  let stdio: ConfinedStdioTransport | undefined;
  const transports: Transport[] = [];
  let givenUp = false;
  const onGiveUp = () => (givenUp = true);
  const onDeath = (why: string) => (dead ??= why);
  const opened = <T extends Transport>(t: T): T => {
    transports.push(t);
    // Made after the start was given up (the deadline passed or the run ended while the sandbox was starting it): nobody else will close it.
    if (givenUp) void t.close().catch(() => undefined);
    if ('stderrTail' in t) {
      const s = t as unknown as ConfinedStdioTransport;
      stdio = s;
      void s.exited.then((x) =>
        onDeath(
          `exited${x.startError ? `: ${x.startError}` : x.signal ? ` (signal ${x.signal})` : ` with code ${x.code}`}${tail(s)}`,
        ),
      );
    }
    return t;
  };
  try {
    await withDeadline(openTransport(c, d, { client, opened }), {
      ms: timeoutMs,
      message: `did not start within ${timeoutMs} ms`,
      signal: d.signal,
      startTimer,
      onGiveUp,
    });
    // A stdio server's exit says more than "connection closed": its exit status and stderr (above).
    client.onclose = () => {
      if (!stdio) onDeath('closed the connection');
    };
    const tools = await withDeadline(listAllTools(client), {
      ms: timeoutMs,
      message: `did not list its tools within ${timeoutMs} ms`,
      signal: d.signal,
      startTimer,
      onGiveUp,
    });
    return {
      tools,
      deadReason: () => dead,
      async call(name, args, o) {
        if (dead) throw new AgentError('general', `the MCP server ${dead}`);
        // The SDK's timeout, on our timer: the same error, and progress starts the wait over.
        const deadline = new AbortController();
        const timeOut = () =>
          deadline.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: o.timeoutMs }));
        let cancel = startTimer(o.timeoutMs, timeOut);
        try {
          const result = await client.callTool({ name, arguments: args }, undefined, {
            signal: AbortSignal.any([o.signal, deadline.signal]),
            timeout: SDK_NO_TIMEOUT_MS,
            ...(o.onProgress && {
              onprogress: (p) => {
                cancel();
                cancel = startTimer(o.timeoutMs, timeOut);
                o.onProgress!(`${p.progress}${p.total ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}`);
              },
            }),
          });
          return result as CallToolResult;
        } catch (e) {
          if (deadline.signal.aborted || o.signal.aborted) throw e;
          // A server that died during the call: say so, with what it printed, not "Connection closed".
          await settle(stdio?.exited, 1000);
          if (dead) throw new AgentError('general', `the MCP server ${dead}`);
          throw e;
        } finally {
          cancel();
        }
      },
      close: () => client.close(),
    };
  } catch (e) {
    // A server that exited has its status on the way; one that was given up on is still running.
    if (!givenUp) await settle(stdio?.exited, 200);
    givenUp = true;
    await client.close().catch(() => undefined);
    await Promise.all(transports.map((t) => t.close().catch(() => undefined)));
    const why = dead && !/did not start|did not list/.test(messageOf(e)) ? dead : `${messageOf(e)}${tail(stdio)}`;
    const causes = explainStartFailure(c, {
      network: networkOf(c, d),
      ...(stdio?.notVisible && { notVisible: stdio.notVisible }),
      stderr: stdio?.stderrTail() ?? '',
      exists: existsSync,
    });
    throw new AgentError('general', causes.length > 0 ? `${why}\n${causes.join('\n')}` : why, { cause: e });
  }
}

/** `opened` is told of every transport made, so a start that times out half-way still closes (and kills) it. */
async function openTransport(
  c: McpServerConfig,
  d: ConnectDeps,
  o: { client: Client; opened: <T extends Transport>(t: T) => T },
): Promise<Transport> {
  const { client, opened } = o;
  const t = c.transport;
  if (t.kind === 'stdio') {
    const proc = await d.sandbox.spawn(await stdioSpawnRequest({ ...c, transport: t }, d));
    const transport = opened(createConfinedStdioTransport(proc, { graceMs: d.graceMs }));
    await client.connect(transport, { timeout: SDK_NO_TIMEOUT_MS });
    return transport;
  }
  const headers = t.headers;
  const url = new URL(t.url);
  const sse = () => opened(new SSEClientTransport(url, { requestInit: { headers } }));
  if (t.protocol === 'sse') {
    const transport = sse();
    await client.connect(transport, { timeout: SDK_NO_TIMEOUT_MS });
    return transport;
  }
  const streamable = opened(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  try {
    await client.connect(streamable, { timeout: SDK_NO_TIMEOUT_MS });
    return streamable;
  } catch (e) {
    await streamable.close().catch(() => undefined);
    if (t.protocol === 'streamable' || /\b401\b/.test(messageOf(e))) throw e;
    // `url` without a `type`: Gemini CLI falls back to SSE when Streamable HTTP fails.
    const transport = sse();
    await client.connect(transport, { timeout: SDK_NO_TIMEOUT_MS });
    return transport;
  }
}

async function listAllTools(client: Client): Promise<McpToolDef[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpToolDef[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await client.listTools(cursor ? { cursor } : {}, { timeout: SDK_NO_TIMEOUT_MS });
    tools.push(...r.tools);
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** What a dying server last said: from its last error line when there is one (not the stack), else its last lines. */
function tail(t: ConfinedStdioTransport | undefined): string {
  const lines = (t?.stderrTail() ?? '').split('\n').filter((l) => l.trim() !== '' && !/^\s+at /.test(l));
  if (lines.length === 0) return '';
  const error = lines.findLastIndex((l) => /\b[A-Z]?\w*Error\b|\berror:/.test(l));
  const shown = (error >= 0 ? lines.slice(error, error + 3) : lines.slice(-3)).join('\n');
  return `; its last output on stderr:\n${shown}`;
}

/** `onGiveUp` hears that the deadline passed or the run ended first (the work may still be going on). */
function withDeadline<T>(
  work: Promise<T>,
  o: { ms: number; message: string; signal: AbortSignal | undefined; startTimer: StartTimer; onGiveUp: () => void },
): Promise<T> {
  const { signal } = o;
  let cancel: (() => void) | undefined;
  let onAbort: (() => void) | undefined;
  const late = new Promise<never>((_, reject) => {
    cancel = o.startTimer(o.ms, () => {
      o.onGiveUp();
      reject(new AgentError('general', o.message));
    });
    onAbort = () => {
      o.onGiveUp();
      reject(new AgentError('general', 'its start was given up: the run is over'));
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => {
    cancel?.();
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}

/** Waits for `p` at most `ms` (a dying process's exit status arrives just after the pipe closes). */
async function settle(p: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!p) return;
  await Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((r) => setTimeout(r, ms).unref()),
  ]);
}
