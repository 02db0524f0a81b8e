/**
 * An editor, as far as ACP goes: the official SDK's client side (`client()` from
 * @agentclientprotocol/sdk, what ClientSideConnection became) talking to the built CLI
 * (`dist/cli/index.js --acp`) over the child's real stdin and stdout. It records every update and
 * every request the agent makes, and answers them as the test scripts.
 *
 *   const ed = await startAcpAgent({ env, cwd });
 *   await ed.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
 *   const { sessionId } = await ed.agent.request('session/new', { cwd, mcpServers: [] });
 *   ed.permissions.answer(() => 'proceed_once');
 *   const r = await ed.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
 *   ed.updates  // every session/update, in order
 *   await ed.close();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import {
  client as acpClient,
  ndJsonStream,
  type ClientCapabilities,
  type ClientConnection,
  type ClientContext,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type RequestPermissionRequest,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { NODE } from './cli-runner.js';

const BUILT_CLI = join(process.cwd(), 'dist/cli/index.js');

type PermissionAnswer = string | 'cancelled';

export interface AcpAgentProcess {
  child: ChildProcess;
  agent: ClientContext;
  connection: ClientConnection;
  /** Every session/update, in arrival order. */
  updates: SessionNotification[];
  permissions: {
    asked: RequestPermissionRequest[];
    /** How the next requests are answered: an optionId, or 'cancelled'. Default: reject ('cancel'). */
    answer(fn: (req: RequestPermissionRequest) => PermissionAnswer | Promise<PermissionAnswer>): void;
  };
  elicitations: CreateElicitationRequest[];
  /** fs/read_text_file and fs/write_text_file calls the agent made. */
  fsCalls: Array<{ method: 'read' | 'write'; path: string; content?: string }>;
  stderr(): string;
  /** Resolves on the first update (already received or to come) that matches. */
  waitForUpdate(match: (u: SessionUpdate) => boolean): Promise<SessionUpdate>;
  /** Called on each update as it arrives (the benchmark times them); returns the unsubscribe. */
  onUpdate(fn: (n: SessionNotification) => void): () => void;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
  /** The client leaves: stdin closes, then the process is awaited. */
  close(): Promise<number | null>;
}

export interface AcpAgentOptions {
  env: Record<string, string | undefined>;
  cwd?: string;
  /** Extra flags after `--acp`. */
  args?: string[];
  /** Another ACP agent to run instead (a script and its flags), e.g. Gemini CLI's `gemini.js --acp`. */
  program?: string[];
  /** Offer fs/read_text_file (with these buffers: path -> text) and fs/write_text_file. */
  fs?: { buffers: Map<string, string> };
  /** Offer elicitation forms, answered by this. */
  elicit?: (req: CreateElicitationRequest) => CreateElicitationResponse;
}

/** Capabilities to announce in `initialize` for the options given. */
export function clientCapabilitiesOf(o: Pick<AcpAgentOptions, 'fs' | 'elicit'>): ClientCapabilities {
  return {
    ...(o.fs ? { fs: { readTextFile: true, writeTextFile: true } } : {}),
    ...(o.elicit ? { elicitation: { form: {} } } : {}),
  };
}

export async function startAcpAgent(o: AcpAgentOptions): Promise<AcpAgentProcess> {
  const {
    GEMINI_API_KEY: _k,
    GOOGLE_API_KEY: _g,
    GOOGLE_GEMINI_BASE_URL: _b,
    GEMINI_MODEL: _m,
    XDG_STATE_HOME: _x,
    ...rest
  } = process.env;
  const ownState = o.env.XDG_STATE_HOME === undefined ? mkdtempSync(join(tmpdir(), 'agent-action-state-')) : undefined;
  const child = spawn(NODE, o.program ?? [BUILT_CLI, '--acp', ...(o.args ?? [])], {
    cwd: o.cwd,
    env: { ...rest, ...(ownState ? { XDG_STATE_HOME: ownState } : {}), ...o.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      if (ownState) rmSync(ownState, { recursive: true, force: true });
      resolve(code);
    }),
  );

  const updates: SessionNotification[] = [];
  const waiters: Array<{ match: (u: SessionUpdate) => boolean; resolve: (u: SessionUpdate) => void }> = [];
  const listeners = new Set<(n: SessionNotification) => void>();
  const asked: RequestPermissionRequest[] = [];
  let answerFn: (req: RequestPermissionRequest) => PermissionAnswer | Promise<PermissionAnswer> = () => 'cancel';
  const elicitations: CreateElicitationRequest[] = [];
  const fsCalls: AcpAgentProcess['fsCalls'] = [];

  let app = acpClient({ name: 'test-editor' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
      for (const l of listeners) l(params);
      for (const w of [...waiters]) {
        if (w.match(params.update)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(params.update);
        }
      }
    })
    .onRequest('session/request_permission', async ({ params }) => {
      asked.push(params);
      const a = await answerFn(params);
      return { outcome: a === 'cancelled' ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: a } };
    });
  if (o.fs) {
    const buffers = o.fs.buffers;
    app = app
      .onRequest('fs/read_text_file', ({ params }) => {
        fsCalls.push({ method: 'read', path: params.path });
        const content = buffers.get(params.path);
        if (content === undefined) throw new Error(`Resource not found: ${params.path}`);
        return { content };
      })
      .onRequest('fs/write_text_file', ({ params }) => {
        fsCalls.push({ method: 'write', path: params.path, content: params.content });
        buffers.set(params.path, params.content);
        return {};
      });
  }
  if (o.elicit) {
    const elicit = o.elicit;
    app = app.onRequest('elicitation/create', ({ params }) => {
      elicitations.push(params);
      return elicit(params);
    });
  }
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(child.stdin!), Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
  );

  return {
    child,
    agent: connection.agent,
    connection,
    updates,
    permissions: { asked, answer: (fn) => void (answerFn = fn) },
    elicitations,
    fsCalls,
    stderr: () => stderr,
    waitForUpdate(match) {
      const seen = updates.find((n) => match(n.update));
      if (seen) return Promise.resolve(seen.update);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    onUpdate(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    exited,
    async close() {
      child.stdin!.end();
      connection.close();
      return exited;
    },
  };
}

/** The text of every agent_message_chunk of `updates`, joined. */
export const agentText = (updates: readonly SessionNotification[]): string =>
  updates
    .map((n) =>
      n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' ? n.update.content.text : '',
    )
    .join('');
