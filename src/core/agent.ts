/**
 * The composition both faces call: policy, tools, memory, prompt, model client, scheduler and the
 * loop, wired from one options object. Policy loads first, so a broken policy file stops the run
 * before any tool exists, let alone runs. Sub-agents come in as a plug the face passes (agents/
 * sits above core); the next-speaker check is on where the face or the trusted settings say so.
 */
import { randomUUID } from 'node:crypto';
import { AgentError } from '../common/errors.js';
import { buildSystemPrompt, type Command as CommandKind } from '../context/system-prompt.js';
import { createJitMemory } from '../context/jit-memory.js';
import { loadMemory, readContextSettings } from '../context/memory.js';
import { readLoopSettings, type AgentOverride } from '../context/settings.js';
import { createGeminiClient } from '../model/gemini.js';
import type { ModelClient } from '../model/client.js';
import type { Content } from '../model/wire.js';
import { loadPolicyWithDiagnostics, type PolicySource } from '../policy/load.js';
import { formatDiagnostic } from '../policy/rule.js';
import type { AddedRule, ApprovalMode, PolicyContext, PolicyEngine } from '../policy/types.js';
import { createScheduler } from '../scheduler/scheduler.js';
import type { ApprovalAnswer, ApprovalChannel } from '../scheduler/types.js';
import type { TextFileAccess, Tool, ToolEnv, ToolKind } from '../tools/define-tool.js';
import { askUserTool } from '../tools/ask-user.js';
import { createDefaultTools, createToolRegistry } from '../tools/registry.js';
import type { Emit, Outcome } from './events.js';
import { prepareExtensions, type ExtensionOptions } from './extensions.js';
import { DEFAULT_MAX_TURNS } from './limits.js';
import { runLoop, type Clock, type LoopLimits } from './loop.js';
import { createNextSpeakerCheck, type NextSpeakerOptions } from './next-speaker.js';
import type { McpManager } from '../tools/mcp/manager.js';
import { createToolSet } from '../tools/mcp/tool-set.js';
import { defaultSandbox } from '../sandbox/sandbox.js';
import { withRedaction } from './redacted-model.js';
import { createRunState, type RunState } from './run-state.js';
import type { Sandbox } from '../sandbox/types.js';

/**
 * What a sub-agent plug (built by agents/, passed in by the face) gets from the run it serves. The
 * plug is a function handed to the composition, so core never imports the layer above it.
 */
export interface SubagentHost {
  /** The parent's tools; a child gets a subset of them (never invoke_agent). */
  tools: readonly Tool[];
  policy: PolicyEngine;
  channel: ApprovalChannel;
  env: ToolEnv;
  model: ModelClient;
  /** Trusted configuration: `.gemini/agents/*.md` are read here; none for an untrusted project. */
  configRoot?: string;
  /** The project memory text; a child's system prompt carries it too. */
  memory: string;
  limits: LoopLimits;
  clock?: Clock;
  /** `agents.overrides` from the trusted `.gemini/settings.json`. */
  agentOverrides: Readonly<Record<string, AgentOverride>>;
  /** The parent run in progress: its state (model, mode, spent budget) and its event sink. */
  current(): ParentRun;
}

interface ParentRun {
  state: RunState;
  emit: Emit;
}

const assertNever = (why: string): never => {
  throw new AgentError('internal', why);
};

/** What the plug adds to the run: its tools (invoke_agent), and the agents to list in the prompt. */
interface Subagents {
  tools: Tool[];
  agents: ReadonlyArray<{ name: string; description: string }>;
  warnings: string[];
}

export type SubagentFactory = (host: SubagentHost) => Promise<Subagents>;

