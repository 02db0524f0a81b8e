/**
 * What a face gives the composition root, in groups (which model, which workspace, which policy,
 * what task, which tools, where commands run, which limits, and how the run talks to the face),
 * and the agent it gets back.
 */
import type { CustomCommand } from '../commands/command-file.js';
import type { Expanded } from '../commands/expand-command.js';
import type { Invocation } from '../commands/template.js';
import type { RunSettings } from '../context/run-settings.js';
import type { Command as CommandKind } from '../context/system-prompt.js';
import type { Emit, Outcome } from '../core/events.js';
import type { ExtensionOptions } from '../core/extensions.js';
import type { Clock, LoopLimits } from '../core/loop.js';
import type { NextSpeakerOptions } from '../core/next-speaker.js';
import type { OutputSchema } from '../core/output-schema.js';
import type { RunState } from '../core/run-state.js';
import type { SubagentFactory } from '../core/subagent-host.js';
import type { ModelClient } from '../model/client.js';
import type { VertexTarget } from '../model/gemini.js';
import type { Part } from '../model/wire.js';
import type { PolicySource } from '../policy/load.js';
import type { ApprovalMode, PolicyContext, PolicyEngine } from '../policy/types.js';
import type { Sandbox } from '../sandbox/types.js';
import type { ApprovalAnswer, ApprovalChannel } from '../scheduler/types.js';
import type { TextFileAccess, Tool, ToolKind } from '../tools/define-tool.js';
import type { McpManager } from '../tools/mcp/manager.js';

export interface AgentOptions {
  model: {
    /** The model id, e.g. gemini-2.5-pro. */
    name: string;
    apiKey: string;
    /** Vertex AI instead of the Gemini API (model/gemini.ts). */
    vertex?: VertexTarget;
    baseUrl?: string;
    /** Tests and the benchmark pass a client; otherwise the real Gemini client is built. */
    client?: ModelClient;
  };
  workspace: {
    /** Every file tool is confined to it. */
    root: string;
    /** Where trusted context files are read from: a base-branch snapshot for pull-request events. */
    memoryRoot: string;
    contextFileNames?: string[];
    globalContextFile?: string;
    /** Context files that extensions bring (read after the global file, before the repository's). */
    extensionContextFiles?: ReadonlyArray<{ abs: string; confine: string; label: string }>;
    /** The project's `.gemini/` is not trusted (the CLI's folder trust): its settings.json and agents are not read. */
    untrusted?: boolean;
    /** Text file reads and writes through an editor (ACP); absent: the disk. */
    files?: TextFileAccess;
    /** Files no file tool reads, searches, lists or writes: Google Cloud credentials (tools/hidden-files.ts credentialFilesOf). */
    hidden?: readonly string[];
  };
  policy: {
    context: PolicyContext;
    mode: ApprovalMode;
    workspace?: PolicySource[];
    user?: PolicySource[];
    admin?: PolicySource[];
    /** Replace the shipped defaults (CLI `--no-defaults`). */
    noDefaults?: boolean;
    /**
     * Whether `commands.sandbox` really confines commands (its probe's answer): rules with
     * `sandboxed` match on it. The face passes it from the sandbox it runs commands in; absent: not.
     */
    sandboxed?: PromiseLike<boolean>;
  };
  task: {
    command: CommandKind;
    instructions?: string;
    /** Rendered and fenced by context/task-context.ts. */
    taskContext?: string;
    /** The thread's images and their labels (context/thread-images.ts): after the task context in the first message. */
    taskImages?: Part[];
    availableLabels?: string[];
    repo?: string;
    /** `review` delegates exploring the change to codebase_investigator when it is available. Default true. */
    investigateReviews?: boolean;
    /**
     * The next-speaker check after a text-only turn. `enabled` is the face's default (the action: on;
     * the CLI: off, as in Gemini CLI); the trusted `.gemini/settings.json` `model.skipNextSpeakerCheck` wins.
     */
    nextSpeaker?: NextSpeakerOptions & { enabled?: boolean };
    sessionId?: string;
    /** `output-schema`: the run's final answer is also asked for as JSON of this shape (core/structured-answer.ts). */
    outputSchema?: OutputSchema;
  };
  tools?: {
    extra?: Tool[];
    /** Offer Gemini CLI's ask_user tool (a face that can carry a question to a person). */
    askUser?: boolean;
    /**
     * Offer only the built-in tools that read (list, read, glob, grep) besides `extra`: a task that
     * must change nothing (batch triage) does not rely on the policy alone to refuse edits.
     */
    readOnly?: boolean;
    /** Sub-agents (invoke_agent): agents/'s createSubagents. None when absent. */
    subagents?: SubagentFactory;
    /** Tool names (or aliases) no request offers: Gemini CLI extensions' `excludeTools`. */
    exclude?: readonly string[];
    /** What the publishing tools record into (ToolEnv.recorder). */
    recorder?: unknown;
  };
  /** What must never reach a tool's process, a model request or the output. */
  secrets: string[];
  commands?: {
    /** The host environment commands start from (only its allow-listed variables pass). Defaults to process.env. */
    baseEnv?: Readonly<Record<string, string | undefined>>;
    /** Variables trusted configuration passes to every command, hook and MCP server as they are (ToolEnv.passEnv). */
    passEnv?: Readonly<Record<string, string>>;
    /** Where commands run (sandbox/createSandbox). Absent: an `auto` sandbox from this process's environment. */
    sandbox?: Sandbox;
    shellTimeoutMs?: number;
  };
  /**
   * The run's trusted settings scopes, merged (context/run-settings.ts): context file names, loop
   * and agent settings, `tools.*`. Absent, or with `workspace.untrusted`: none. `alsoHonoured`:
   * settings paths the face acts on itself (left out of the one "not used" warning).
   */
  settings?: RunSettings & { alsoHonoured?: readonly string[] };
  /** MCP servers and hooks from settings.json (trusted configuration only: the face reads it). */
  extensions?: ExtensionOptions;
  limits: LoopLimits & {
    /**
     * Count turns, wall time, tokens and cost from where each run starts, not over the whole
     * session: an editor's or terminal's session lives across many prompts, each with its own budget.
     */
    perRun?: boolean;
  };
  io: {
    channel: ApprovalChannel;
    signal?: AbortSignal;
    /** A safe point after each settled batch, awaited: the faces save their sessions here. */
    onBatchSettled?: (state: RunState) => Promise<void>;
    /** Tests pass a fake clock (retry waits, the deadline, the abort grace). */
    clock?: Clock;
  };
}

export interface AgentRun {
  outcome: Outcome;
  state: RunState;
  /** With task.outputSchema: the final answer that matched it (absent when the run did not get that far). */
  structured?: { value: unknown };
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
  send(
    state: RunState,
    o: { prompt: string; answers?: readonly ApprovalAnswer[]; signal?: AbortSignal },
    emit: Emit,
  ): Promise<AgentRun>;
  /**
   * A custom command's prompt (commands/expand-command.ts), its `@{}` read from this agent's
   * workspace and its `!{}` decided by this agent's policy in its mode and run in its sandbox.
   * Throws AgentError('config') when policy refuses a `!{}`.
   */
  expandCommand(
    command: CustomCommand,
    invocation: Invocation,
    o?: { showRuleSource?: (source: string) => string },
  ): Promise<Expanded>;
  /** The kind of a tool by wire name; undefined when there is no such tool. */
  toolKind(name: string): ToolKind | undefined;
  /** Ends what the agent started: SessionEnd hooks, every MCP server. Faces call it once the run is over. */
  close(): Promise<void>;
}
