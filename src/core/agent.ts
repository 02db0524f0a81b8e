/**
 * The composition both faces call: policy, tools, memory, prompt, model client, scheduler and the
 * loop, wired from one options object. Policy loads first, so a broken policy file stops the run
 * before any tool exists, let alone runs.
 */
import { randomUUID } from 'node:crypto';
import { buildSystemPrompt, type Command as CommandKind } from '../context/system-prompt.js';
import { createJitMemory } from '../context/jit-memory.js';
import { loadMemory, readContextSettings } from '../context/memory.js';
import { createGeminiClient } from '../model/gemini.js';
import type { ModelClient } from '../model/client.js';
import type { Content } from '../model/wire.js';
import { loadPolicyWithDiagnostics, type PolicySource } from '../policy/load.js';
import { formatDiagnostic } from '../policy/rule.js';
import type { ApprovalMode, PolicyContext, PolicyEngine } from '../policy/types.js';
import { createScheduler } from '../scheduler/scheduler.js';
import type { ApprovalAnswer, ApprovalChannel } from '../scheduler/types.js';
import type { Tool, ToolEnv } from '../tools/define-tool.js';
import { askUserTool } from '../tools/ask-user.js';
import { createDefaultTools, createToolRegistry } from '../tools/registry.js';
import type { McpManager } from '../tools/mcp/manager.js';
import { createToolSet } from '../tools/mcp/tool-set.js';
import { defaultSandbox } from '../sandbox/sandbox.js';
import { prepareExtensions, type ExtensionOptions } from './extensions.js';
import type { Emit, Outcome } from './events.js';
import { runLoop, type LoopLimits } from './loop.js';
import { createRunState, type RunState } from './run-state.js';
import type { Sandbox } from '../sandbox/types.js';

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
  command: CommandKind;
  instructions?: string;
  /** Rendered and fenced by context/task-context.ts. */
  taskContext?: string;
  availableLabels?: string[];
  repo?: string;
  limits: LoopLimits;
  secrets: string[];
  channel: ApprovalChannel;
  extraTools?: Tool[];
  recorder?: unknown;
  signal?: AbortSignal;
  /** Environment commands start from (before scrubbing). Defaults to process.env. */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  shellTimeoutMs?: number;
  /** Where commands run (sandbox/createSandbox). Absent: an `auto` sandbox from this process's environment. */
  sandbox?: Sandbox;
  /** Tests and the benchmark pass a client; otherwise the real Gemini client is built. */
  modelClient?: ModelClient;
  sessionId?: string;
  /** Offer Gemini CLI's ask_user tool (a face that can carry a question to a person). */
  askUser?: boolean;
  /** A safe point after each settled batch: the action checkpoints long runs here. */
  onBatchSettled?: (state: RunState) => Promise<void>;
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
  const settings = opts.memory.fileNames ? { fileNames: opts.memory.fileNames, warnings: [] } : await readContextSettings(opts.memory.memoryRoot);
  const fileNames = settings.fileNames;
  const memory = await loadMemory({
    memoryRoot: opts.memory.memoryRoot,
    workspaceRoot: opts.root,
    cwd: opts.root,
    fileNames,
    globalFile: opts.memory.globalFile,
  });

  const tools = [...createDefaultTools(), ...(opts.askUser ? [askUserTool] : []), ...(opts.extraTools ?? [])];
  // MCP servers and hooks: after policy (a broken policy starts nothing). Warnings go to the face
  // until a run starts, then into the run's event stream.
  const extensionWarnings: string[] = [];
  let warn: (m: string) => void = (m) => void extensionWarnings.push(m);
  const extensions = await prepareExtensions(opts.extensions, { root: opts.root, sandbox: opts.sandbox ?? defaultSandbox(), baseEnv: opts.baseEnv ?? process.env, secrets: opts.secrets, warn: (m) => warn(m) });
  const registry = createToolSet(createToolRegistry(tools), extensions.mcp);
  const hooks = extensions.hooks;
  const env: ToolEnv = {
    root: opts.root,
    secrets: opts.secrets,
    baseEnv: opts.baseEnv ?? process.env,
    shellTimeoutMs: opts.shellTimeoutMs ?? 5 * 60_000,
    ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
    memoryFor: createJitMemory({
      workspaceRoot: opts.root,
      memoryRoot: opts.memory.memoryRoot,
      fileNames,
      alreadyLoaded: memory.sources,
    }),
    recorder: opts.recorder,
  };

  const systemPrompt = buildSystemPrompt({
    command: opts.command,
    instructions: opts.instructions,
    memory: memory.text,
    toolNames: registry.names(),
    repo: opts.repo,
    mode: opts.mode,
    availableLabels: opts.availableLabels,
  });

  const baseModel = opts.modelClient ?? createGeminiClient({ apiKey: opts.apiKey, baseUrl: opts.baseUrl, model: opts.model });
  const model = hooks ? hooks.wrapModel(baseModel) : baseModel;
  const signal = opts.signal ?? new AbortController().signal;

  const deps = (state: RunState) => ({
    model,
    scheduler: createScheduler({ tools: registry, policy, channel: opts.channel, env, ...(hooks && { hooks: hooks.calls }) }),
    systemInstruction: systemPrompt,
    tools: async () => {
      await registry.ready();
      return registry.declarations();
    },
    limits: opts.limits,
    signal,
    mode: state.mode,
    onBatchSettled: opts.onBatchSettled,
    ...(hooks && { hooks, compressionModel: baseModel }),
  });

  /** A run's events also carry hook runs and the MCP servers' later warnings. */
  const attach = async (state: RunState, emit: Emit, source: 'startup' | 'resume', signal: AbortSignal): Promise<string | undefined> => {
    warn = (m: string) => emit({ type: 'warning', message: m });
    if (!hooks) return undefined;
    hooks.attach(state.id, emit);
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
    warnings: [...policyWarnings, ...settings.warnings, ...memory.warnings, ...extensionWarnings],
    ...(extensions.mcp && { mcp: extensions.mcp }),
    close: () => extensions.close(),
    async start(prompt, emit) {
      const state = createRunState(opts.sessionId ?? randomUUID(), opts.model, opts.mode);
      // SessionStart's context goes before the prompt, fenced, as in Gemini CLI's non-interactive mode.
      const context = await attach(state, emit, 'startup', signal);
      const text = context ? `<hook_context>${context}</hook_context>\n\n${prompt}` : prompt;
      const outcome = await runLoop(state, deps(state), emit, { userMessage: firstUserMessage(text) });
      state.addedRules = [...policy.added];
      return { outcome, state };
    },
    async resume(state, answers, emit) {
      // SessionStart runs with source "resume"; there is no new prompt to put its context before.
      await attach(state, emit, 'resume', signal);
      policy.restoreAdded(state.addedRules);
      const outcome = await runLoop(state, deps(state), emit, { answers: [...answers] });
      state.addedRules = [...policy.added];
      return { outcome, state };
    },
  };
}
