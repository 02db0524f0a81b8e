/**
 * `agent-action --acp`: an Agent Client Protocol agent on stdin/stdout, built on the official SDK
 * (`@agentclientprotocol/sdk`), as `gemini --acp` is. Editors (Zed) and multi-agent terminals
 * create sessions in a workspace, send prompts, see text, thoughts and tool calls stream in, and
 * answer permission requests live. Sessions are the CLI's: the same files, so `--resume` and
 * `--list-sessions` see them, and `session/load` continues any of them.
 *
 * When the client goes away (stdin closes), every running prompt is cancelled (its commands'
 * process groups are killed), each session's last state is saved, and the server returns.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import {
  agent as acpAgent,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type AgentContext,
  type ClientCapabilities,
  type McpServer,
} from '@agentclientprotocol/sdk';
import { AgentError, messageOf } from '../../common/errors.js';
import type { StoredMcpServer } from '../../session/codec.js';
import type { McpServerSpec } from '../../tools/mcp-servers.js';
import type { AcpArgs } from '../args.js';
import { resolveFlagPaths } from '../flag-paths.js';
import { modelAuthOf } from '../local-agent.js';
import { openProjectSessions, readSessionListing } from '../session/local.js';
import { openAcpSession, type AcpSession } from './session.js';

export interface AcpServerEnv {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** The client's messages (the process's stdin) and where ours go (its stdout). */
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
  version: string;
  /** SIGINT/SIGTERM: close the connection as if the client had left. */
  signal: AbortSignal;
  /** Diagnostics for people (stderr): stdout belongs to the protocol. */
  log(line: string): void;
}

export const AUTH_METHOD = {
  id: 'gemini-api-key',
  name: 'Gemini API key',
  description: 'Set GEMINI_API_KEY in the environment the editor starts agent-action in.',
};

/** The server between its handlers. */
interface Server {
  args: AcpArgs;
  c: AcpServerEnv;
  userPolicies: string[];
  adminPolicies: string[];
  sessions: Map<string, AcpSession>;
  caps: ClientCapabilities;
  /** Aborts when the client is gone: every run stops with it. */
  connection: AbortController;
}

