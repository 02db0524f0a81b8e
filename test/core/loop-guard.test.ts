import { describe, expect, it } from 'vitest';
import { callKey, recordCalls, recordTurn } from '../../src/core/loop-guard.js';
import { createRunState, type RunState } from '../../src/core/run-state.js';
import type { FunctionCall } from '../../src/model/wire.js';

// The guard stops a run at 5 identical calls in a row (name and arguments). Expected counts are
// literals: a changed threshold must show up here as a failing test, not move the expectation.

const A: FunctionCall = { name: 'read_file', args: { file_path: 'a.ts' } };
const B: FunctionCall = { name: 'read_file', args: { file_path: 'b.ts' } };
const stopMessage =
  'loop detected: the model called read_file with the same arguments 5 times in a row, so the run stopped';

const fresh = (): RunState => createRunState('sess-1', 'gemini-2.5-flash', 'default');

/** Feeds calls one batch each; returns the 1-based position of the call that stopped the run, or 0. */
function stopsAt(calls: FunctionCall[], state = fresh()): number {
  for (const [i, call] of calls.entries()) {
    if (recordCalls(state, [call]) !== undefined) return i + 1;
  }
  return 0;
}

const times = (n: number, call: FunctionCall) => Array.from({ length: n }, () => call);

describe('recordCalls: the loop guard', () => {
  it('lets four identical calls in a row run on', () => {
    expect(stopsAt(times(4, A))).toBe(0);
  });

  it('stops at the fifth identical call in a row, with a message naming the tool and the count', () => {
    const state = fresh();
    for (let i = 0; i < 4; i++) expect(recordCalls(state, [A])).toBeUndefined();
    expect(recordCalls(state, [A])).toBe(stopMessage);
  });

  it('stops within one batch of five identical calls, at the fifth', () => {
    const state = fresh();
    expect(recordCalls(state, times(5, A))).toBe(stopMessage);
    expect(recordCalls(fresh(), times(4, A))).toBeUndefined();
  });

  it('keeps counting across batches (and so across suspend and resume, where the window is saved)', () => {
    const state = fresh();
    expect(recordCalls(state, [A, A])).toBeUndefined();
    const saved = JSON.parse(JSON.stringify(state)) as RunState;
    expect(recordCalls(saved, [A, A])).toBeUndefined();
    expect(recordCalls(saved, [A])).toBe(stopMessage);
  });

  it.each([
    ['A,B,A,B,A', [A, B, A, B, A]],
    ['A,B,A,B,A,B,A,B,A,B', [A, B, A, B, A, B, A, B, A, B]],
    ['A,A,A,A,B,A,A,A,A', [A, A, A, A, B, A, A, A, A]],
    ['B then four A', [B, A, A, A, A]],
    ['four A then B', [A, A, A, A, B]],
  ])('does not trip on %s', (_name, calls) => {
    expect(stopsAt(calls)).toBe(0);
  });

  it('trips on the fifth A after other calls, not on any repeat of the first call', () => {
    expect(stopsAt([B, A, A, A, A, A])).toBe(6);
    expect(stopsAt([A, B, B, B, B, B])).toBe(6);
    expect(stopsAt([A, A, A, A, B, A, A, A, A, A])).toBe(10);
  });

  it('keeps a window of the last five calls only', () => {
    const state = fresh();
    stopsAt([B, B, A, B, A, B, A], state);
    expect(state.recentCalls).toEqual([callKey(A), callKey(B), callKey(A), callKey(B), callKey(A)]);
  });

  it('trims a longer saved window (a session from an older version) and still judges the last five', () => {
    const state = fresh();
    state.recentCalls = [callKey(B), callKey(B), callKey(B), callKey(A), callKey(A), callKey(A), callKey(A)];
    expect(recordCalls(state, [A])).toBe(stopMessage);
    expect(state.recentCalls).toHaveLength(5);
  });

  it('tells apart calls that differ only in arguments or only in name', () => {
    const other = { name: 'glob', args: { file_path: 'a.ts' } };
    expect(stopsAt([A, A, A, A, other])).toBe(0);
    expect(stopsAt([A, A, A, A, { name: 'read_file', args: { file_path: 'a.ts', limit: 10 } }])).toBe(0);
  });
});

describe('callKey', () => {
  // Keys are saved with the session (RunState.recentCalls), so their form is part of the format.
  it('is the name and the arguments as JSON with sorted keys', () => {
    expect(callKey({ name: 'grep_search', args: { pattern: 'x', dir: 'a' } })).toBe(
      'grep_search {"dir":"a","pattern":"x"}',
    );
    expect(callKey({ name: 'grep_search', args: { dir: 'a', pattern: 'x' } })).toBe(
      'grep_search {"dir":"a","pattern":"x"}',
    );
  });

  it('treats missing arguments as empty ones', () => {
    expect(callKey({ name: 'list_directory' })).toBe('list_directory {}');
    expect(callKey({ name: 'list_directory', args: {} })).toBe('list_directory {}');
  });
});

