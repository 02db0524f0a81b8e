import { describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import {
  createAllowChannel,
  createDeferChannel,
  createDenyChannel,
  NOBODY_TO_ANSWER,
  NOBODY_TO_ASK,
} from '../../src/scheduler/channels.js';
import { parseOpenBatch, toOpenBatch } from '../../src/scheduler/open-batch.js';
import type { Call } from '../../src/scheduler/call-state.js';
import type { OpenBatch, PendingApproval } from '../../src/scheduler/types.js';

const base = (id: string, order: number) => ({ id, name: 'note_write', args: { path: 'a.txt', content: 'x' }, order });
const pending = (id: string): PendingApproval => ({
  id,
  name: 'note_write',
  args: {},
  title: 'overwrite a.txt',
  rule: null,
});
const waiting: Call = {
  status: 'awaiting_approval',
  base: base('w1', 1),
  title: 'overwrite a.txt',
  pending: pending('w1'),
};
const done: Call = { status: 'succeeded', base: base('r1', 0), output: 'alpha', ms: 3 };

describe('parseOpenBatch', () => {
  it('round-trips what toOpenBatch saved, streak included', () => {
    const open = toOpenBatch([done, waiting], { key: 'k', count: 2 });
    expect(parseOpenBatch(JSON.parse(JSON.stringify(open)))).toEqual({
      version: 1,
      calls: [done, waiting],
      validationStreak: { key: 'k', count: 2 },
    });
  });

  it('defaults a missing streak (a batch saved before streaks were kept)', () => {
    expect(parseOpenBatch({ version: 1, calls: [waiting] }).validationStreak).toEqual({ key: '', count: 0 });
  });

  it.each<[string, unknown, RegExp]>([
    ['an unknown version', { version: 2, calls: [waiting] }, /unknown version 2/],
    ['no calls', { version: 1, calls: [] }, /holds no calls/],
    ['an unknown status', { version: 1, calls: [{ ...waiting, status: 'sleeping' }] }, /no known status/],
    [
      'a call without args',
      { version: 1, calls: [{ ...waiting, base: { id: 'w1', name: 'x', order: 0 } }] },
      /no id, name, args and order/,
    ],
    [
      'a call saved mid-flight',
      { version: 1, calls: [{ status: 'executing', base: base('e1', 0), title: 't', startedAt: 1 }, waiting] },
      /saved while executing/,
    ],
    [
      'a waiting call without its request',
      { version: 1, calls: [{ ...waiting, pending: undefined }] },
      /has no request/,
    ],
    ['duplicate ids', { version: 1, calls: [waiting, waiting] }, /share the id w1/],
    ['nothing waiting', { version: 1, calls: [done] }, /no call waits/],
    ['not an object', null, /unknown version/],
  ])('rejects %s as bad input', (_, open, message) => {
    let thrown: unknown;
    try {
      parseOpenBatch(open as OpenBatch);
    } catch (e) {
      thrown = e;
    }
    expect(isAgentError(thrown) && thrown.kind).toBe('input');
    expect(String((thrown as Error).message)).toMatch(message);
  });
});

describe('channels', () => {
  const question: PendingApproval = { ...pending('q1'), name: 'ask_user', question: { question: 'Which port?' } };
  it.each([
    ['deny', createDenyChannel(), pending('c1'), { id: 'c1', kind: 'deny', reason: NOBODY_TO_ASK }],
    ['deny, a question', createDenyChannel(), question, { id: 'q1', kind: 'deny', reason: NOBODY_TO_ANSWER }],
    ['allow', createAllowChannel(), pending('c1'), { id: 'c1', kind: 'approve' }],
    [
      'allow, a question (nobody can answer it)',
      createAllowChannel(),
      question,
      { id: 'q1', kind: 'deny', reason: NOBODY_TO_ANSWER },
    ],
    ['defer', createDeferChannel(), pending('c1'), 'defer'],
  ] as const)('%s', async (_, channel, p, expected) => {
    expect(await channel.decide(p)).toEqual(expected);
  });
});