export interface AgentOptions {
  /** The workspace: every file tool is confined to it. */
  root: string;
  model: string;
  apiKey: string;
  baseUrl?: string;
  mode: ApprovalMode;
  policyContext: PolicyContext;
  policy: {
    workspace?: PolicySource[];
    user?: PolicySource[];
    admin?: PolicySource[];
    /** Replace the shipped defaults (CLI `--no-defaults`). */
    noDefaults?: boolean;
  };
  memory: {
    /** Where trusted context files are read from: a base-branch snapshot for pull-request events. */
    memoryRoot: string;
    fileNames?: string[];
    globalFile?: string;
  };
  /** The project's `.gemini/` is not trusted (the CLI's folder trust): its settings.json and agents are not read. */
  untrustedProject?: boolean;
  command: CommandKind;
  instructions?: string;
  /** Rendered and fenced by context/task-context.ts. */
  taskContext?: string;
  availableLabels?: string[];
  repo?: string;
  limits: LoopLimits;
  /**
   * Count turns, wall time, tokens and cost from where each run starts, not over the whole
   * session: an editor's or terminal's session lives across many prompts, each with its own budget.
   */
  limitsPerRun?: boolean;
  secrets: string[];
  channel: ApprovalChannel;
  extraTools?: Tool[];
  recorder?: unknown;
  signal?: AbortSignal;
  /** The host environment commands start from (only its allow-listed variables pass). Defaults to process.env. */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Variables trusted configuration passes to every command, hook and MCP server as they are (ToolEnv.passEnv). */
  passEnv?: Readonly<Record<string, string>>;
  shellTimeoutMs?: number;
  /** Where commands run (sandbox/createSandbox). Absent: an `auto` sandbox from this process's environment. */
  sandbox?: Sandbox;
  /** Tests and the benchmark pass a client; otherwise the real Gemini client is built. */
  modelClient?: ModelClient;
  sessionId?: string;
  /** Offer Gemini CLI's ask_user tool (a face that can carry a question to a person). */
  askUser?: boolean;
  /**
   * Offer only the built-in tools that read (list, read, glob, grep) besides `extraTools`: a task
   * that must change nothing (batch triage) does not rely on the policy alone to refuse edits.
   */
  readOnlyTools?: boolean;
  /** A safe point after each settled batch, awaited: the faces save their sessions here. */
  onBatchSettled?: (state: RunState) => Promise<void>;
  /** Sub-agents (invoke_agent): agents/'s createSubagents, passed in by the face. None when absent. */
  subagents?: SubagentFactory;
  /** `review` delegates exploring the change to codebase_investigator when it is available. Default true. */
  investigateReviews?: boolean;
  /**
   * The next-speaker check after a text-only turn. `enabled` is the face's default (the action: on;
   * the CLI: off, as in Gemini CLI); the trusted `.gemini/settings.json` `model.skipNextSpeakerCheck` wins.
   */
  nextSpeaker?: NextSpeakerOptions & { enabled?: boolean };
  /** Tests pass a fake clock (retry waits). */
  clock?: Clock;
  /** Text file reads and writes through an editor (ACP); absent: the disk. */
  files?: TextFileAccess;
  /** MCP servers and hooks from settings.json (trusted configuration only: the face reads it). */
  extensions?: ExtensionOptions;
}

export interface AgentRun {
  outcome: Outcome;
  state: RunState;
}

export interface Agent {
  readonly policy: PolicyEngine;
  readonly systemPrompt: string;
  readonly memorySources: readonly string[];
  /** Warnings found while preparing (policy, memory): the face shows them. */
  readonly warnings: readonly string[];
  /** The run's MCP servers (status and tools for `mcp list` and the job summary); absent without any. */
  readonly mcp?: McpManager;
  start(prompt: string, emit: Emit): Promise<AgentRun>;
  resume(state: RunState, answers: readonly ApprovalAnswer[], emit: Emit): Promise<AgentRun>;
  /**
   * A prompt to a session that may already have history (a CLI `--resume`, an editor's next
   * message). `answers` settle a batch that waits (required when one does); the prompt then joins
   * their responses as the person's message. `signal` stops this run only (an editor cancels one
   * prompt of a session that goes on); without it, the agent's own signal.
   */
  send(state: RunState, o: { prompt: string; answers?: readonly ApprovalAnswer[]; signal?: AbortSignal }, emit: Emit): Promise<AgentRun>;
  /** The kind of a tool by wire name; undefined when there is no such tool. */
  toolKind(name: string): ToolKind | undefined;
  /** Ends what the agent started: SessionEnd hooks, every MCP server. Faces call it once the run is over. */
  close(): Promise<void>;
}

