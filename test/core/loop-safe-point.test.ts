/**
 * The safe point's save (onBatchSettled) overlaps the next model request when the caller asks
 * (overlapBatchSave: the CLI), but never the next batch's tools nor the outcome; otherwise (the
 * action's checkpoint) it is done before the next request. A scripted in-process model (our ModelClient interface) keeps every
 * step in microtasks, so "before the next macrotask" is a fixed point in the event loop, not a guess
 * about time.
 */
import { describe, expect, it } from 'vitest';
import { runLoop } from '../../src/core/loop.js';
import type { ModelChunk, ModelClient } from '../../src/model/client.js';
import { fakeScheduler, makeDeps, newState, recorder, userText } from './helpers.js';
import type { FakeGemini } from '../support/fake-gemini.js';

const call = (name: string, id: string): ModelChunk => ({ parts: [{ functionCall: { id, name, args: { file_path: `${id}.ts` } } }], finishReason: 'STOP' });
const done: ModelChunk = { parts: [{ text: 'done' }], finishReason: 'STOP' };
const nextMacrotask = () => new Promise<void>((r) => setImmediate(r));

/** Replies in order; `after(n)` runs once the loop has read all of reply n (1-based). */
function scriptedModel(replies: ModelChunk[], after: (n: number) => void = () => {}): ModelClient & { requests: number } {
  const m = {
    requests: 0,
    async *stream() {
      const n = ++m.requests;
      const r = replies[n - 1];
      if (!r) throw new Error('script exhausted');
      yield r;
      after(n);
    },
  };
  return m;
}

/** `run`'s value, and the rejections nobody handled up to the macrotask after it. */
async function withUnhandled<T>(run: () => Promise<T>): Promise<{ value: T; unhandled: unknown[] }> {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    const value = await run();
    await nextMacrotask();
    return { value, unhandled };
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
}

// makeDeps wants a fake server only for its model, which these tests replace.
const noServer = { baseUrl: 'http://127.0.0.1:9' } as FakeGemini;

