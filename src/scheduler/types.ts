import type { FunctionCall, Part } from '../model/wire.js';
import type { ApprovalMode, RuleRef } from '../policy/types.js';
import type {
  FileDiff,
  HumanQuestion,
  PreparedCall,
  RunContext,
  ToolError,
  ToolKind,
  ToolOutput,
} from '../tools/define-tool.js';

/** Events the scheduler emits; core's LoopEvent union includes these. */
export type SchedulerEvent =
  | { type: 'tool_use'; id: string; name: string; args: Record<string, unknown> }
  | {
      type: 'tool_state';
      id: string;
      name: string;
      status: string;
      title?: string;
      /** On `prepared`: what an editor shows of the call (its kind, the workspace-relative paths it touches, an edit's diff). */
      kind?: ToolKind;
      paths?: readonly string[];
      diff?: FileDiff;
    }
  | {
      type: 'tool_result';
      id: string;
      name: string;
      ok: boolean;
      output: string;
      error?: ToolError;
      forHuman?: string;
      /** An MCP server's tool: the server and the tool's own name there, as our registry knows them. */
      mcp?: { server: string; tool: string };
    };

export type SchedulerEmit = (e: SchedulerEvent) => void;

/** A call that waits for a human: plain data, saved with the session. */
export interface PendingApproval {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** One line from the prepared call. */
  title: string;
  /** Unified diff for edits, the command for shell. */
  preview?: string;
  /** The rule that said ask_user; null for a model question that policy allowed. */
  rule: RuleRef | null;
  /** ask_user tool: the model's question. */
  question?: HumanQuestion;
}

/** A human's answer to one pending call. */
export type ApprovalAnswer =
  | { id: string; kind: 'approve'; always?: boolean }
  | { id: string; kind: 'deny'; reason?: string }
  | { id: string; kind: 'answer'; text: string };

/**
 * How the scheduler reaches a human. `decide` returns an answer now (a terminal prompt, allow-all,
 * deny-all) or 'defer': the call stays awaiting_approval and the loop returns a resumable state.
 */
export interface ApprovalChannel {
  decide(pending: PendingApproval): Promise<ApprovalAnswer | 'defer'>;
}

export interface BatchOptions {
  mode: ApprovalMode;
  signal: AbortSignal;
  /** The model's turn was cut off (MAX_TOKENS): refuse edit/execute calls of this batch. */
  truncated?: boolean;
}

/**
 * The outcome of one batch. When `pending` is empty, `responses` holds one functionResponse part per
 * call in the model's order and goes back as the next user message. Otherwise `open` is the
 * serializable state to save; `resume({ open, answers })` settles it in a later process.
 */
export interface BatchResult {
  responses: Part[];
  pending: PendingApproval[];
  open?: OpenBatch;
  /** A tool failed with code 'fatal': the run ends. */
  fatal?: ToolError;
  /** A hook asked to stop the run (`continue: false`): the run ends after this batch, with the reason. */
  stopped?: string;
}

/** Serializable state of a batch that waits for answers (defined by the scheduler; plain JSON). */
export interface OpenBatch {
  version: 1;
  calls: unknown[];
}

export interface Scheduler {
  run(calls: readonly FunctionCall[], opts: BatchOptions, emit: SchedulerEmit): Promise<BatchResult>;
  /** Goes on with a suspended batch, given the answers to its waiting calls. */
  resume(
    waiting: { open: OpenBatch; answers: readonly ApprovalAnswer[] },
    opts: BatchOptions,
    emit: SchedulerEmit,
  ): Promise<BatchResult>;
}

/** How a suspendable call ended this time: with its output, or waiting for people part-way. */
export type SuspendableRun = { output: ToolOutput } | { suspended: { pending: PendingApproval[]; saved: unknown } };

/**
 * A prepared call that can stop part-way to wait for people and go on in a later process: a
 * sub-agent, whose own calls go through a scheduler of their own. Implemented above the scheduler
 * (agents/); the scheduler prefers these methods to `run` when a prepared call has them.
 */
export interface SuspendableCall {
  runSuspendable(ctx: RunContext): Promise<SuspendableRun>;
  /** Go on from `saved` with the answers to the calls that waited (their own ids, unprefixed). */
  resumeSuspended(ctx: RunContext, saved: unknown, answers: readonly ApprovalAnswer[]): Promise<SuspendableRun>;
}

export const isSuspendable = (p: PreparedCall): p is PreparedCall & SuspendableCall =>
  typeof (p as Partial<SuspendableCall>).runSuspendable === 'function' &&
  typeof (p as Partial<SuspendableCall>).resumeSuspended === 'function';
