import { afterEach, describe, expect, it } from 'vitest';
import { runLoop } from '../../src/core/loop.js';
import {
  call,
  malformedCall,
  recorded,
  reply,
  startFakeGemini,
  text,
  thought,
  usage,
  type FakeGemini,
  type FakeReply,
} from '../support/fake-gemini.js';
import { fakeScheduler, makeDeps, newState, recorder, userText } from './helpers.js';

// The loop against replies shaped the way the API sends them, real recorded ones among them
// (test/fixtures/gemini-cli-recorded), through the real SDK.

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function run(script: FakeReply[], prompt = 'go') {
  fake = await startFakeGemini(script);
  const sched = fakeScheduler();
  const rec = recorder();
  const state = newState('gemini-2.5-pro');
  const deps = makeDeps(fake, sched.scheduler);
  const outcome = await runLoop({ state, input: userText(prompt) }, deps, rec.emit);
  return { fake, sched, rec, state, deps, outcome };
}

describe('usage', () => {
  it('usage counts a MALFORMED_FUNCTION_CALL stream at its last chunk: 24,832 tokens, not 24,902', async () => {
    // Recorded: the malformed stream's first chunk says 12,352 and its last 12,282; the retry's
    // last says 12,550. The API counted 12,282 + 12,550.
    const { outcome, state, rec, fake, deps } = await run([
      recorded('context-compress-interactive.compress.responses', 0),
      recorded('context-compress-interactive.compress.responses', 1),
    ]);
    expect(outcome.status).toBe('success');
    expect(state.usage).toEqual({
      inputTokens: 24_564,
      outputTokens: 224,
      cachedTokens: 11_883,
      thoughtTokens: 44,
      totalTokens: 24_832,
    });
    expect(state.models['gemini-2.5-pro']).toEqual({
      inputTokens: 24_564,
      outputTokens: 224,
      totalTokens: 24_832,
      requests: 2,
    });
    expect(rec.of('result')[0].stats.totalTokens).toBe(24_832);
    // Gemini CLI retries a malformed call after 1 s, asking the same thing again.
    expect(rec.of('retry').map((r) => [r.reason, r.waitMs])).toEqual([['invalid_output', 1_000]]);
    expect(deps.clock.sleeps).toEqual([1_000]);
    expect(fake.requests[1].body).toEqual(fake.requests[0].body);
    expect(state.history.map((c) => c.role)).toEqual(['user', 'model']);
  });

  it('a reply streamed in many chunks counts once, at its last chunk (not their sum)', async () => {
    const { state } = await run([reply([text('a'), text('b'), text('c'), text('d')], { usage: usage(1_000, 40) })]);
    expect(state.usage.totalTokens).toBe(1_040);
    expect(state.usage.outputTokens).toBe(40);
  });

  it('an unusable reply that was never used still counts: the retries of empty replies are billed', async () => {
    const { state, outcome } = await run([
      reply([], { usage: usage(300, 0) }),
      reply([text('Here.')], { usage: usage(320, 4) }),
    ]);
    expect(outcome).toEqual({ status: 'success', finalText: 'Here.' });
    expect(state.usage.totalTokens).toBe(624);
    expect(state.models['gemini-2.5-pro'].requests).toBe(2);
  });
});

