import { afterEach, describe, expect, it } from 'vitest';
import { buildCompressedHistory, findSplit, SNAPSHOT_PREFIX } from '../../src/core/compress.js';
import { repairHistory } from '../../src/core/history-repair.js';
import { runLoop } from '../../src/core/loop.js';
import type { Content } from '../../src/model/wire.js';
import { call, fault, reply, startFakeGemini, text, usage, type FakeGemini } from '../support/fake-gemini.js';
import { fakeScheduler, makeDeps, newState, recorder, userText } from './helpers.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const big = (n: number) => 'x'.repeat(n);
const SNAP1 =
  '<state_snapshot><overall_goal>fix the bug</overall_goal><files_touched>a.ts</files_touched></state_snapshot>';
const SNAP2 =
  '<state_snapshot><overall_goal>fix the bug</overall_goal><files_touched>a.ts\nb.ts</files_touched></state_snapshot>';

describe('compression through the loop', () => {
  it('summarises older history with the model (no tools) once the prompt passes half the window, keeping the newest turns', async () => {
    fake = await startFakeGemini([
      reply([call('read_file', { file_path: 'a.ts' })], { usage: usage(100, 10) }),
      reply([call('read_file', { file_path: 'b.ts' })], { usage: usage(600, 10) }), // 600 > 1000 / 2
      reply([text(SNAP1)], { usage: usage(400, 50) }), // the compression call
      reply([text('done')], { usage: usage(200, 5) }),
    ]);
    const sched = fakeScheduler();
    const rec = recorder();
    const state = newState();
    const outcome = await runLoop(
      { state, input: userText(`task: ${big(2000)}`) },
      makeDeps(fake, sched.scheduler, { contextWindow: 1000 }),
      rec.emit,
    );
    expect(outcome).toEqual({ status: 'success', finalText: 'done' });

    const summarise = fake.requests[2].body;
    expect(summarise.tools).toBeUndefined();
    expect(summarise.systemInstruction?.parts[0].text).toMatch(/<state_snapshot>/);
    expect(summarise.contents[0].parts[0].text).toMatch(/^task: /);
    expect(summarise.contents.at(-1)?.parts.at(-1)?.text).toMatch(/Write the <state_snapshot>/);

    const next = fake.requests[3].body.contents;
    expect(next[0]).toEqual({ role: 'user', parts: [{ text: `${SNAPSHOT_PREFIX}\n\n${SNAP1}` }] });
    expect(JSON.stringify(next)).not.toContain(big(2000)); // the big old turn is gone
    // The newest turns are kept verbatim, with each call still next to its response.
    expect(next.at(-2)).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: { name: 'read_file', args: { file_path: 'b.ts' } },
          thoughtSignature: 'fake-signature/read_file',
        },
      ],
    });
    expect(next.at(-1)?.parts).toEqual([
      { functionResponse: { name: 'read_file', response: { output: 'ran read_file' } } },
    ]);
    expect(next.map((c) => c.role)).toEqual(alternating(next.length));
    expect(rec.of('compressed')).toHaveLength(1);
    expect(rec.of('compressed')[0].beforeTokens).toBe(600);
    expect(state.snapshot).toBe(SNAP1);
    expect(
      rec
        .of('message')
        .filter((m) => m.role === 'assistant')
        .map((m) => m.text),
    ).toEqual(['done']); // the snapshot is not shown
  });

  it('a later compression receives the earlier snapshot to merge', async () => {
    fake = await startFakeGemini([
      reply([text(SNAP2)], { usage: usage(300, 40) }),
      reply([text('ok')], { usage: usage(100, 5) }),
    ]);
    const state = newState();
    state.snapshot = SNAP1;
    state.history = [
      { role: 'user', parts: [{ text: `${SNAPSHOT_PREFIX}\n\n${SNAP1}` }] },
      { role: 'model', parts: [{ functionCall: { id: 'c3', name: 'read_file', args: { file_path: 'b.ts' } } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'c3', name: 'read_file', response: { output: big(3000) } } }] },
      { role: 'model', parts: [{ text: 'b.ts read' }] },
    ];
    state.lastPromptTokens = 900;
    const rec = recorder();
    await runLoop(
      { state, input: userText('next step') },
      makeDeps(fake, fakeScheduler().scheduler, { contextWindow: 1000 }),
      rec.emit,
    );
    expect(fake.requests[0].body.contents[0].parts[0].text).toContain(SNAP1);
    expect(fake.requests[1].body.contents[0].parts[0].text).toContain(SNAP2);
    expect(state.snapshot).toBe(SNAP2);
  });

  it('leaves the history alone and warns when the summary call fails', async () => {
    fake = await startFakeGemini([fault.status(400), reply([text('ok')])]);
    const state = newState();
    state.history = [
      { role: 'user', parts: [{ text: big(3000) }] },
      { role: 'model', parts: [{ text: 'fine' }] },
    ];
    state.lastPromptTokens = 900;
    const rec = recorder();
    const outcome = await runLoop(
      { state, input: userText('go') },
      makeDeps(fake, fakeScheduler().scheduler, { contextWindow: 1000 }),
      rec.emit,
    );
    expect(outcome.status).toBe('success');
    expect(rec.of('warning').some((w) => /compression failed/.test(w.message))).toBe(true);
    expect(fake.requests[1].body.contents[0].parts[0].text).toBe(big(3000));
  });
});

