/**
 * The loop's two new guards, through the real SDK and the fake Gemini: the same text chanted 10
 * times stops the run mid-stream; 8 turns in a row without a new call or new text stop it too.
 * Each threshold is shown at threshold-1 (runs on) and at the threshold (stops); numbers are literals.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runLoop } from '../../src/core/loop.js';
import { call, reply, startFakeGemini, text, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { fakeScheduler, makeDeps, newState, recorder, userText } from './helpers.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function run(script: FakeReply[]) {
  fake = await startFakeGemini(script);
  const sched = fakeScheduler();
  const rec = recorder();
  const state = newState();
  const outcome = await runLoop({ state, input: userText('go') }, makeDeps(fake, sched.scheduler), rec.emit);
  return { fake, state, rec, outcome, sched };
}

// 59 characters: one 50-character window per repetition comes back once per repetition.
const CHANT = 'I will check the configuration file again before going on. ';

describe('content loop: the same text over and over', () => {
  it('9 repetitions in a reply run on', async () => {
    const r = await run([reply(Array.from({ length: 9 }, () => text(CHANT)))]);
    expect(r.outcome).toEqual({ status: 'success', finalText: CHANT.repeat(9) });
  });

  it('the 10th repetition stops the run mid-stream, naming the repeated text', async () => {
    const r = await run([reply(Array.from({ length: 14 }, () => text(CHANT)))]);
    expect(r.outcome).toEqual({
      status: 'limit',
      which: 'loop',
      message:
        'loop detected: the model wrote the same text 10 times ("I will check the configuration file again before g…"), so the run stopped',
    });
    // The stream was left at the 10th piece: the rest never reached the history or the stream.
    expect(r.state.history.at(-1)).toEqual({ role: 'model', parts: [{ text: CHANT.repeat(10) }] });
    expect(r.rec.of('message').filter((m) => m.role === 'assistant')).toHaveLength(10);
  });

  it('counts across text-only turns of one run, and forgets at a tool call', async () => {
    // 5 + 4 repetitions with a tool call between: never 10 in a row.
    const r = await run([
      reply(Array.from({ length: 5 }, () => text(CHANT))),
      reply([call('read_file', { file_path: 'a.ts' })]),
      reply(Array.from({ length: 9 }, () => text(CHANT))),
    ]);
    expect(r.outcome.status).toBe('success');
  });

  it('a numbered list that repeats its lines is not a loop', async () => {
    const r = await run([reply(Array.from({ length: 12 }, (_, i) => text(`${i + 1}. ${CHANT}\n`)))]);
    expect(r.outcome.status).toBe('success');
  });
});

describe('no progress: turns that bring no new call and no new text', () => {
  // Two calls in turn (never 5 identical in a row, so the identical-call guard stays quiet) with
  // the same text: from the third turn on, each turn repeats what was seen.
  const cycle = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      reply([text('Checking again.'), call('read_file', { file_path: i % 2 ? 'b.ts' : 'a.ts' })]),
    );

  it('7 such turns in a row run on', async () => {
    const r = await run([...cycle(9), reply([text('Found it: b.ts has the bug.')])]);
    expect(r.outcome).toEqual({ status: 'success', finalText: 'Found it: b.ts has the bug.' });
    expect(r.state.progress?.idleTurns).toBe(0);
  });

  it('the 8th stops the run, naming what was repeated', async () => {
    const r = await run([...cycle(10), reply([text('never asked')])]);
    expect(r.outcome).toEqual({
      status: 'limit',
      which: 'loop',
      message:
        'loop detected: 8 turns in a row brought no new tool call and no new text (the last one repeated "Checking again."), so the run stopped',
    });
    expect(r.fake.requests).toHaveLength(10);
    expect(r.sched.runs).toHaveLength(9); // the 10th turn's call never ran
  });
});
