import type { AgentError } from '../common/errors.js';
import type { HookRunEvent } from '../hooks/types.js';
import type { PendingApproval, SchedulerEvent } from '../scheduler/types.js';
import type { Todo } from '../tools/builtin/write-todos.js';

/** Why a run stopped at a limit. */
export type LimitKind = 'turns' | 'time' | 'tokens' | 'cost' | 'loop';

export type Outcome =
  | { status: 'success'; finalText: string }
  | { status: 'awaiting_approval'; pending: readonly PendingApproval[] }
  | { status: 'limit'; which: LimitKind; message: string }
  | { status: 'error'; error: AgentError }
  | { status: 'cancelled' };

export interface RunStats {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  thoughtTokens: number;
  totalTokens: number;
  costUsd: number;
  toolCalls: number;
  durationMs: number;
  /** Per model id: token totals (Gemini CLI's `stats.models`). */
  models: Record<string, { inputTokens: number; outputTokens: number; totalTokens: number; requests: number }>;
}

/** The loop's event stream. Every face (stream-json, progress comment, job summary) subscribes. */
export type LoopEvent =
  | { type: 'init'; sessionId: string; model: string; resumed: boolean }
  | { type: 'message'; role: 'user' | 'assistant'; text: string; delta: boolean }
  | { type: 'thought'; text: string }
  | SchedulerEvent
  | { type: 'retry'; attempt: number; reason: string; waitMs: number }
  | { type: 'compressed'; beforeTokens: number; afterTokens: number }
  | { type: 'approval_request'; sessionId: string; calls: readonly PendingApproval[] }
  | { type: 'warning'; message: string }
  /** The model's plan as it now stands (write_todos): after the call's result, and when a saved run goes on. */
  | { type: 'todos'; todos: readonly Todo[] }
  /** One settings.json hook run: for the job summary and logs only (Gemini CLI's stream-json has no such event). */
  | HookRunEvent
  | { type: 'result'; outcome: Outcome; stats: RunStats }
  /** An event of a sub-agent's own loop, nested under the parent's `invoke_agent` call. */
  | { type: 'subagent'; parentId: string; agent: string; event: LoopEvent };

export type Emit = (e: LoopEvent) => void;
