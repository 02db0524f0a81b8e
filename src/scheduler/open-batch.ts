import { AgentError } from '../common/errors.js';
import { emptyStreak, type ValidationStreak } from './batch.js';
import { NEXT, type Call, type CallStatus } from './call-state.js';
import type { ApprovalAnswer, OpenBatch, PendingApproval } from './types.js';

/**
 * The scheduler's OpenBatch: every call of a batch that waits for a human, settled results
 * included, as plain JSON. Saved by session/, restored by `resume` in a later process.
 */
export interface SchedulerOpenBatch extends OpenBatch {
  version: 1;
  calls: Call[];
  /** The repeated-validation counter, carried across the suspension. */
  validationStreak: ValidationStreak;
}

export function toOpenBatch(calls: readonly Call[], streak: ValidationStreak): SchedulerOpenBatch {
  // A deep copy through JSON: what is saved is exactly what a fresh process will read.
  return JSON.parse(JSON.stringify({ version: 1, calls, validationStreak: streak })) as SchedulerOpenBatch;
}

const SAVED_STATUSES: readonly CallStatus[] = ['succeeded', 'failed', 'denied', 'cancelled', 'awaiting_approval'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Check a saved batch before trusting it; a broken one is bad input, never a crash half-way. */
export function parseOpenBatch(open: OpenBatch): SchedulerOpenBatch {
  const bad = (why: string) => new AgentError('input', `the saved tool batch cannot be resumed: ${why}`);
  if (!isRecord(open) || open.version !== 1)
    throw bad(`unknown version ${isRecord(open) ? String(open.version) : '?'}`);
  if (!Array.isArray(open.calls) || open.calls.length === 0) throw bad('it holds no calls');
  const ids = new Set<string>();
  const calls = open.calls.map((raw, i): Call => {
    if (!isRecord(raw) || typeof raw.status !== 'string' || !(raw.status in NEXT))
      throw bad(`call ${i} has no known status`);
    const base = raw.base;
    if (
      !isRecord(base) ||
      typeof base.id !== 'string' ||
      typeof base.name !== 'string' ||
      !isRecord(base.args) ||
      typeof base.order !== 'number'
    ) {
      throw bad(`call ${i} has no id, name, args and order`);
    }
    if (!SAVED_STATUSES.includes(raw.status as CallStatus)) throw bad(`call ${base.id} was saved while ${raw.status}`);
    if (raw.status === 'awaiting_approval' && !isRecord(raw.pending))
      throw bad(`call ${base.id} waits but has no request`);
    if (raw.nested !== undefined) assertNested(raw.nested, base.id, bad);
    if (ids.has(base.id)) throw bad(`two calls share the id ${base.id}`);
    ids.add(base.id);
    return raw as unknown as Call;
  });
  if (!calls.some((c) => c.status === 'awaiting_approval')) throw bad('no call waits for an answer');
  const s = (open as { validationStreak?: unknown }).validationStreak;
  const streak =
    isRecord(s) && typeof s.key === 'string' && typeof s.count === 'number'
      ? { key: s.key, count: s.count }
      : emptyStreak();
  return { version: 1, calls: structuredClone(calls), validationStreak: streak };
}

function assertNested(nested: unknown, id: string, bad: (why: string) => AgentError): void {
  if (!isRecord(nested) || !Array.isArray(nested.pending) || nested.pending.length === 0)
    throw bad(`call ${id} waits inside but lists nothing that waits`);
  for (const p of nested.pending) {
    if (!isRecord(p) || typeof p.id !== 'string' || !p.id.startsWith(`${id}/`))
      throw bad(`call ${id} holds a waiting call that is not its own`);
  }
  if (nested.saved === undefined) throw bad(`call ${id} waits inside but saved nothing to go on from`);
}

/** The id a call waiting inside call `outer` has in this batch (and in the approval comment). */
export const nestedId = (outer: string, inner: string): string => `${outer}/${inner}`;

/** The answers meant for calls waiting inside call `outer`, with their own ids back. */
export const answersInside = (outer: string, answers: readonly ApprovalAnswer[]): ApprovalAnswer[] =>
  answers.flatMap((a) => (a.id.startsWith(`${outer}/`) ? [{ ...a, id: a.id.slice(outer.length + 1) }] : []));

/** The calls that wait, as the approval comment shows them: a call waiting inside another shows what waits in it. */
export const pendingOf = (calls: readonly Call[]): PendingApproval[] =>
  calls.flatMap((c) => (c.status === 'awaiting_approval' ? (c.nested ? c.nested.pending : [c.pending]) : []));

/**
 * One answer per waiting call, of a kind that fits it: approve/deny for a call, answer/deny for a
 * question. Everything is checked before anything runs, so a bad reply changes nothing.
 */
export function assertAnswersFit(
  pending: readonly PendingApproval[],
  answers: readonly ApprovalAnswer[],
): Map<string, ApprovalAnswer> {
  const byId = new Map<string, ApprovalAnswer>();
  const waiting = new Map(pending.map((p) => [p.id, p]));
  for (const a of answers) {
    if (!waiting.has(a.id))
      throw new AgentError('input', `no call ${a.id} waits for an answer (waiting: ${[...waiting.keys()].join(', ')})`);
    if (byId.has(a.id)) throw new AgentError('input', `call ${a.id} was answered twice`);
    byId.set(a.id, a);
  }
  for (const p of pending) {
    const a = byId.get(p.id);
    if (!a) throw new AgentError('input', `call ${p.id} (${p.title}) has no answer; every waiting call needs one`);
    if (p.question && a.kind === 'approve') {
      throw new AgentError(
        'input',
        `call ${p.id} asks a question ("${p.question.question}"): answer it with text, or deny it`,
      );
    }
    if (!p.question && a.kind === 'answer') {
      throw new AgentError('input', `call ${p.id} (${p.title}) asks for approval, not an answer: approve or deny it`);
    }
  }
  return byId;
}
