import { AgentError } from '../common/errors.js';
import type { RuleRef } from '../policy/types.js';
import { WAIT_FOR_PREVIOUS, type ToolError, type ToolKind, type ToolMedia } from '../tools/define-tool.js';
import type { PendingApproval } from './types.js';

/**
 * One tool call of a batch, as plain data. Pure module: no I/O, no timers.
 * No state holds a function or a promise, so a batch that waits for a human is saved as it is;
 * the scheduler keeps prepared calls in memory, keyed by id, and rebuilds them on resume.
 */
export interface CallBase {
  /** The model's functionCall.id, or one synthesized from the position when the model sent none. */
  id: string;
  /** The id exactly as the model sent it; the response echoes it (absent: the response carries none). */
  wireId?: string;
  name: string;
  args: Record<string, unknown>;
  /** Position in the model's request: responses keep this order. */
  order: number;
  /**
   * The model's `wait_for_previous`, taken out of `args` (no tool's schema knows it): true runs the
   * call after everything before it; 'invalid' when the model sent something other than a boolean.
   */
  waitForPrevious?: boolean | 'invalid';
}

/** A call that stopped part-way for people: a sub-agent whose own calls wait (plain JSON, saved as it is). */
interface NestedWait {
  /** What waits inside, with ids made unique in the batch (`<this call's id>/<inner id>`). */
  pending: PendingApproval[];
  /** What the call needs to go on: opaque to the scheduler. */
  saved: unknown;
}

/** Who let a call run: a policy rule (null: the context's default), or a human's approval. */
type AllowedBy = { by: 'policy'; rule: RuleRef | null } | { by: 'approval'; always: boolean };

export type Call =
  | { status: 'received'; base: CallBase }
  | { status: 'validating'; base: CallBase }
  | { status: 'prepared'; base: CallBase; title: string; paths: string[]; kind: ToolKind }
  | { status: 'awaiting_approval'; base: CallBase; title: string; pending: PendingApproval; nested?: NestedWait }
  | { status: 'scheduled'; base: CallBase; title: string; allowedBy: AllowedBy }
  | { status: 'executing'; base: CallBase; title: string; startedAt: number }
  | {
      status: 'succeeded';
      base: CallBase;
      output: string;
      forHuman?: string;
      /** Inline data for the model (an MCP tool's image). */ media?: ToolMedia[];
      ms: number;
    }
  | { status: 'failed'; base: CallBase; error: ToolError; ms?: number }
  | { status: 'denied'; base: CallBase; rule: RuleRef | null; reason: string }
  | { status: 'cancelled'; base: CallBase; reason: string };

export type CallStatus = Call['status'];
export type CallOf<S extends CallStatus> = Extract<Call, { status: S }>;

/**
 * The allowed transitions. awaiting_approval is crossed by a *new process* on resume; it may end
 * in succeeded directly when the call was a question and the human's text is its result. An
 * executing call may stop to wait too: a sub-agent whose own call needs a human (nested).
 */
export const NEXT: { readonly [S in CallStatus]: readonly CallStatus[] } = {
  received: ['validating', 'denied', 'cancelled'],
  validating: ['prepared', 'failed', 'cancelled'],
  prepared: ['scheduled', 'awaiting_approval', 'denied', 'cancelled'],
  awaiting_approval: ['scheduled', 'denied', 'succeeded', 'failed', 'cancelled'],
  scheduled: ['executing', 'cancelled'],
  executing: ['succeeded', 'failed', 'cancelled', 'awaiting_approval'],
  succeeded: [],
  failed: [],
  denied: [],
  cancelled: [],
};

export const SETTLED_STATUSES: readonly CallStatus[] = ['succeeded', 'failed', 'denied', 'cancelled'];

export const isSettled = (c: Call): boolean => NEXT[c.status].length === 0;

export const canMove = (from: CallStatus, to: CallStatus): boolean => NEXT[from].includes(to);

/** The only way a call changes. An illegal move is a bug in the scheduler, not a user error. */
export function move(from: Call, to: Call): Call {
  if (from.base.id !== to.base.id) {
    throw new AgentError('internal', `call ${from.base.id}: cannot become call ${to.base.id}`);
  }
  if (!canMove(from.status, to.status)) {
    throw new AgentError(
      'internal',
      `call ${from.base.id} (${from.base.name}): ${from.status} -> ${to.status} is not a transition`,
    );
  }
  return to;
}

/** A fresh call for the model's n-th functionCall. */
export function receiveCall(
  fc: { id?: string; name: string; args?: Record<string, unknown> },
  order: number,
): CallOf<'received'> {
  const { [WAIT_FOR_PREVIOUS]: wait, ...args } = fc.args ?? {};
  const base: CallBase = { id: fc.id || `call-${order}-${fc.name}`, name: fc.name, args, order };
  if (fc.id) base.wireId = fc.id;
  if (wait !== undefined) base.waitForPrevious = typeof wait === 'boolean' ? wait : 'invalid';
  return { status: 'received', base };
}