describe('empty replies', () => {
  it('an empty answer to a person is retried, and the retry tells the model its reply was empty', async () => {
    const { outcome, fake, rec } = await run([reply([]), reply([text('The answer.')])]);
    expect(outcome).toEqual({ status: 'success', finalText: 'The answer.' });
    expect(rec.of('retry').map((r) => [r.reason, r.waitMs])).toEqual([['invalid_output', 1_000]]);
    expect(fake.requests[0].body.systemInstruction?.parts[0].text).toBe('You are a coding agent under test.');
    expect(fake.requests[1].body.systemInstruction?.parts[0].text).toBe(
      'You are a coding agent under test.\n\nYour previous reply was empty: no text and no tool call. Give your answer now, or call a tool.',
    );
    expect(fake.requests[1].body.contents).toEqual(fake.requests[0].body.contents);
  });

  it('thoughts with no answer are retried with their own nudge, even after tool results', async () => {
    const { outcome, fake } = await run([
      reply([call('read_file', { file_path: 'a.ts' })]),
      reply([thought('Now I know.')]),
      reply([text('a.ts is fine.')]),
    ]);
    expect(outcome).toEqual({ status: 'success', finalText: 'a.ts is fine.' });
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[2].body.systemInstruction?.parts[0].text).toBe(
      'You are a coding agent under test.\n\nYour previous reply had thoughts but no answer and no tool call. Give your answer now, or call a tool.',
    );
  });

  it('an empty answer to tool results ends the run (recorded: content with no parts), and no empty turn joins the history', async () => {
    const { outcome, fake, state, rec } = await run(
      [recorded('hooks-system.allow-tool.responses', 0), recorded('hooks-system.allow-tool.responses', 1)],
      'Create approved.txt',
    );
    expect(outcome).toEqual({ status: 'success', finalText: '' });
    expect(fake.requests).toHaveLength(2);
    expect(rec.of('retry')).toEqual([]);
    expect(state.history.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(state.history.at(-1)?.parts[0].functionResponse?.name).toBe('write_file');
    expect(state.usage.totalTokens).toBe(12_862 + 12_939);
  });

  it('a malformed function call is retried without a nudge, on its own budget of 3 retries', async () => {
    const { outcome, fake, rec } = await run([malformedCall(), malformedCall(), malformedCall(), malformedCall()]);
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'general' } });
    expect(outcome.status === 'error' && outcome.error.message).toMatch(/malformed function call/);
    expect(fake.requests).toHaveLength(4);
    expect(rec.of('retry').map((r) => r.waitMs)).toEqual([1_000, 2_000, 4_000]);
    expect(new Set(fake.requests.map((r) => JSON.stringify(r.body))).size).toBe(1);
  });
});

describe('function calls without ids', () => {
  it('two calls to one tool get ids of ours, and their responses go back without ids, in the order asked', async () => {
    const { sched, fake, state } = await run([
      reply([call('read_file', { file_path: 'a.ts' }), call('read_file', { file_path: 'b.ts' })]),
      reply([text('Both read.')]),
    ]);
    expect(sched.runs[0].calls.map((c) => c.id)).toEqual(['call-1-0', 'call-1-1']);
    const [, model, results] = fake.requests[1].body.contents;
    expect(model).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: { name: 'read_file', args: { file_path: 'a.ts' } },
          thoughtSignature: 'fake-signature/read_file',
        },
        { functionCall: { name: 'read_file', args: { file_path: 'b.ts' } } },
      ],
    });
    expect(results.parts).toEqual([
      { functionResponse: { name: 'read_file', response: { output: 'ran read_file' } } },
      { functionResponse: { name: 'read_file', response: { output: 'ran read_file' } } },
    ]);
    expect(state.history[1]).toEqual(model);
  });

  it('ids stay unique across turns', async () => {
    const { sched } = await run([
      reply([call('read_file', { file_path: 'a.ts' })]),
      reply([text('Next. '), call('read_file', { file_path: 'b.ts' })]),
      reply([text('Done.')]),
    ]);
    expect(sched.runs.map((r) => r.calls.map((c) => c.id))).toEqual([['call-1-0'], ['call-2-1']]);
  });

  it("a recorded call goes back exactly as it came: no id, the signature verbatim, the stream's empty last text part dropped", async () => {
    const first = recorded('policy-headless-readonly.responses', 0);
    const { outcome, fake, state, sched } = await run(
      [first, recorded('policy-headless-readonly.responses', 1)],
      'What language is test.txt in?',
    );
    expect(outcome).toEqual({ status: 'success', finalText: 'The language of the file is Latin.' });
    const sent = first.kind === 'chunks' ? first.chunks[2].candidates?.[0].content?.parts?.[0] : undefined;
    expect(sent?.thoughtSignature).toMatch(/^EvkCCvYCAb4/);
    expect(fake.requests[1].body.contents[1]).toEqual({
      role: 'model',
      parts: [{ text: 'I will read the content of the file to identify its language.\n' }, sent],
    });
    expect(sched.runs[0].calls).toEqual([{ id: 'call-1-1', name: 'read_file', args: { file_path: 'test.txt' } }]);
    expect(fake.requests[1].body.contents[2].parts).toEqual([
      { functionResponse: { name: 'read_file', response: { output: 'ran read_file' } } },
    ]);
    // The answer's empty text part carries a signature: it stays.
    expect(state.history.at(-1)?.parts).toEqual([
      { text: 'The language of the file is Latin.' },
      { text: '', thoughtSignature: expect.stringMatching(/^EnIKcAG\+Pvb7/) },
    ]);
  });
});
