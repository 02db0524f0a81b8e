import { describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { canMove, isSettled, move, NEXT, receiveCall, SETTLED_STATUSES, type Call, type CallBase, type CallStatus } from '../../src/scheduler/call-state.js';

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

const statuses = Object.keys(NEXT) as CallStatus[];
const legal = statuses.flatMap((from) => NEXT[from].map((to) => [from, to] as const));
const illegal = statuses.flatMap((from) => statuses.filter((to) => !NEXT[from].includes(to)).map((to) => [from, to] as const));

describe('call state transitions', () => {
  it('covers the lifecycle of the brief', () => {
    expect(legal).toEqual(
      expect.arrayContaining([
        ['received', 'validating'],
        ['validating', 'prepared'],
        ['prepared', 'awaiting_approval'],
        ['prepared', 'scheduled'],
        ['prepared', 'denied'],
        ['awaiting_approval', 'scheduled'],
        ['scheduled', 'executing'],
        ['executing', 'succeeded'],
        ['executing', 'failed'],
        ['executing', 'cancelled'],
      ]),
    );
    expect(legal.length + illegal.length).toBe(statuses.length ** 2);
  });

  it.each(legal)('%s -> %s is allowed', (from, to) => {
    expect(move(SAMPLE[from], SAMPLE[to])).toBe(SAMPLE[to]);
    expect(canMove(from, to)).toBe(true);
  });

  it.each(illegal)('%s -> %s throws an internal error', (from, to) => {
    let thrown: unknown;
    try {
      move(SAMPLE[from], SAMPLE[to]);
    } catch (e) {
      thrown = e;
    }
    expect(isAgentError(thrown) && thrown.kind).toBe('internal');
    expect(String((thrown as Error).message)).toContain(`${from} -> ${to}`);
  });

  it('refuses to turn one call into another', () => {
    const other = { ...SAMPLE.validating, base: { ...base, id: 'c2' } };
    expect(() => move(SAMPLE.received, other)).toThrow(/cannot become call c2/);
  });

  it.each(statuses)('a %s call is settled exactly when it is terminal', (s) => {
    expect(isSettled(SAMPLE[s])).toBe(SETTLED_STATUSES.includes(s));
  });

  it('terminal states never change again', () => {
    for (const s of SETTLED_STATUSES) expect(NEXT[s]).toEqual([]);
  });

  it('every state is plain JSON (a suspended batch is saved as it is)', () => {
    for (const s of statuses) expect(JSON.parse(JSON.stringify(SAMPLE[s]))).toEqual(SAMPLE[s]);
  });

  it('keeps the model id verbatim and synthesizes one when it is missing', () => {
    expect(receiveCall({ id: 'abc', name: 'x', args: { a: 1 } }, 3).base).toEqual({ id: 'abc', wireId: 'abc', name: 'x', args: { a: 1 }, order: 3 });
    expect(receiveCall({ name: 'x' }, 2).base).toEqual({ id: 'call-2-x', name: 'x', args: {}, order: 2 });
  });
});