describe('recordTurn: no progress', () => {
  // A turn makes progress when it brings a call (name and arguments) or a text not seen before in
  // the session. 8 turns in a row without progress stop the run.
  const turn = (text: string, ...calls: FunctionCall[]) => ({ text, calls });
  /** Feeds turns; the 1-based position of the one that stopped the run, or 0. */
  function stopsAtTurn(turns: Array<{ text: string; calls: FunctionCall[] }>, state = fresh()): number {
    for (const [i, t] of turns.entries()) if (recordTurn(state, t) !== undefined) return i + 1;
    return 0;
  }
  const repeat = (n: number, t: { text: string; calls: FunctionCall[] }) => Array.from({ length: n }, () => t);

  it('lets 7 turns without anything new run on, and stops at the 8th, naming the repeated text', () => {
    const state = fresh();
    expect(recordTurn(state, turn('Checking.', A))).toBeUndefined(); // new: progress
    for (let i = 0; i < 7; i++) expect(recordTurn(state, turn('Checking.', A))).toBeUndefined();
    expect(recordTurn(state, turn('Checking.', A))).toBe(
      'loop detected: 8 turns in a row brought no new tool call and no new text (the last one repeated "Checking."), so the run stopped',
    );
  });

  it('names the calls when the repeated turn had no text', () => {
    const state = fresh();
    stopsAtTurn(repeat(8, turn('', A, B)), state);
    expect(recordTurn(state, turn('', A, B))).toBe(
      'loop detected: 8 turns in a row brought no new tool call and no new text (the last one repeated read_file, read_file), so the run stopped',
    );
  });

  it('cuts a long repeated text to 80 characters', () => {
    const long = 'x'.repeat(100);
    const state = fresh();
    stopsAtTurn(repeat(8, turn(long)), state);
    expect(recordTurn(state, turn(long))).toContain(`"${'x'.repeat(79)}…"`);
    const exact = 'y'.repeat(80);
    const s2 = fresh();
    stopsAtTurn(repeat(8, turn(exact)), s2);
    expect(recordTurn(s2, turn(exact))).toContain(`"${exact}"`);
  });

  it('a new call, or a new text, is progress and restarts the count', () => {
    expect(stopsAtTurn([turn('t', A), ...repeat(7, turn('t', A)), turn('t', A, B), ...repeat(7, turn('t', A))])).toBe(
      0,
    );
    expect(
      stopsAtTurn([turn('t', A), ...repeat(7, turn('t', A)), turn('new words', A), ...repeat(7, turn('t', A))]),
    ).toBe(0);
    expect(stopsAtTurn([turn('t', A), ...repeat(7, turn('t', A)), turn('t', A, B), ...repeat(8, turn('t', A))])).toBe(
      17,
    );
  });

  it('counts alternating calls as no progress once both were seen', () => {
    const cycle = Array.from({ length: 12 }, (_, i) => turn('same', i % 2 ? B : A));
    expect(stopsAtTurn(cycle)).toBe(10);
  });

  it('compares texts by their words: spacing and line breaks do not make a text new', () => {
    expect(
      stopsAtTurn([
        turn('Check  it.'),
        ...Array.from({ length: 8 }, (_, i) => turn(i % 2 ? ' Check it. ' : 'Check\nit.')),
      ]),
    ).toBe(9);
  });

  it('a text-only turn with nothing new counts, and an empty text never counts as new', () => {
    expect(stopsAtTurn([turn('done?'), ...repeat(8, turn('done?'))])).toBe(9);
    expect(stopsAtTurn([turn('', A), ...repeat(8, turn('   ', A))])).toBe(9);
  });

  it('remembers across suspend and resume (the seen list is saved), and keeps at most 512 entries', () => {
    const state = fresh();
    recordTurn(state, turn('t', A));
    for (let i = 0; i < 4; i++) recordTurn(state, turn('t', A));
    const saved = JSON.parse(JSON.stringify(state)) as RunState;
    expect(stopsAtTurn(repeat(4, turn('t', A)), saved)).toBe(4);
    const big = fresh();
    for (let i = 0; i < 600; i++) recordTurn(big, turn('', { name: 'read_file', args: { file_path: `f${i}` } }));
    expect(big.progress?.seen).toHaveLength(512);
    // The oldest were dropped: seeing the first call again is progress, the newest is not.
    recordTurn(big, turn('', { name: 'read_file', args: { file_path: 'f0' } }));
    expect(big.progress?.idleTurns).toBe(0);
    recordTurn(big, turn('', { name: 'read_file', args: { file_path: 'f599' } }));
    expect(big.progress?.idleTurns).toBe(1);
  });

  it('counts a call repeated within one turn once, and starts a session saved without the field', () => {
    const state = fresh();
    delete state.progress;
    recordTurn(state, turn('', A, A));
    expect(state.progress).toEqual({ seen: [expect.stringMatching(/^[0-9a-f]{16}$/)], idleTurns: 0 });
  });
});