export async function runAcpServer(args: AcpArgs, c: AcpServerEnv): Promise<number> {
  let policies: { user: string[]; admin: string[] };
  try {
    policies = {
      user: resolveFlagPaths('--policy', args.policies, c.cwd),
      admin: resolveFlagPaths('--admin-policy', args.adminPolicies, c.cwd),
    };
  } catch (e) {
    c.log(`Error: ${messageOf(e)}`);
    return 42;
  }
  const s: Server = {
    args,
    c,
    userPolicies: policies.user,
    adminPolicies: policies.admin,
    sessions: new Map(),
    caps: {},
    connection: new AbortController(),
  };
  const sessionOf = (id: string): AcpSession => {
    const session = s.sessions.get(id);
    if (!session)
      throw RequestError.invalidParams(
        { sessionId: id },
        `no session ${id} in this connection: create it with session/new or session/load`,
      );
    return session;
  };

  const app = acpAgent({ name: 'agent-action' })
    .onRequest('initialize', ({ params }) => {
      s.caps = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: 'agent-action', title: 'agent-action', version: c.version },
        authMethods: [AUTH_METHOD],
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {} },
        },
      };
    })
    .onRequest('authenticate', ({ params }) => {
      if (params.methodId !== AUTH_METHOD.id)
        throw RequestError.invalidParams(
          { methodId: params.methodId },
          `unknown auth method; the one method is ${AUTH_METHOD.id}`,
        );
      assertApiKey(c.env);
      return {};
    })
    .onRequest('session/new', async ({ params, client }) => {
      const session = await openSession(s, client, params);
      // Once the editor has the session's id, as Gemini CLI does: an update before it names nothing.
      setImmediate(() => session.advertiseCommands());
      return { sessionId: session.id, modes: session.modes() };
    })
    .onRequest('session/load', async ({ params, client }) => {
      const session = await openSession(s, client, params);
      await session.replay();
      return { modes: session.modes() };
    })
    .onRequest('session/list', async ({ params }) => {
      const { sessions } = await readSessionListing(openProjectSessions(c.env, workspaceOf(params.cwd ?? c.cwd)));
      return {
        sessions: sessions
          .map(({ id, doc }) => ({ sessionId: id, cwd: doc.root, title: doc.title, updatedAt: doc.updatedAt }))
          .reverse(),
      };
    })
    .onRequest('session/prompt', ({ params }) => sessionOf(params.sessionId).prompt(params.prompt))
    .onRequest('session/set_mode', async ({ params }) => {
      await sessionOf(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onNotification('session/cancel', ({ params }) => {
      s.sessions.get(params.sessionId)?.cancel();
    });

  const conn = app.connect(ndJsonStream(c.output, c.input));
  const onSignal = () => conn.close(new Error('agent-action was asked to stop'));
  if (c.signal.aborted) onSignal();
  else c.signal.addEventListener('abort', onSignal, { once: true });
  await conn.closed;
  c.signal.removeEventListener('abort', onSignal);
  // The client is gone: stop every run (their commands with them) and let each save its state.
  s.connection.abort(new Error('the client closed the connection'));
  await Promise.all(
    [...s.sessions.values()].map((session) => session.close().catch((e: unknown) => c.log(`Warning: ${messageOf(e)}`))),
  );
  return 0;
}

function assertApiKey(env: Readonly<Record<string, string | undefined>>): void {
  try {
    modelAuthOf(env);
  } catch (e) {
    throw new RequestError(-32000, messageOf(e));
  }
}

/** `session/new`, or with a session id `session/load`: a session of the workspace, stored or new. */
async function openSession(
  s: Server,
  client: AgentContext,
  p: { cwd: string; mcpServers: McpServer[]; sessionId?: string },
): Promise<AcpSession> {
  const root = workspaceOf(p.cwd);
  assertApiKey(s.c.env);
  const project = openProjectSessions(s.c.env, root);
  let held;
  if (p.sessionId !== undefined) {
    // Loaded again: the one open here stops and saves first, then the file is read.
    await s.sessions.get(p.sessionId)?.close();
    s.sessions.delete(p.sessionId);
    const stored = await project.store.read(p.sessionId).catch((e: unknown) => {
      throw RequestError.invalidParams({ sessionId: p.sessionId }, messageOf(e));
    });
    if (!stored) throw RequestError.resourceNotFound(`session ${p.sessionId} of ${root}`);
    if (!stored.parsed.ok)
      throw RequestError.invalidParams(
        { sessionId: p.sessionId },
        `session ${p.sessionId} cannot be loaded: ${stored.parsed.error.message}`,
      );
    held = { doc: stored.parsed.doc, version: stored.version };
  }
  const specs = p.mcpServers.map(specOf);
  const session = await openAcpSession({
    client,
    caps: s.caps,
    args: s.args,
    env: s.c.env,
    root,
    userPolicies: s.userPolicies,
    adminPolicies: s.adminPolicies,
    store: project.store,
    ...(held ? { held } : {}),
    origin: { root, title: '', command: 'acp', ...(specs.length ? { mcpServers: specs.map(storedFormOf) } : {}) },
    mcpServers: specs,
    connection: s.connection.signal,
  }).catch((e: unknown) => {
    throw e instanceof RequestError ? e : new RequestError(-32603, messageOf(e));
  });
  s.sessions.set(session.id, session);
  return session;
}

/** An absolute directory that exists, as its real path; anything else is bad params. */
function workspaceOf(cwd: string): string {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, not "${cwd}"`);
  try {
    if (!statSync(cwd).isDirectory()) throw new AgentError('input', 'not a directory');
    return realpathSync(cwd);
  } catch (e) {
    throw RequestError.invalidParams({ cwd }, `cwd ${cwd} is not a directory this agent can use: ${messageOf(e)}`);
  }
}

/** ACP's McpServer in settings.json's shape (values included, for the connector only). */
export function specOf(m: McpServer): McpServerSpec {
  if ('type' in m && (m.type === 'http' || m.type === 'sse')) {
    return {
      name: m.name,
      transport: m.type,
      url: m.url,
      headers: Object.fromEntries(m.headers.map((h) => [h.name, h.value])),
    };
  }
  const stdio = m as Extract<McpServer, { command: string }>;
  return {
    name: stdio.name,
    transport: 'stdio',
    command: stdio.command,
    args: stdio.args,
    env: Object.fromEntries(stdio.env.map((e) => [e.name, e.value])),
  };
}

/** What the session file keeps of a server: never an env or header value (they are often tokens). */
export function storedFormOf(s: McpServerSpec): StoredMcpServer {
  return {
    name: s.name,
    transport: s.transport,
    ...(s.command !== undefined ? { command: s.command, args: s.args ?? [] } : {}),
    ...(s.url !== undefined ? { url: s.url } : {}),
    ...(s.env ? { envNames: Object.keys(s.env) } : {}),
    ...(s.headers ? { headerNames: Object.keys(s.headers) } : {}),
  };
}
