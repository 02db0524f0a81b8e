/**
 * The safe point's save (onBatchSettled) is a plain awaited step: after each settled batch the
 * loop waits for it before it asks the model again, runs another tool or reports the outcome, and
 * a failed save ends the run there. A scripted in-process model (our ModelClient interface) keeps
 * every step in microtasks, and each save ends on the next macrotask, so a loop that went on
 * without waiting would be seen to, not guessed at by time.
 */
import { describe, expect, it } from 'vitest';
import { runLoop } from '../../src/core/loop.js';
import type { ModelChunk, ModelClient } from '../../src/model/client.js';
import { fakeScheduler, makeDeps, newState, recorder, userText } from './helpers.js';
import type { FakeGemini } from '../support/fake-gemini.js';

const call = (name: string, id: string): ModelChunk => ({
  parts: [{ functionCall: { id, name, args: { file_path: `${id}.ts` } } }],
  finishReason: 'STOP',
});
const done: ModelChunk = { parts: [{ text: 'done' }], finishReason: 'STOP' };
const nextMacrotask = () => new Promise<void>((r) => setImmediate(r));

/** Replies in order, counting the requests. */
function scriptedModel(replies: ModelChunk[]): ModelClient & { requests: number } {
  const m = {
    requests: 0,
    async *stream() {
      const r = replies[m.requests++];
      if (!r) throw new Error('script exhausted');
      yield r;
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
  it('saves each batch before it asks the model again, each save seeing its safe point', async () => {
    let saved = 0;
    const savedAtRequest: number[] = [];
    const savedTurns: number[] = [];
    const model = scriptedModel([call('read_file', 'a'), call('read_file', 'b'), done]);
    const asking: ModelClient = {
      stream: (req) => {
        savedAtRequest.push(saved);
        return model.stream(req);
      },
    };
    const savedAtRun: number[] = [];
    const outcome = await runLoop(
      { state: newState(), input: userText('read a and b') },
      makeDeps(noServer, fakeScheduler({ onRun: () => savedAtRun.push(saved) }).scheduler, {
        model: asking,
        onBatchSettled: (state) => {
          savedTurns.push(state.history.length);
          return nextMacrotask().then(() => void saved++);
        },
      }),
      recorder().emit,
    );
    expect(outcome).toEqual({ status: 'success', finalText: 'done' });
    expect(savedAtRequest).toEqual([0, 1, 2]);
    expect(savedAtRun).toEqual([0, 1]);
    // The prompt, the call, its response (3), then two more (5).
    expect(savedTurns).toEqual([3, 5]);
  });

  it('ends the run with a failed save before the model is asked again', async () => {
    const sched = fakeScheduler();
    const model = scriptedModel([call('read_file', 'a'), call('read_file', 'b'), done]);
    const rec = recorder();
    const { value: outcome, unhandled } = await withUnhandled(() =>
      runLoop(
        { state: newState(), input: userText('read a and b') },
        makeDeps(noServer, sched.scheduler, {
          model,
          onBatchSettled: () => nextMacrotask().then(() => Promise.reject(new Error('disk full'))),
        }),
        rec.emit,
      ),
    );
    expect(outcome).toMatchObject({
      status: 'error',
      error: { kind: 'internal', message: 'the loop failed: disk full' },
    });
    expect(model.requests).toBe(1);
    expect(sched.runs.map((r) => r.calls[0]!.id)).toEqual(['a']);
    expect(rec.of('result')).toHaveLength(1);
    expect(unhandled).toEqual([]);
  });

  it('waits for the last save before it reports the outcome', async () => {
    let saved = false;
    const rec = recorder();
    const outcome = await runLoop(
      { state: newState(), input: userText('read a') },
      makeDeps(noServer, fakeScheduler().scheduler, {
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

  it('saves a batch settled with answers before it asks the model', async () => {
    let saved = 0;
    const savedAtRequest: number[] = [];
    const model = scriptedModel([done]);
    const asking: ModelClient = {
      stream: (req) => {
        savedAtRequest.push(saved);
        return model.stream(req);
      },
    };
    const state = newState();
    state.history.push(
      { role: 'user', parts: [{ text: 'read a' }] },
      { role: 'model', parts: [{ functionCall: { id: 'a', name: 'read_file', args: {} } }] },
    );
    state.open = { version: 1, calls: [{ call: { id: 'a', name: 'read_file', args: {} } }] };
    const deps = makeDeps(noServer, fakeScheduler().scheduler, {
      model: asking,
      onBatchSettled: () => nextMacrotask().then(() => void saved++),
    });
    const outcome = await runLoop({ state, input: { answers: [{ id: 'a', kind: 'approve' }] } }, deps, recorder().emit);
    expect(outcome.status).toBe('success');
    expect(savedAtRequest).toEqual([1]);
  });
});
