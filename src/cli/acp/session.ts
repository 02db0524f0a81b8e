/**
 * One ACP session: a workspace, its agent (interactive policy: what policy asks about is asked in
 * the editor, live), the run state, and the session's file on disk. A prompt runs the loop once,
 * streaming its events as updates; `cancel` aborts that run only (the model request, the commands
 * it started), and the turn ends `cancelled`. The file is saved before each prompt, at each safe
 * point and when the prompt ends, so a killed process leaves a session `session/load` continues.
 */
import { pathToFileURL, fileURLToPath } from 'node:url';
import { RequestError, type AgentContext, type ClientCapabilities, type ContentBlock, type PromptResponse, type SessionModeState, type SessionUpdate } from '@agentclientprotocol/sdk';
import { messageOf } from '../../common/errors.js';
import type { Agent } from '../../core/agent.js';
import type { Outcome } from '../../core/events.js';
import type { RunState } from '../../core/run-state.js';
import { isModelFailure } from '../../model/client.js';
import type { ApprovalMode } from '../../policy/types.js';
import type { ApprovalAnswer } from '../../scheduler/types.js';
import type { LocalSessionDoc } from '../../session/codec.js';
import type { SessionStore } from '../../session/store.js';
import type { McpConnection } from '../../tools/mcp-servers.js';
import type { AcpArgs } from '../args.js';
import { newState, restoredState } from '../cli-session.js';
import { defaultModelOf, prepareLocalAgent } from '../local-agent.js';
import { titleOf } from '../local-sessions.js';
import { createSessionRecorder, type HeldLocalSession, type SessionOrigin } from '../session-recorder.js';
import { createClientFiles } from './client-files.js';
import { createAcpChannel } from './permission.js';
import { replayUpdates } from './replay.js';
import { createUpdateTranslator, type UpdateTranslator } from './updates.js';

/** Gemini CLI's approval modes, as its ACP server offers them (plan always: it is policy here). */
export const SESSION_MODES: SessionModeState['availableModes'] = [
  { id: 'default', name: 'Default', description: 'Prompts for approval' },
  { id: 'autoEdit', name: 'Auto Edit', description: 'Auto-approves edit tools' },
  { id: 'yolo', name: 'YOLO', description: 'Auto-approves all tools' },
  { id: 'plan', name: 'Plan', description: 'Read-only mode' },
];

export interface AcpSessionOptions {
  client: AgentContext;
  caps: ClientCapabilities;
  args: AcpArgs;
  env: Readonly<Record<string, string | undefined>>;
  root: string;
  userPolicies: string[];
  adminPolicies: string[];
  store: SessionStore<LocalSessionDoc>;
  /** A stored session to continue (`session/load`); otherwise a new one is made. */
  held?: HeldLocalSession;
  origin: SessionOrigin;
  mcp?: McpConnection;
  /** Aborts when the connection closes: every run stops with it. */
  connection: AbortSignal;
}

