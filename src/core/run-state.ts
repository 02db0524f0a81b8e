import type { Content, Usage } from '../model/wire.js';
import type { AddedRule, ApprovalMode } from '../policy/types.js';
import type { OpenBatch } from '../scheduler/types.js';
import type { Todo } from '../tools/builtin/write-todos.js';

/**
 * Everything the loop needs to continue a run in another process. Plain JSON: session/ serializes
 * it as it is. The loop mutates it as it goes.
 */
export interface RunState {
  id: string;
  model: string;
  mode: ApprovalMode;
  /** The chat exactly as sent and received (model parts verbatim). */
  history: Content[];
  turns: number;
  usage: Usage;
  costUsd: number;
  toolCalls: number;
  /** Wall time spent in earlier runs of this session, for the carried-over budget. */
  elapsedMsBefore: number;
  /** Tokens of the last request's prompt (drives compression). */
  lastPromptTokens: number;
  /** Per model id totals. */
  models: Record<string, { inputTokens: number; outputTokens: number; totalTokens: number; requests: number }>;
  /** The structured snapshot of compressed history, merged by later compressions. */
  snapshot?: string;
  /** Recent tool calls (name + stable args) for loop detection across runs. */
  recentCalls: string[];
  /** A batch waiting for a human's answers. */
  open?: OpenBatch;
  /** Rules added by "always" approvals. */
  addedRules: AddedRule[];
  /**
   * Hashes of the calls and texts the model produced, and how many turns in a row brought nothing
   * new (the no-progress loop guard). Absent in sessions saved before it existed.
   */
  progress?: { seen: string[]; idleTurns: number };
  /** The model's plan: the list of its last write_todos call that succeeded (core/plan.ts). */
  todos?: Todo[];
  /** Synthetic "go on" messages sent so far (next-speaker continuations, a sub-agent's last chance). */
  continuations?: number;
}

export function createRunState(id: string, model: string, mode: ApprovalMode): RunState {
  return {
    id,
    model,
    mode,
    history: [],
    turns: 0,
    usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, thoughtTokens: 0, totalTokens: 0 },
    costUsd: 0,
    toolCalls: 0,
    elapsedMsBefore: 0,
    lastPromptTokens: 0,
    models: {},
    recentCalls: [],
    addedRules: [],
    progress: { seen: [], idleTurns: 0 },
    continuations: 0,
  };
}
