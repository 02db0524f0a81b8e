import { describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import {
  canMove,
  isSettled,
  move,
  NEXT,
  receiveCall,
  SETTLED_STATUSES,
  type Call,
  type CallBase,
  type CallStatus,
} from '../../src/scheduler/call-state.js';

const base: CallBase = { id: 'c1', name: 'note_read', args: { path: 'a.txt' }, order: 0 };

/** One sample value per status, so every pair of states can be tried. */
const SAMPLE: { [S in CallStatus]: Extract<Call, { status: S }> } = {
  received: { status: 'received', base },
  validating: { status: 'validating', base },
  prepared: { status: 'prepared', base, title: 'read a.txt', paths: ['a.txt'], kind: 'read' },
  awaiting_approval: {
    status: 'awaiting_approval',
    base,
    title: 'read a.txt',
    pending: { id: 'c1', name: 'note_read', args: base.args, title: 'read a.txt', rule: null },
  },
  scheduled: { status: 'scheduled', base, title: 'read a.txt', allowedBy: { by: 'policy', rule: null } },
  executing: { status: 'executing', base, title: 'read a.txt', startedAt: 1 },
  succeeded: { status: 'succeeded', base, output: 'hello', ms: 2 },
  failed: { status: 'failed', base, error: { code: 'failed', message: 'no' } },
  denied: { status: 'denied', base, rule: null, reason: 'no rule' },
  cancelled: { status: 'cancelled', base, reason: 'stopped' },
};

/** Every status, written out: a new status must be added here (and its moves below) on purpose. */
const STATUSES: CallStatus[] = [
  'received',
  'validating',
  'prepared',
  'awaiting_approval',
  'scheduled',
  'executing',
  'succeeded',
  'failed',
  'denied',
  'cancelled',
];
const TERMINAL: CallStatus[] = ['succeeded', 'failed', 'denied', 'cancelled'];

/** The legal moves, written by hand from the lifecycle (not read from the table under test). */
const LEGAL: ReadonlyArray<readonly [CallStatus, CallStatus]> = [
  ['received', 'validating'], // every call is checked first
  ['received', 'denied'], // a turn cut off at MAX_TOKENS: its calls are refused unchecked
  ['received', 'cancelled'], // the run was cancelled before the call was looked at
  ['validating', 'prepared'],
  ['validating', 'failed'], // invalid arguments, a path outside the workspace
  ['validating', 'cancelled'],
  ['prepared', 'scheduled'], // policy: allow
  ['prepared', 'awaiting_approval'], // policy: ask_user
  ['prepared', 'denied'], // policy: deny
  ['prepared', 'cancelled'],
  ['awaiting_approval', 'scheduled'], // approved (in a new process)
  ['awaiting_approval', 'denied'], // a human said no
  ['awaiting_approval', 'succeeded'], // a question: the human's answer is the result
  ['awaiting_approval', 'failed'], // on resume the call could not be prepared again
  ['awaiting_approval', 'cancelled'],
  ['scheduled', 'executing'],
  ['scheduled', 'cancelled'],
  ['executing', 'succeeded'],
  ['executing', 'failed'],
  ['executing', 'cancelled'],
  ['executing', 'awaiting_approval'], // a sub-agent's own call needs a human: the run suspends inside it
];
const isLegal = (from: CallStatus, to: CallStatus) => LEGAL.some(([f, t]) => f === from && t === to);
const allPairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));
const legal = allPairs.filter(([from, to]) => isLegal(from, to));
const illegal = allPairs.filter(([from, to]) => !isLegal(from, to));

describe('call state transitions', () => {
  it('has exactly the statuses of the lifecycle', () => {
    expect(Object.keys(NEXT).sort()).toEqual([...STATUSES].sort());
    expect(legal).toHaveLength(21);
    expect(illegal).toHaveLength(79);
  });

  it.each(legal)('%s -> %s is allowed', (from, to) => {
    expect(move(SAMPLE[from], SAMPLE[to])).toBe(SAMPLE[to]);
    expect(canMove(from, to)).toBe(true);
  });

  it.each(illegal)('%s -> %s throws an internal error', (from, to) => {
    expect(canMove(from, to)).toBe(false);
    let thrown: unknown;
    try {
      move(SAMPLE[from], SAMPLE[to]);
    } catch (e) {
      thrown = e;
    }
    expect(isAgentError(thrown) && thrown.kind).toBe('internal');
    expect(String((thrown as Error).message)).toBe(`call c1 (note_read): ${from} -> ${to} is not a transition`);
  });

  it('refuses to turn one call into another', () => {
    const other = { ...SAMPLE.validating, base: { ...base, id: 'c2' } };
    expect(() => move(SAMPLE.received, other)).toThrow(/cannot become call c2/);
  });

  it.each(STATUSES)('a %s call is settled exactly when it is terminal', (s) => {
    expect(isSettled(SAMPLE[s])).toBe(TERMINAL.includes(s));
  });

  it('lists the terminal statuses as settled', () => {
    expect([...SETTLED_STATUSES].sort()).toEqual([...TERMINAL].sort());
  });

  it('every state is plain JSON (a suspended batch is saved as it is)', () => {
    for (const s of STATUSES) expect(JSON.parse(JSON.stringify(SAMPLE[s]))).toEqual(SAMPLE[s]);
  });

  it('keeps the model id verbatim and synthesizes one when it is missing', () => {
    expect(receiveCall({ id: 'abc', name: 'x', args: { a: 1 } }, 3).base).toEqual({
      id: 'abc',
      wireId: 'abc',
      name: 'x',
      args: { a: 1 },
      order: 3,
    });
    expect(receiveCall({ name: 'x' }, 2).base).toEqual({ id: 'call-2-x', name: 'x', args: {}, order: 2 });
  });
});
