/**
 * One ACP session: a workspace, its agent (interactive policy: what policy asks about is asked in
 * the editor, live), the run state, and the session's file on disk. A prompt runs the loop once,
 * streaming its events as updates; `cancel` aborts that run only (the model request, the commands
 * it started), and the turn ends `cancelled`. The file is saved before each prompt, at each safe
 * point and when the prompt ends, so a killed process leaves a session `session/load` continues.
 */
import {
  RequestError,
  type AgentContext,
  type ClientCapabilities,
  type ContentBlock,
  type PromptResponse,
  type SessionModeState,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { messageOf } from '../../common/errors.js';
import type { Agent } from '../../compose/prepare-agent.js';
import type { CommandSet } from '../../commands/load-commands.js';
import type { RunState } from '../../core/run-state.js';
import type { ApprovalMode } from '../../policy/types.js';
import type { ApprovalAnswer, PendingApproval } from '../../scheduler/types.js';
import type { LocalSessionStore } from '../../session/file-store.js';
import type { McpServerConfig } from '../../tools/mcp/config.js';
import type { McpServerSpec } from '../../tools/mcp-servers.js';
import { readCliCommands, readCliExtensions } from '../cli-extensions.js';
import { readFolderTrust, untrustedNote } from '../folder-trust.js';
import type { AcpArgs } from '../args.js';
import { newState, restoredState } from '../session/session.js';
import { createSandbox } from '../../sandbox/sandbox.js';
import { defaultModelOf, prepareLocalAgent, secretsOf } from '../local-agent.js';
import { titleOf } from '../session/local.js';
import {
  createSessionRecorder,
  type HeldLocalSession,
  type SessionOrigin,
  type SessionRecorder,
} from '../session/recorder.js';
import { createClientFiles } from './client-files.js';
import { availableCommandsUpdate, expandPrompt } from './commands.js';
import { createAcpChannel } from './permission.js';
import { promptText, responseOf } from './prompt-turn.js';
import { replayUpdates } from './replay.js';
import { createUpdateTranslator, type UpdateTranslator } from './updates.js';

/** Gemini CLI's approval modes, as its ACP server offers them (plan always: it is policy here). */
const SESSION_MODES: SessionModeState['availableModes'] = [
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
  store: LocalSessionStore;
  /** A stored session to continue (`session/load`); otherwise a new one is made. */
  held?: HeldLocalSession;
  origin: SessionOrigin;
  /** The servers `session/new` or `session/load` gave, started with the project's own (settings.json). */
  mcpServers: readonly McpServerSpec[];
  /** Aborts when the connection closes: every run stops with it. */
  connection: AbortSignal;
}

export interface AcpSession {
  readonly id: string;
  modes(): SessionModeState;
  /** Stream the stored history as updates, its plan last (`session/load`), then the commands. */
  replay(): Promise<void>;
  /** Tell the editor the custom commands it may offer (after `session/new` has answered). */
  advertiseCommands(): void;
  prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse>;
  cancel(): void;
  setMode(modeId: string): Promise<void>;
  /** Stop the running prompt, wait for its last save, stop the session's MCP servers. */
  close(): Promise<void>;
}

/** What changes while the session lives; the approval channel reads it too. */
interface Live {
  running?: { controller: AbortController; done: Promise<void> };
  translator?: UpdateTranslator;
  /** The notifications sent so far, in order. */
  updates: Promise<void>;
  /** Calls a stored session still waits on: asked again with the next prompt. */
  waiting: PendingApproval[];
  /** Warnings for the first prompt: a session's updates only make sense once the client knows its id. */
  notices: string[];
}

/** The session between its methods. */
interface Ctx {
  o: AcpSessionOptions;
  id: string;
  state: RunState;
  recorder: SessionRecorder;
  agent: Agent;
  live: Live;
  forms: boolean;
  commands: CommandSet;
}

/** In order, one after another; a client that went away loses nothing the session needs. */
function push(ctx: Pick<Ctx, 'o' | 'id' | 'live'>, update: SessionUpdate): void {
  ctx.live.updates = ctx.live.updates
    .then(() => ctx.o.client.notify('session/update', { sessionId: ctx.id, update }))
    .catch(() => undefined);
}

export async function openAcpSession(o: AcpSessionOptions): Promise<AcpSession> {
  const state = o.held ? restoredState(o.held.doc, {}) : newState(o.args.model ?? defaultModelOf(o.env), o.args.mode);
  const live: Live = { updates: Promise.resolve(), waiting: [...(o.held?.doc.pending ?? [])], notices: [] };
  const id = state.id;
  const recorder = createSessionRecorder({
    store: o.store,
    ...(o.held ? { held: o.held } : { origin: o.origin }),
    // The prompt goes on; the editor hears once that its session is no longer kept.
    onSaveError: (e) =>
      push(
        { o, id, live },
        {
          sessionUpdate: 'notice',
          severity: 'error',
          title: `the session could not be saved (${messageOf(e)}); it goes on without being kept`,
        },
      ),
  });
  if (o.held) recorder.setMcpServers(o.origin.mcpServers);
  const forms = o.caps.elicitation?.form !== undefined && o.caps.elicitation?.form !== null;
  // The project's settings.json servers and hooks, as for -p; the editor's servers join them.
  const trust = readFolderTrust(o.root, o.env);
  const ext = await readCliExtensions({ root: o.root, trusted: trust.trusted, env: o.env, secrets: secretsOf(o.env) });
  const commands = await readCliCommands({ root: o.root, trusted: trust.trusted, extensions: ext.extensions });
  const agent = await prepareLocalAgent({
    root: o.root,
    trusted: trust.trusted,
    env: o.env,
    model: state.model,
    mode: state.mode,
    policyContext: 'interactive',
    userPolicies: o.userPolicies,
    adminPolicies: o.adminPolicies,
    extensionSettings: ext,
    maxTurns: o.args.maxTurns,
    timeoutMinutes: o.args.timeoutMinutes,
    channel: createAcpChannel({
      client: o.client,
      sessionId: id,
      callView: (callId) => live.translator?.callView(callId),
      signal: () => live.running?.controller.signal ?? o.connection,
      forms,
    }),
    signal: o.connection,
    // Commands run confined as in `-p` (--sandbox, default auto); an editor's session gets its own.
    sandbox: createSandbox({ mode: o.args.sandbox, network: o.args.sandboxNetwork, hostEnv: o.env }),
    files: createClientFiles(o.client, id, o.caps.fs),
    askUser: true,
    extensions: {
      mcp: { servers: [...ext.servers, ...o.mcpServers.map(configOf)], selection: ext.selection, start: 'eager' },
      hooks: ext.hooks,
      network: o.args.sandboxNetwork,
    },
    onBatchSettled: (s) => recorder.save(s, 'running'),
  });
  const ctx: Ctx = { o, id, state, recorder, agent, live, forms, commands };
  live.notices.push(
    ...[untrustedNote(o.root, trust) ?? []].flat(),
    ...ext.warnings,
    ...commands.warnings,
    ...agent.warnings,
  );
  const advertiseCommands = () => {
    const update = availableCommandsUpdate(commands);
    if (update) push(ctx, update);
  };

  return {
    id: ctx.id,
    modes: () => ({ currentModeId: state.mode, availableModes: SESSION_MODES }),
    async replay() {
      for (const u of replayUpdates(state, live.waiting, agent.toolKind)) push(ctx, u);
      advertiseCommands();
      await live.updates;
    },
    advertiseCommands,
    prompt: (blocks) => prompt(ctx, blocks),
    cancel() {
      live.running?.controller.abort(new Error('cancelled by the client'));
    },
    async setMode(modeId) {
      const mode = SESSION_MODES.find((m) => m.id === modeId)?.id as ApprovalMode | undefined;
      if (!mode)
        throw RequestError.invalidParams(
          { modeId },
          `unknown mode "${modeId}": one of ${SESSION_MODES.map((m) => m.id).join(', ')}`,
        );
      state.mode = mode; // a running prompt takes it from its next request and batch
      // Saved now only between prompts: mid-run, the next safe point carries it.
      const doc = recorder.current();
      if (!live.running && doc) await recorder.save(state, doc.status, live.waiting);
    },
    async close() {
      live.running?.controller.abort(new Error('the session was closed'));
      await live.running?.done;
      await live.updates;
      await agent.close().catch(() => undefined);
    },
  };
}

/** A prompt replaces one still running (as Gemini CLI does), and stops with the connection. */
async function prompt(ctx: Ctx, blocks: readonly ContentBlock[]): Promise<PromptResponse> {
  const text = promptText(blocks, ctx.o.root);
  if (!text) throw RequestError.invalidParams({ prompt: blocks }, 'the prompt has no text');
  const { live } = ctx;
  if (live.running) {
    live.running.controller.abort(new Error('replaced by a new prompt'));
    await live.running.done;
  }
  const { connection } = ctx.o;
  const controller = new AbortController();
  const onClose = () => controller.abort(connection.reason);
  if (connection.aborted) onClose();
  else connection.addEventListener('abort', onClose, { once: true });
  const run = runPrompt(ctx, text, controller.signal);
  const mine = {
    controller,
    done: run.then(
      () => undefined,
      () => undefined,
    ),
  };
  live.running = mine;
  try {
    return await run;
  } finally {
    connection.removeEventListener('abort', onClose);
    if (live.running === mine) live.running = undefined;
  }
}

async function runPrompt(ctx: Ctx, typed: string, signal: AbortSignal): Promise<PromptResponse> {
  const { state, recorder, agent, live } = ctx;
  const { text, warnings } = await expandPrompt(typed, ctx.commands, agent);
  live.notices.push(...warnings);
  recorder.nameIfNew(titleOf(typed));
  const translator = createUpdateTranslator({ root: ctx.o.root, toolKind: agent.toolKind });
  live.translator = translator;
  for (const n of live.notices.splice(0)) push(ctx, { sessionUpdate: 'notice', severity: 'warning', title: n });
  const before = structuredClone(state.models);
  const answers = state.open ? await answerWaiting(ctx, signal) : [];
  await recorder.save(state, 'running');
  live.waiting = [];
  const { outcome } = await agent.send(state, { prompt: text, answers, signal }, (e) =>
    translator.updatesOf(e).forEach((u) => push(ctx, u)),
  );
  await recorder.saveOutcome(state, outcome);
  if (outcome.status === 'awaiting_approval') live.waiting = [...outcome.pending];
  await live.updates; // every update of the turn reaches the client before its response
  return { ...responseOf(outcome), _meta: { quota: quotaOf(before, state.models) } };
}

/** The calls a reloaded session waits on, asked again, live, before the new prompt goes on. */
async function answerWaiting(ctx: Ctx, signal: AbortSignal): Promise<ApprovalAnswer[]> {
  const channel = createAcpChannel({
    client: ctx.o.client,
    sessionId: ctx.id,
    callView: () => undefined,
    signal: () => signal,
    forms: ctx.forms,
  });
  const answers: ApprovalAnswer[] = [];
  for (const p of ctx.live.waiting) {
    const a = await channel.decide(p);
    answers.push(a === 'defer' ? { id: p.id, kind: 'deny', reason: 'no answer' } : a);
  }
  return answers;
}

/** Gemini CLI's `_meta.quota`: this turn's tokens, in total and per model. */
function quotaOf(before: RunState['models'], after: RunState['models']) {
  const model_usage = Object.entries(after)
    .map(([model, m]) => ({
      model,
      token_count: {
        input_tokens: m.inputTokens - (before[model]?.inputTokens ?? 0),
        output_tokens: m.outputTokens - (before[model]?.outputTokens ?? 0),
      },
    }))
    .filter((u) => u.token_count.input_tokens > 0 || u.token_count.output_tokens > 0);
  const sum = (k: 'input_tokens' | 'output_tokens') => model_usage.reduce((n, u) => n + u.token_count[k], 0);
  return { token_count: { input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens') }, model_usage };
}

/**
 * An editor's server in the MCP client's shape. The editor is the person's own tool, like their
 * ~/.gemini/settings.json: its servers count as the user's, untrusted (each call goes to policy).
 */
function configOf(m: McpServerSpec): McpServerConfig {
  const source = { label: 'the ACP client (session/new)', origin: 'user' as const };
  const transport: McpServerConfig['transport'] =
    m.transport === 'stdio'
      ? {
          kind: 'stdio',
          command: m.command ?? '',
          args: m.args ?? [],
          env: m.env ?? {},
          ...(m.cwd ? { cwd: m.cwd } : {}),
        }
      : {
          kind: 'http',
          url: m.url ?? '',
          headers: m.headers ?? {},
          protocol: m.transport === 'sse' ? 'sse' : 'streamable',
        };
  return { name: m.name, source, transport, trust: false };
}