describe('runLoop: the safe point save', () => {
  it('asks the model again while a batch is being saved, and runs the next batch only once it is saved', async () => {
    let saveOneDone = false;
    let requestsWhileSavingOne = 0;
    const savedTurns: number[] = [];
    const model = scriptedModel([call('read_file', 'a'), call('read_file', 'b'), done], (n) => {
      if (n === 2 && !saveOneDone) requestsWhileSavingOne++;
      // Reply 2 is read: let the first save finish on the next macrotask. A loop that ran batch 2's
      // tools without waiting for it would do so in the microtasks before that.
      if (n === 2) void nextMacrotask().then(() => finishSaveOne());
    });
    let finishSaveOne = () => {};
    const savedAtRun: boolean[] = [];
    const sched = fakeScheduler({ onRun: () => savedAtRun.push(saveOneDone) });
    const rec = recorder();
    const outcome = await runLoop(
      { state: newState(), input: userText('read a and b') },
      makeDeps(noServer, sched.scheduler, {
        overlapBatchSave: true,
        model,
        onBatchSettled: (state) => {
          savedTurns.push(state.history.length);
          if (savedTurns.length > 1) return Promise.resolve();
          return new Promise<void>((resolve) => {
            finishSaveOne = () => {
              saveOneDone = true;
              resolve();
            };
            // A loop that waits for the save before asking again never sends request 2: let it go on.
            void nextMacrotask().then(() => model.requests < 2 && finishSaveOne());
          });
        },
      }),
      rec.emit,
    );
    expect(outcome).toEqual({ status: 'success', finalText: 'done' });
    expect(requestsWhileSavingOne).toBe(1);
    expect(savedAtRun).toEqual([false, true]);
    // Each save saw its safe point: the prompt, the call, its response (3), then two more (5).
    expect(savedTurns).toEqual([3, 5]);
  });

  it('ends the run with a save that failed while the model answered, before the next batch runs', async () => {
    const sched = fakeScheduler();
    const rec = recorder();
    const { value: outcome, unhandled } = await withUnhandled(() =>
      runLoop(
        { state: newState(), input: userText('read a and b') },
        makeDeps(noServer, sched.scheduler, {
          overlapBatchSave: true,
          model: scriptedModel([call('read_file', 'a'), call('read_file', 'b'), done]),
          onBatchSettled: () => Promise.reject(new Error('disk full')),
        }),
        rec.emit,
      ),
    );
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'internal', message: 'the loop failed: disk full' } });
    expect(sched.runs.map((r) => r.calls[0]!.id)).toEqual(['a']);
    expect(rec.of('result')).toHaveLength(1);
    expect(unhandled).toEqual([]);
  });

  it('runs a side-effect-free batch while the last save still flushes; the next other batch and the outcome wait for every save', async () => {
    const pendingSaves: Array<() => void> = [];
    const savesDoneAtRun: number[] = [];
    let savesDone = 0;
    const releaseSaves = () => void nextMacrotask().then(() => pendingSaves.splice(0).forEach((f) => f()));
    // Reply 3 (the write) is read: every save so far finishes on the next macrotask. A loop that ran
    // the write without waiting for them would do so in the microtasks before that.
    const model = scriptedModel([call('read_file', 'a'), call('read_file', 'b'), call('write_file', 'c'), done], (n) => n === 3 && releaseSaves());
    const sched = fakeScheduler({ onRun: () => savesDoneAtRun.push(savesDone) });
    let savedAtResult = -1;
    const outcome = await runLoop(
      { state: newState(), input: userText('read a and b, write c') },
      makeDeps(noServer, sched.scheduler, {
        overlapBatchSave: true,
        model,
        sideEffectFree: (calls) => calls.every((c) => c.name === 'read_file'),
        onBatchSettled: () => new Promise<void>((resolve) => pendingSaves.push(() => (savesDone++, resolve()))),
      }),
      (e) => {
        // The last save (after the write) is held too: the outcome must wait for it.
        if (e.type === 'tool_result' && e.name === 'write_file') releaseSaves();
        if (e.type === 'result') savedAtResult = savesDone;
      },
    );
    expect(outcome).toEqual({ status: 'success', finalText: 'done' });
    // a: nothing saved yet; b: ran while save 1 was pending; c: only after saves 1 and 2.
    expect(savesDoneAtRun).toEqual([0, 0, 2]);
    expect(savedAtResult).toBe(3);
  });

  it('a save that fails under a side-effect-free batch still ends the run before a batch that may change anything', async () => {
    const sched = fakeScheduler();
    let saves = 0;
    const { value: outcome, unhandled } = await withUnhandled(() =>
      runLoop(
        { state: newState(), input: userText('read a and b, write c') },
        makeDeps(noServer, sched.scheduler, {
          overlapBatchSave: true,
          model: scriptedModel([call('read_file', 'a'), call('read_file', 'b'), call('write_file', 'c'), done]),
          sideEffectFree: (calls) => calls.every((c) => c.name === 'read_file'),
          // The first save fails; the second, made after the read-only batch ran past it, succeeds.
          onBatchSettled: () => (++saves === 1 ? Promise.reject(new Error('disk full')) : Promise.resolve()),
        }),
        recorder().emit,
      ),
    );
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'internal', message: 'the loop failed: disk full' } });
    expect(sched.runs.map((r) => r.calls[0]!.id)).toEqual(['a', 'b']);
    expect(unhandled).toEqual([]);
  });

  it('waits for the last save before it reports the outcome', async () => {
    let saved = false;
    const rec = recorder();
    const outcome = await runLoop(
      { state: newState(), input: userText('read a') },
      makeDeps(noServer, fakeScheduler().scheduler, {
        overlapBatchSave: true,
        model: scriptedModel([call('read_file', 'a'), done]),
        onBatchSettled: () => nextMacrotask().then(() => void (saved = true)),
      }),
      (e) => {
        if (e.type === 'result') expect(saved).toBe(true);
        rec.emit(e);
      },
    );
    expect(outcome.status).toBe('success');
    expect(rec.of('result')).toHaveLength(1);
  });

  it('without overlapBatchSave, saves before it asks the model again', async () => {
    let saved = 0;
    const savedAtRequest: number[] = [];
    const model = scriptedModel([call('read_file', 'a'), done]);
    const asking: ModelClient = {
      stream: (req) => {
        savedAtRequest.push(saved);
        return model.stream(req);
      },
    };
    const outcome = await runLoop(
      { state: newState(), input: userText('read a') },
      makeDeps(noServer, fakeScheduler().scheduler, { model: asking, onBatchSettled: () => nextMacrotask().then(() => void saved++) }),
      recorder().emit,
    );
    expect(outcome.status).toBe('success');
    expect(savedAtRequest).toEqual([0, 1]);
  });

  it("sends the first request while the caller's first save flushes, and runs the first batch only once it is saved", async () => {
    let saved = false;
    let savedAtRequest: boolean | undefined;
    const model = scriptedModel([call('read_file', 'a'), done], (n) => {
      // Reply 1 is read: the save lands on the next macrotask, which a loop that ran the batch's
      // tools at once (in the microtasks before it) would not wait for.
      if (n === 1) void nextMacrotask().then(() => finish());
    });
    let finish = () => {};
    const saveInFlight = new Promise<void>((resolve) => {
      finish = () => {
        saved = true;
        resolve();
      };
    });
    const asking: ModelClient = {
      stream: (req) => {
        savedAtRequest ??= saved;
        return model.stream(req);
      },
    };
    const savedAtRun: boolean[] = [];
    const outcome = await runLoop(
      { state: newState(), input: userText('read a') },
      makeDeps(noServer, fakeScheduler({ onRun: () => savedAtRun.push(saved) }).scheduler, { model: asking, saveInFlight }),
      recorder().emit,
    );
    expect(outcome).toEqual({ status: 'success', finalText: 'done' });
    expect(savedAtRequest).toBe(false);
    expect(savedAtRun).toEqual([true]);
  });

  it('fails the run before any tool runs when the first save failed', async () => {
    const sched = fakeScheduler();
    const outcome = await runLoop(
      { state: newState(), input: userText('read a') },
      makeDeps(noServer, sched.scheduler, { model: scriptedModel([call('read_file', 'a'), done]), saveInFlight: Promise.reject(new Error('read-only state folder')) }),
      recorder().emit,
    );
    expect(outcome).toMatchObject({ status: 'error', error: { message: 'the loop failed: read-only state folder' } });
    expect(sched.runs).toEqual([]);
  });

  it('waits for the first save before it settles a waiting batch with answers', async () => {
    let saved = false;
    const savedAtResume: boolean[] = [];
    const sched = fakeScheduler();
    const resume = sched.scheduler.resume.bind(sched.scheduler);
    sched.scheduler.resume = (...a) => {
      savedAtResume.push(saved);
      return resume(...a);
    };
    const state = newState();
    state.history.push({ role: 'user', parts: [{ text: 'read a' }] }, { role: 'model', parts: [{ functionCall: { id: 'a', name: 'read_file', args: {} } }] });
    state.open = { version: 1, calls: [{ call: { id: 'a', name: 'read_file', args: {} } }] };
    const deps = makeDeps(noServer, sched.scheduler, { model: scriptedModel([done]), saveInFlight: nextMacrotask().then(() => void (saved = true)) });
    const outcome = await runLoop({ state, input: { answers: [{ id: 'a', kind: 'approve' }] } }, deps, recorder().emit);
    expect(outcome.status).toBe('success');
    expect(savedAtResume).toEqual([true]);
  });
});
