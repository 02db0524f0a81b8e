import { describe, expect, it } from 'vitest';
import {
  buildResponses,
  cutText,
  emptyStreak,
  fitToBudget,
  groupCalls,
  nextStreak,
  responseTextOf,
  toolErrorOf,
} from '../../src/scheduler/batch.js';
import type { Call } from '../../src/scheduler/call-state.js';
import { ToolFailure, type ToolKind } from '../../src/tools/define-tool.js';

describe('groupCalls (Gemini CLI: edits and wait_for_previous calls run alone)', () => {
  const c = (kind: ToolKind | undefined, waitForPrevious?: boolean) => ({
    kind,
    ...(waitForPrevious === undefined ? {} : { waitForPrevious }),
  });
  it.each<[string, ReturnType<typeof c>[], number[][]]>([
    [
      'calls without the flag run together, whatever their kind',
      [c('read'), c('execute'), c('other'), c('search')],
      [[0, 1, 2, 3]],
    ],
    ['wait_for_previous: false is the same as leaving it out', [c('read'), c('execute', false)], [[0, 1]]],
    [
      'a call with wait_for_previous: true runs alone, after all before it',
      [c('read'), c('read'), c('execute', true), c('read')],
      [[0, 1], [2], [3]],
    ],
    ['the flag on the first call changes nothing before it', [c('read', true), c('read')], [[0], [1]]],
    ['edits run alone and in order, even without the flag', [c('edit'), c('edit', false)], [[0], [1]]],
    ['an edit splits a run of reads', [c('read'), c('search'), c('edit'), c('read')], [[0, 1], [2], [3]]],
    [
      'unknown tools may run beside others (they fail before running)',
      [c('read'), c(undefined), c('read')],
      [[0, 1, 2]],
    ],
    ['empty', [], []],
  ])('%s', (_, placements, groups) => {
    expect(groupCalls(placements)).toEqual(groups);
  });
});

describe('fitToBudget', () => {
  it.each<[string, number[], number, (number | undefined)[]]>([
    ['under budget: nothing cut', [10, 20], 100, [undefined, undefined]],
    ['exactly at budget: nothing cut', [50, 50], 100, [undefined, undefined]],
    ['only the largest is cut', [10, 5000, 30], 1000, [undefined, 960, undefined]],
    ['the two largest share one cap', [10, 5000, 3000], 2010, [undefined, 1000, 1000]],
    ['a mid-sized output stays whole when the cap is above it', [400, 5000, 3000], 4400, [undefined, 2000, 2000]],
    ['all cut evenly when all are large', [900, 900, 900], 300, [100, 100, 100]],
    ['a zero budget cuts everything to nothing', [5, 5], 0, [0, 0]],
  ])('%s', (_, lengths, budget, caps) => {
    const got = fitToBudget(lengths, budget);
    expect(got).toEqual(caps);
    const total = lengths.reduce((sum, len, i) => sum + (got[i] ?? len), 0);
    expect(total).toBeLessThanOrEqual(Math.max(budget, 0));
  });

  it('says what was cut, so the model can ask for less', () => {
    const text = cutText('x'.repeat(500), 100, 300);
    expect(text.startsWith('x'.repeat(100) + '\n[output cut')).toBe(true);
    expect(text).toContain('first 100 of 500 characters');
    expect(text).toContain('300 characters');
  });
});

describe('responses', () => {
  const base = (order: number, id?: string) => ({
    id: id ?? `call-${order}`,
    ...(id ? { wireId: id } : {}),
    name: 'note_read',
    args: {},
    order,
  });
  it('are in the model order, output or error, never empty, echoing the model id', () => {
    const calls: Call[] = [
      { status: 'denied', base: base(2, 'z'), rule: null, reason: 'no rule matched' },
      { status: 'succeeded', base: base(0, 'x'), output: '', ms: 1 },
      { status: 'failed', base: base(1), error: { code: 'invalid_args', message: 'missing path' } },
      { status: 'cancelled', base: base(3, 'w'), reason: 'the run was cancelled' },
    ];
    expect(buildResponses(calls, 1000)).toEqual([
      { functionResponse: { id: 'x', name: 'note_read', response: { output: '(the tool returned no output)' } } },
      { functionResponse: { name: 'note_read', response: { error: 'missing path' } } },
      { functionResponse: { id: 'z', name: 'note_read', response: { error: 'no rule matched' } } },
      {
        functionResponse: {
          id: 'w',
          name: 'note_read',
          response: { error: 'note_read was cancelled: the run was cancelled' },
        },
      },
    ]);
  });

  it('a failure with no message still says something', () => {
    expect(responseTextOf({ status: 'failed', base: base(0), error: { code: 'timeout', message: '' } }).text).toBe(
      'note_read failed (timeout)',
    );
  });
});

describe('toolErrorOf', () => {
  it.each<[string, unknown, { code: string; message: string }]>([
    [
      'a ToolFailure keeps its code',
      new ToolFailure('outside_workspace', '../x is outside'),
      { code: 'outside_workspace', message: '../x is outside' },
    ],
    ['any other error is failed', new TypeError('boom'), { code: 'failed', message: 'boom' }],
    ['a thrown string', 'bad', { code: 'failed', message: 'bad' }],
  ])('%s', (_, thrown, expected) => {
    expect(toolErrorOf(thrown)).toEqual(expected);
  });
});

describe('nextStreak', () => {
  it('counts the same tool and message in a row, and resets on anything else', () => {
    const f = { name: 'note_read', message: 'missing path' };
    let s = emptyStreak();
    s = nextStreak(s, f);
    s = nextStreak(s, f);
    expect(s.count).toBe(2);
    expect(nextStreak(s, f).count).toBe(3);
    expect(nextStreak(s, { ...f, message: 'other' }).count).toBe(1);
    expect(nextStreak(s, { ...f, name: 'note_write' }).count).toBe(1);
    expect(nextStreak(s, undefined)).toEqual(emptyStreak());
  });
});