/** Throws AgentError('config') for a bad policy: before any tool runs. */
export async function prepareAgent(opts: AgentOptions): Promise<Agent> {
  const { engine: policy, warnings: policyDiagnostics } = await loadPolicyWithDiagnostics({
    context: opts.policyContext,
    useBuiltinDefaults: !opts.policy.noDefaults,
    workspace: opts.root,
    tiers: { workspace: opts.policy.workspace, user: opts.policy.user, admin: opts.policy.admin },
  });
  const policyWarnings = policyDiagnostics.map(formatDiagnostic);

  // Context file names: the face's explicit list, else the trusted settings.json, else GEMINI.md.
  const settings = opts.memory.fileNames || opts.untrustedProject ? { fileNames: opts.memory.fileNames, warnings: [] } : await readContextSettings(opts.memory.memoryRoot);
  const fileNames = settings.fileNames;
  const memory = await loadMemory({
    memoryRoot: opts.memory.memoryRoot,
    workspaceRoot: opts.root,
    cwd: opts.root,
    fileNames,
    globalFile: opts.memory.globalFile,
  });

  const builtIn = createDefaultTools().filter((t) => !opts.readOnlyTools || t.kind === 'read' || t.kind === 'search');
  const baseTools = [...builtIn, ...(opts.askUser ? [askUserTool] : []), ...(opts.extraTools ?? [])];
  // MCP servers and hooks: after policy (a broken policy starts nothing). Warnings go to the face
  // until a run starts, then into the run's event stream.
  const extensionWarnings: string[] = [];
  let warn: (m: string) => void = (m) => void extensionWarnings.push(m);
  const extensions = await prepareExtensions(opts.extensions, {
    root: opts.root,
    sandbox: opts.sandbox ?? defaultSandbox(),
    baseEnv: opts.baseEnv ?? process.env,
    ...(opts.passEnv && { passEnv: opts.passEnv }),
    secrets: opts.secrets,
    warn: (m) => warn(m),
  });
  const hooks = extensions.hooks;
  const env: ToolEnv = {
    root: opts.root,
    secrets: opts.secrets,
    baseEnv: opts.baseEnv ?? process.env,
    ...(opts.passEnv && { passEnv: opts.passEnv }),
    shellTimeoutMs: opts.shellTimeoutMs ?? 5 * 60_000,
    ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
    memoryFor: createJitMemory({
      workspaceRoot: opts.root,
      memoryRoot: opts.memory.memoryRoot,
      fileNames,
      alreadyLoaded: memory.sources,
    }),
    recorder: opts.recorder,
    ...(opts.files ? { files: opts.files } : {}),
  };
  // What leaves for the model is redacted, whoever built the request (the loop, compression, a hook).
  const baseModel = withRedaction(opts.modelClient ?? createGeminiClient({ apiKey: opts.apiKey, baseUrl: opts.baseUrl, model: opts.model }), opts.secrets);
  const model = hooks ? hooks.wrapModel(baseModel) : baseModel;
  const signal = opts.signal ?? new AbortController().signal;
  const loopSettings = opts.untrustedProject ? { agentOverrides: {}, warnings: [] } : await readLoopSettings(opts.memory.memoryRoot);

  // The run a sub-agent serves: set by start/resume before the loop runs.
  let current: ParentRun | undefined;
  const sub = opts.subagents
    ? await opts.subagents({
        tools: baseTools,
        policy,
        channel: opts.channel,
        env,
        model,
        ...(opts.untrustedProject ? {} : { configRoot: opts.memory.memoryRoot }),
        memory: memory.text,
        limits: opts.limits,
        ...(opts.clock ? { clock: opts.clock } : {}),
        agentOverrides: loopSettings.agentOverrides,
        current: () => current ?? assertNever('a sub-agent ran outside a run'),
      })
    : undefined;
  const tools = [...baseTools, ...(sub?.tools ?? [])];
  const registry = createToolSet(createToolRegistry(tools), extensions.mcp);

  // The mode can change during a session (an editor's session/set_mode); its note in the prompt follows.
  const prompts = new Map<ApprovalMode, string>();
  const systemPromptFor = (mode: ApprovalMode): string => {
    let p = prompts.get(mode);
    if (p === undefined) {
      p = buildSystemPrompt({
        command: opts.command,
        instructions: opts.instructions,
        memory: memory.text,
        toolNames: registry.names(),
        repo: opts.repo,
        mode,
        availableLabels: opts.availableLabels,
        subagents: sub?.agents ?? [],
        investigateReviews: opts.investigateReviews ?? true,
      });
      prompts.set(mode, p);
    }
    return p;
  };
  const systemPrompt = systemPromptFor(opts.mode);

  const speakerOn = loopSettings.skipNextSpeakerCheck === undefined ? opts.nextSpeaker?.enabled === true : !loopSettings.skipNextSpeakerCheck;
  const afterTextTurn = speakerOn ? createNextSpeakerCheck(opts.nextSpeaker) : undefined;

  // Getters: a mode changed while a run goes applies from its next request and batch.
  const deps = (state: RunState, runSignal: AbortSignal = signal) => ({
    model,
    scheduler: createScheduler({ tools: registry, policy, channel: opts.channel, env, ...(hooks && { hooks: hooks.calls }), ...(opts.clock?.setTimer && { startTimer: opts.clock.setTimer }) }),
    get systemInstruction() {
      return systemPromptFor(state.mode);
    },
    tools: async () => {
      await registry.ready();
      return registry.declarations();
    },
    limits: opts.limitsPerRun ? limitsFrom(opts.limits, state) : opts.limits,
    signal: runSignal,
    get mode() {
      return state.mode;
    },
    onBatchSettled: opts.onBatchSettled,
    ...(afterTextTurn ? { afterTextTurn } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(hooks && { hooks, compressionModel: baseModel }),
  });

  /** Rules an earlier "always" added, once each: one agent may run many prompts of a session. */
  const restoreRules = (state: RunState) => {
    const key = (r: AddedRule) => JSON.stringify(r);
    const known = new Set(policy.added.map(key));
    policy.restoreAdded(state.addedRules.filter((r) => !known.has(key(r))));
  };

  /**
   * A run's events also carry hook runs and the MCP servers' later warnings. SessionStart runs once
   * per session this agent serves (an editor sends many prompts to one): its context, if any, is
   * returned for the caller to put before the prompt.
   */
  const started = new Set<string>();
  const attach = async (state: RunState, emit: Emit, { source, signal }: { source: 'startup' | 'resume'; signal: AbortSignal }): Promise<string | undefined> => {
    warn = (m: string) => emit({ type: 'warning', message: m });
    if (!hooks) return undefined;
    hooks.attach(state.id, emit);
    if (started.has(state.id)) return undefined;
    started.add(state.id);
    return hooks.sessionStart(source, signal);
  };

  const firstUserMessage = (prompt: string): Content => ({
    role: 'user',
    parts: [{ text: opts.taskContext ? `${opts.taskContext}\n\n${prompt}` : prompt }],
  });

  return {
    policy,
    systemPrompt,
    memorySources: memory.sources,
    warnings: [...policyWarnings, ...settings.warnings, ...memory.warnings, ...loopSettings.warnings, ...(sub?.warnings ?? []), ...extensionWarnings],
    ...(extensions.mcp && { mcp: extensions.mcp }),
    close: () => extensions.close(),
    async start(prompt, emit) {
      const state = createRunState(opts.sessionId ?? randomUUID(), opts.model, opts.mode);
      current = { state, emit };
      // SessionStart's context goes before the prompt, fenced, as in Gemini CLI's non-interactive mode.
      const context = await attach(state, emit, { source: 'startup', signal });
      const text = context ? `<hook_context>${context}</hook_context>\n\n${prompt}` : prompt;
      const outcome = await runLoop({ state, input: { userMessage: firstUserMessage(text) } }, deps(state), emit);
      state.addedRules = [...policy.added];
      return { outcome, state };
    },
    async resume(state, answers, emit) {
      restoreRules(state);
      current = { state, emit };
      // SessionStart runs with source "resume"; there is no new prompt to put its context before.
      await attach(state, emit, { source: 'resume', signal });
      const outcome = await runLoop({ state, input: { answers: [...answers] } }, deps(state), emit);
      state.addedRules = [...policy.added];
      return { outcome, state };
    },
    async send(state, o, emit) {
      let prompt = o.prompt;
      restoreRules(state);
      current = { state, emit };
      const context = await attach(state, emit, { source: state.history.length === 0 ? 'startup' : 'resume', signal: o.signal ?? signal });
      if (context) prompt = `<hook_context>${context}</hook_context>\n\n${prompt}`;
      const answers = [...(o.answers ?? [])];
      const userMessage: Content = { role: 'user', parts: [{ text: prompt }] };
      const input = state.open || answers.length > 0 ? { answers, userMessage } : { userMessage };
      const outcome = await runLoop({ state, input }, deps(state, o.signal), emit);
      state.addedRules = [...policy.added];
      return { outcome, state };
    },
    toolKind: (name) => registry.get(name)?.kind,
  };
}

/** Per-run budgets: the session's totals so far plus the run's own allowance. */
function limitsFrom(l: LoopLimits, state: RunState): LoopLimits {
  return {
    maxTurns: state.turns + (l.maxTurns ?? DEFAULT_MAX_TURNS),
    ...(l.maxWallMs !== undefined ? { maxWallMs: state.elapsedMsBefore + l.maxWallMs } : {}),
    ...(l.maxTotalTokens !== undefined ? { maxTotalTokens: state.usage.totalTokens + l.maxTotalTokens } : {}),
    ...(l.maxCostUsd !== undefined ? { maxCostUsd: state.costUsd + l.maxCostUsd } : {}),
  };
}