describe('findSplit', () => {
  const u = (t: string): Content => ({ role: 'user', parts: [{ text: t }] });
  const m = (t: string): Content => ({ role: 'model', parts: [{ text: t }] });
  const mc = (id: string): Content => ({ role: 'model', parts: [{ functionCall: { id, name: 'f', args: {} } }] });
  const ur = (id: string, size = 10): Content => ({
    role: 'user',
    parts: [{ functionResponse: { id, name: 'f', response: { output: big(size) } } }],
  });

  it('never splits between a functionCall and its functionResponse', () => {
    const h = [u(big(1000)), mc('1'), ur('1', 1000), mc('2'), ur('2', 400)];
    const i = findSplit(h)!;
    expect(h[i].role).toBe('model');
    expect(i).toBe(3);
  });

  it('splits at a user turn that answers no call', () => {
    const h = [u(big(1000)), m(big(1000)), u('short'), m('short')];
    expect(findSplit(h)).toBe(2);
  });

  it('returns undefined when there is too little to summarise', () => {
    expect(findSplit([u('a'), m('b')])).toBeUndefined();
  });

  it('builds alternating history after the snapshot', () => {
    expect(buildCompressedHistory('S', [u('k'), m('r')]).map((c) => c.role)).toEqual([
      'user',
      'model',
      'user',
      'model',
    ]);
    expect(buildCompressedHistory('S', [mc('1'), ur('1')]).map((c) => c.role)).toEqual(['user', 'model', 'user']);
  });
});

describe('repairHistory', () => {
  const mc = (...ids: string[]): Content => ({
    role: 'model',
    parts: ids.map((id) => ({ functionCall: { id, name: `f${id}`, args: {} } })),
  });
  const resp = (id: string) => ({ functionResponse: { id, name: `f${id}`, response: { output: 'ok' } } });

  it.each<[string, Content[], number]>([
    [
      'a whole history is left alone',
      [{ role: 'user', parts: [{ text: 'a' }] }, mc('1'), { role: 'user', parts: [resp('1')] }],
      0,
    ],
    [
      'a missing response at the end',
      [{ role: 'user', parts: [{ text: 'a' }] }, mc('1', '2'), { role: 'user', parts: [resp('2')] }],
      1,
    ],
    [
      'calls followed by another model turn',
      [{ role: 'user', parts: [{ text: 'a' }] }, mc('1'), { role: 'model', parts: [{ text: 'x' }] }],
      1,
    ],
    ['an orphan response', [{ role: 'user', parts: [{ text: 'a' }, resp('9')] }], 1],
    ['trailing calls', [{ role: 'user', parts: [{ text: 'a' }] }, mc('1')], 1],
  ])('%s', (_name, history, repaired) => {
    const out = repairHistory(history);
    expect(out.repaired).toBe(repaired);
    // Every model call is answered, in order, by the next turn.
    out.history.forEach((c, i) => {
      const ids = c.role === 'model' ? c.parts.flatMap((p) => (p.functionCall ? [p.functionCall.id] : [])) : [];
      if (ids.length)
        expect(out.history[i + 1].parts.slice(0, ids.length).map((p) => p.functionResponse?.id)).toEqual(ids);
    });
    expect(repairHistory(out.history).repaired).toBe(0);
  });

  it('from an index, looks only at the tail, pairing its first turn with the content before it', () => {
    const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });
    // The prefix (before index 3) holds an unanswered call: a repair from 0 would answer it; from 3, it is taken as already repaired.
    const history = [user('a'), mc('1'), user('b'), mc('2'), { role: 'user', parts: [resp('9')] } satisfies Content];
    const out = repairHistory(history, 3);
    expect(out.repaired).toBe(2); // call 2 answered (synthetic), response 9 dropped
    expect(out.history.slice(0, 3)).toEqual(history.slice(0, 3));
    expect(out.history[4]!.parts.map((p) => p.functionResponse?.id)).toEqual(['2']);
    expect(out.history).not.toBe(history);
    expect(repairHistory(history, 0).repaired).toBe(3); // and call 1 answered too
    expect(repairHistory(history, 99)).toEqual({ history, repaired: 0 });
  });
});

function alternating(n: number): string[] {
  return Array.from({ length: n }, (_, i) => (i % 2 ? 'model' : 'user'));
}