export interface AcpSession {
  readonly id: string;
  modes(): SessionModeState;
  /** Stream the stored history as updates (`session/load`). */
  replay(): Promise<void>;
  prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse>;
  cancel(): void;
  setMode(modeId: string): Promise<void>;
  /** Stop the running prompt, wait for its last save, stop the session's MCP servers. */
  close(): Promise<void>;
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

export async function openAcpSession(o: AcpSessionOptions): Promise<AcpSession> {
  const state: RunState = o.held ? restoredState(o.held.doc, {}) : newState(o.args.model ?? defaultModelOf(o.env), o.args.mode);
  const id = state.id;
  const recorder = createSessionRecorder({ store: o.store, ...(o.held ? { held: o.held } : { origin: o.origin }) });
  if (o.held) recorder.setMcpServers(o.origin.mcpServers);
  let waiting = o.held?.doc.pending ?? [];
  let running: Running | undefined;
  let translator: UpdateTranslator | undefined;
  let updates: Promise<void> = Promise.resolve();
  const push = (update: SessionUpdate) => {
    // In order, one after another; a client that went away loses nothing the session needs.
    updates = updates.then(() => o.client.notify('session/update', { sessionId: id, update })).catch(() => undefined);
  };

  const agent: Agent = await prepareLocalAgent({
    root: o.root,
    env: o.env,
    model: state.model,
    mode: state.mode,
    policyContext: 'interactive',
    userPolicies: o.userPolicies,
    adminPolicies: o.adminPolicies,
    maxTurns: o.args.maxTurns,
    timeoutMinutes: o.args.timeoutMinutes,
    channel: createAcpChannel({
      client: o.client,
      sessionId: id,
      callView: (callId) => translator?.callView(callId),
      signal: () => running?.controller.signal ?? o.connection,
      forms: o.caps.elicitation?.form !== undefined && o.caps.elicitation?.form !== null,
    }),
    signal: o.connection,
    files: createClientFiles(o.client, id, o.caps.fs),
    askUser: true,
    ...(o.mcp ? { extraTools: o.mcp.tools } : {}),
    onBatchSettled: (s) => recorder.save(s, 'running'),
  });
  // Told with the first prompt: a session's updates only make sense once the client knows its id.
  const notices = [...agent.warnings, ...(o.mcp?.warnings ?? [])];
  if (o.origin.mcpServers?.length && !o.mcp) {
    notices.push(`MCP servers (${o.origin.mcpServers.map((m) => m.name).join(', ')}) were recorded with the session but not started: this agent-action has no MCP client yet`);
  }

  /** Calls a reloaded session still waits on are asked again, live, before the new prompt goes on. */
  async function answerWaiting(signal: AbortSignal): Promise<ApprovalAnswer[]> {
    const answers: ApprovalAnswer[] = [];
    const channel = createAcpChannel({ client: o.client, sessionId: id, callView: () => undefined, signal: () => signal, forms: false });
    for (const p of waiting) {
      const a = await channel.decide(p);
      answers.push(a === 'defer' ? { id: p.id, kind: 'deny', reason: 'no answer' } : a);
    }
    return answers;
  }

  async function runPrompt(blocks: readonly ContentBlock[], controller: AbortController): Promise<PromptResponse> {
    const text = promptText(blocks, o.root);
    recorder.nameIfNew(titleOf(text));
    translator = createUpdateTranslator({ root: o.root, toolKind: agent.toolKind });
    const t = translator;
    for (const n of notices.splice(0)) push({ sessionUpdate: 'notice', severity: 'warning', title: n });
    const before = { input: state.usage.inputTokens, output: state.usage.outputTokens };
    const answers = state.open ? await answerWaiting(controller.signal) : [];
    await recorder.save(state, 'running');
    waiting = [];
    const { outcome } = await agent.send(state, text, (e) => t.updatesOf(e).forEach(push), { answers, signal: controller.signal });
    await recorder.saveOutcome(state, outcome).catch((e: unknown) => push({ sessionUpdate: 'notice', severity: 'error', title: messageOf(e) }));
    if (outcome.status === 'awaiting_approval') waiting = [...outcome.pending];
    await updates; // every update of the turn reaches the client before its response
    const quota = { token_count: { input_tokens: state.usage.inputTokens - before.input, output_tokens: state.usage.outputTokens - before.output } };
    return { ...responseOf(outcome), _meta: { quota } };
  }

  return {
    id,
    modes: () => ({ currentModeId: state.mode, availableModes: SESSION_MODES }),
    async replay() {
      for (const u of replayUpdates(state, waiting, agent.toolKind)) push(u);
      await updates;
    },
    async prompt(blocks) {
      if (running) {
        // As Gemini CLI does: a new prompt replaces one still running.
        running.controller.abort(new Error('replaced by a new prompt'));
        await running.done;
      }
      const controller = new AbortController();
      const onClose = () => controller.abort(o.connection.reason);
      if (o.connection.aborted) onClose();
      else o.connection.addEventListener('abort', onClose, { once: true });
      const run = runPrompt(blocks, controller);
      const mine: Running = { controller, done: run.then(() => undefined, () => undefined) };
      running = mine;
      try {
        return await run;
      } finally {
        o.connection.removeEventListener('abort', onClose);
        if (running === mine) running = undefined;
      }
    },
    cancel() {
      running?.controller.abort(new Error('cancelled by the client'));
    },
    async setMode(modeId) {
      const mode = SESSION_MODES.find((m) => m.id === modeId)?.id as ApprovalMode | undefined;
      if (!mode) throw RequestError.invalidParams({ modeId }, `unknown mode "${modeId}": one of ${SESSION_MODES.map((m) => m.id).join(', ')}`);
      state.mode = mode; // a running prompt takes it from its next request and batch
      // Saved now only between prompts: mid-run, the next safe point carries it.
      if (!running && recorder.current()) await recorder.save(state, recorder.current()!.status, waiting);
    },
    async close() {
      running?.controller.abort(new Error('the session was closed'));
      await running?.done;
      await updates;
      await o.mcp?.close().catch(() => undefined);
    },
  };
}

/** How the turn ended, in ACP's terms; an error ends the request with a JSON-RPC error. */
export function responseOf(outcome: Outcome): PromptResponse {
  switch (outcome.status) {
    case 'success':
    case 'awaiting_approval':
      return { stopReason: 'end_turn' };
    case 'cancelled':
      return { stopReason: 'cancelled' };
    case 'limit':
      return { stopReason: outcome.which === 'tokens' ? 'max_tokens' : 'max_turn_requests' };
    case 'error': {
      const cause = outcome.error.cause;
      if (isModelFailure(cause) && cause.kind === 'safety') return { stopReason: 'refusal' };
      if (outcome.error.kind === 'auth') throw new RequestError(-32000, outcome.error.message);
      throw new RequestError(-32603, outcome.error.message);
    }
  }
}

/**
 * The prompt's blocks as the model's text: text as it is, a linked file by its path (the model
 * reads it with its tools), an embedded resource with its content, as Gemini CLI quotes it.
 */
export function promptText(blocks: readonly ContentBlock[], root: string): string {
  const parts: string[] = [];
  const embedded: string[] = [];
  for (const b of blocks) {
    if (b.type === 'text') parts.push(b.text);
    else if (b.type === 'resource_link') parts.push(`@${pathOf(b.uri, root)}`);
    else if (b.type === 'resource' && 'text' in b.resource) embedded.push(`Content from @${pathOf(b.resource.uri, root)}:\n${b.resource.text}`);
    else parts.push(`[${b.type === 'resource' ? 'a binary resource' : `an ${b.type}`} was attached; this agent reads text only]`);
  }
  const text = parts.join(' ').trim();
  return embedded.length ? `${text}\n--- Content from referenced files ---\n${embedded.join('\n\n')}\n--- End of content ---` : text;
}

/** A file URI inside the workspace as a workspace-relative path; anything else as given. */
function pathOf(uri: string, root: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    const abs = fileURLToPath(uri);
    const base = pathToFileURL(`${root}/`).href;
    return uri.startsWith(base) ? abs.slice(root.length + 1) : abs;
  } catch {
    return uri;
  }
}
