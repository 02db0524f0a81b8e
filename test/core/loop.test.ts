import { afterEach, describe, expect, it } from 'vitest';
import { runLoop } from '../../src/core/loop.js';
import { INTERRUPTED_RESPONSE } from '../../src/core/history-repair.js';
import type { RunState } from '../../src/core/run-state.js';
import { estimateCostUsd } from '../../src/model/pricing.js';
import {
  call,
  fault,
  reply,
  startFakeGemini,
  text,
  thought,
  usage,
  type FakeGemini,
  type FakeReply,
} from '../support/fake-gemini.js';
import { fakeScheduler, makeDeps, MODEL, newState, recorder, userText } from './helpers.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(script: FakeReply[], schedOpts: Parameters<typeof fakeScheduler>[0] = {}) {
  fake = await startFakeGemini(script);
  const sched = fakeScheduler(schedOpts);
  return { fake, sched, rec: recorder() };
}

describe('runLoop: the basic turn cycle', () => {
  it('ends with success when a turn has no calls, streaming text as deltas', async () => {
    const { fake, sched, rec } = await setup([reply([text('Hello '), text('world')])]);
    const state = newState();
    const outcome = await runLoop({ state, input: userText('hi') }, makeDeps(fake, sched.scheduler), rec.emit);
    expect(outcome).toEqual({ status: 'success', finalText: 'Hello world' });
    expect(rec.events.map((e) => e.type)).toEqual(['init', 'message', 'message', 'message', 'result']);
    expect(rec.of('message').map((m) => [m.role, m.text, m.delta])).toEqual([
      ['user', 'hi', false],
      ['assistant', 'Hello ', true],
      ['assistant', 'world', true],
    ]);
    expect(state.history).toEqual([
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: 'Hello world' }] },
    ]);
  });

  it('runs calls through the scheduler and sends the responses back, thought signatures verbatim', async () => {
    const { fake, sched, rec } = await setup([
      reply([thought('I should read it'), { ...call('read_file', { file_path: 'a.ts' }), thoughtSignature: 'sig-A' }]),
      reply([{ text: 'Read it.', thoughtSignature: 'sig-B' }]),
    ]);
    const state = newState();
    const outcome = await runLoop({ state, input: userText('read a.ts') }, makeDeps(fake, sched.scheduler), rec.emit);
    expect(outcome).toEqual({ status: 'success', finalText: 'Read it.' });
    expect(sched.runs[0].calls).toEqual([{ id: 'call-1-1', name: 'read_file', args: { file_path: 'a.ts' } }]);
    expect(fake.requests[1].body.contents).toEqual([
      { role: 'user', parts: [{ text: 'read a.ts' }] },
      {
        role: 'model',
        parts: [
          { text: 'I should read it', thought: true },
          { functionCall: { name: 'read_file', args: { file_path: 'a.ts' } }, thoughtSignature: 'sig-A' },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: 'ran read_file' } } }] },
    ]);
    expect(rec.of('thought')).toEqual([{ type: 'thought', text: 'I should read it' }]);
    expect(rec.events.map((e) => e.type)).toContain('tool_result');
    expect(state.history.at(-1)).toEqual({ role: 'model', parts: [{ text: 'Read it.', thoughtSignature: 'sig-B' }] });
  });

  it('gives id-less calls an id for the scheduler but sends the response back without it', async () => {
    const { fake, sched, rec } = await setup([reply([call('read_file', { file_path: 'a.ts' })]), reply([text('ok')])]);
    await runLoop({ state: newState(), input: userText('go') }, makeDeps(fake, sched.scheduler), rec.emit);
    expect(sched.runs[0].calls[0].id).toBeTruthy();
    expect(fake.requests[1].body.contents[1].parts).toEqual([
      {
        functionCall: { name: 'read_file', args: { file_path: 'a.ts' } },
        thoughtSignature: 'fake-signature/read_file',
      },
    ]);
    expect(fake.requests[1].body.contents[2].parts).toEqual([
      { functionResponse: { name: 'read_file', response: { output: 'ran read_file' } } },
    ]);
  });

  it('ends with a fatal_tool error when a tool fails fatally', async () => {
    const { fake, sched, rec } = await setup([reply([call('run_shell_command', { command: 'x' })])], {
      fatal: 'run_shell_command',
    });
    const outcome = await runLoop(
      { state: newState(), input: userText('go') },
      makeDeps(fake, sched.scheduler),
      rec.emit,
    );
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'fatal_tool', message: 'disk on fire' } });
  });
});

describe('runLoop: retries with separate budgets', () => {
  it('honours Retry-After on 429 through the injected clock', async () => {
    const { fake, sched, rec } = await setup([
      fault.status(429, { retryAfter: '7' }),
      fault.status(429, { retryAfter: '3' }),
      reply([text('ok')]),
    ]);
    const deps = makeDeps(fake, sched.scheduler);
    const outcome = await runLoop({ state: newState(), input: userText('hi') }, deps, rec.emit);
    expect(outcome.status).toBe('success');
    expect(deps.clock.sleeps).toEqual([7000, 3000]);
    expect(rec.of('retry').map((r) => [r.reason, r.waitMs])).toEqual([
      ['rate_limited', 7000],
      ['rate_limited', 3000],
    ]);
  });

  it('spends rate-limit and transport retries without touching the invalid-output budget', async () => {
    const script: FakeReply[] = [
      fault.malformed(),
      fault.status(429, { retryAfter: '1' }),
      fault.reset(),
      fault.status(429, { retryAfter: '1' }),
      reply([]), // empty reply: invalid output
      fault.status(503),
      reply([text('finally')]),
    ];
    // The script spends two of the invalid-output budget (3) between the others.
    const { fake, sched, rec } = await setup(script);
    const outcome = await runLoop(
      { state: newState(), input: userText('hi') },
      makeDeps(fake, sched.scheduler),
      rec.emit,
    );
    expect(outcome).toEqual({ status: 'success', finalText: 'finally' });
    expect(rec.of('retry').map((r) => r.reason)).toEqual([
      'invalid_output',
      'rate_limited',
      'network',
      'rate_limited',
      'invalid_output',
      'server',
    ]);
  });

  it('fails the turn once the invalid-output budget is spent, empty replies included', async () => {
    const { fake, sched, rec } = await setup([reply([]), reply([]), reply([]), reply([]), reply([text('never')])]);
    const outcome = await runLoop(
      { state: newState(), input: userText('hi') },
      makeDeps(fake, sched.scheduler),
      rec.emit,
    );
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'general' } });
    expect(fake.requests).toHaveLength(4); // the first try and 3 retries
  });

  it('backs off exponentially with jitter on 5xx, then gives up', async () => {
    const { fake, sched, rec } = await setup(Array.from({ length: 5 }, () => fault.status(500)));
    const deps = makeDeps(fake, sched.scheduler, { random: () => 0.5 });
    const outcome = await runLoop({ state: newState(), input: userText('hi') }, deps, rec.emit);
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'general' } });
    // step = 1000 * 2^(n-1), jitter factor 0.5 + 0.5 * random = 0.75
    expect(deps.clock.sleeps).toEqual([750, 1500, 3000, 6000]);
    expect(fake.requests).toHaveLength(5); // the first try and 4 retries
  });

  it.each([
    [400, 'general'],
    [404, 'general'],
    [401, 'auth'],
    [403, 'auth'],
  ])('never retries %i (error kind %s), and reports the API message', async (status, kind) => {
    const { fake, sched, rec } = await setup([
      fault.status(status, { message: 'nope from the API' }),
      reply([text('never')]),
    ]);
    const outcome = await runLoop(
      { state: newState(), input: userText('hi') },
      makeDeps(fake, sched.scheduler),
      rec.emit,
    );
    expect(outcome).toMatchObject({ status: 'error', error: { kind } });
    expect(outcome.status === 'error' && outcome.error.message).toContain('nope from the API');
    expect(fake.requests).toHaveLength(1);
    expect(rec.of('retry')).toEqual([]);
  });

  it('does not replay silently: text already shown is announced as discarded, and the partial turn never reaches history', async () => {
    const { fake, sched, rec } = await setup([fault.reset([text('Partial ans')]), reply([text('Full answer')])]);
    const state = newState();
    const outcome = await runLoop({ state, input: userText('hi') }, makeDeps(fake, sched.scheduler), rec.emit);
    expect(outcome).toEqual({ status: 'success', finalText: 'Full answer' });
    const kinds = rec.events.map((e) => e.type);
    expect(kinds.indexOf('warning')).toBeGreaterThan(-1);
    expect(kinds.indexOf('warning')).toBeLessThan(kinds.indexOf('retry'));
    expect(rec.of('warning')[0].message).toMatch(/partial reply is discarded/);
    expect(fake.requests[1].body.contents).toEqual(fake.requests[0].body.contents);
    expect(state.history.map((c) => c.parts)).toEqual([[{ text: 'hi' }], [{ text: 'Full answer' }]]);
  });

  it('retries an error object sent mid-stream as the failure it names', async () => {
    const { fake, sched, rec } = await setup([fault.errorFrame(503, 'overloaded'), reply([text('ok')])]);
    const outcome = await runLoop(
      { state: newState(), input: userText('hi') },
      makeDeps(fake, sched.scheduler),
      rec.emit,
    );
    expect(outcome.status).toBe('success');
    expect(rec.of('retry').map((r) => r.reason)).toEqual(['server']);
  });

  it('fails on a blocked reply without retrying', async () => {
    const { fake, sched, rec } = await setup([reply([text('x')], { finishReason: 'SAFETY' })]);
    const outcome = await runLoop(
      { state: newState(), input: userText('hi') },
      makeDeps(fake, sched.scheduler),
      rec.emit,
    );
    expect(outcome).toMatchObject({ status: 'error' });
    expect(fake.requests).toHaveLength(1);
  });
});

describe('runLoop: history repair', () => {
  it('answers a dangling functionCall with a synthetic error before the next request', async () => {
    const { fake, sched, rec } = await setup([reply([text('carrying on')])]);
    const state = newState();
    state.history = [
      { role: 'user', parts: [{ text: 'start' }] },
      { role: 'model', parts: [{ functionCall: { id: 'c9', name: 'read_file', args: { file_path: 'x' } } }] },
    ];
    const outcome = await runLoop({ state, input: userText('continue') }, makeDeps(fake, sched.scheduler), rec.emit);
    expect(outcome.status).toBe('success');
    expect(fake.requests[0].body.contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'c9', name: 'read_file', response: { error: INTERRUPTED_RESPONSE } } },
        { text: 'continue' },
      ],
    });
    expect(rec.of('warning')[0].message).toMatch(/repaired/);
  });
});

describe('runLoop: limits', () => {
  it('stops cleanly at the turn cap', async () => {
    const { fake, sched, rec } = await setup([
      reply([call('read_file', { file_path: '1' })]),
      reply([call('read_file', { file_path: '2' })]),
      reply([text('never asked')]),
    ]);
    const state = newState();
    const outcome = await runLoop(
      { state, input: userText('go') },
      makeDeps(fake, sched.scheduler, { limits: { maxTurns: 2 } }),
      rec.emit,
    );
    expect(outcome).toMatchObject({ status: 'limit', which: 'turns' });
    expect(fake.requests).toHaveLength(2);
    expect(state.turns).toBe(2);
    expect(state.history.at(-1)?.parts[0].functionResponse).toBeTruthy(); // what was done is kept
    expect(rec.of('result')[0].stats.turns).toBe(2);
  });

  it('stops at the wall-clock cap between turns', async () => {
    const {
      fake,
      sched: _s,
      rec,
    } = await setup([reply([call('read_file', { file_path: '1' })]), reply([text('never asked')])]);
    const deps = makeDeps(fake, fakeScheduler().scheduler, { limits: { maxWallMs: 60_000 } });
    const sched = fakeScheduler({ onRun: () => deps.clock.advance(61_000) });
    deps.scheduler = sched.scheduler;
    const outcome = await runLoop({ state: newState(), input: userText('go') }, deps, rec.emit);
    expect(outcome).toMatchObject({ status: 'limit', which: 'time' });
    expect(fake.requests).toHaveLength(1);
  });

  it('stops at the wall-clock cap instead of waiting out a Retry-After that would cross it', async () => {
    const { fake, sched, rec } = await setup([fault.status(429, { retryAfter: '120' }), reply([text('never asked')])]);
    const deps = makeDeps(fake, sched.scheduler, { limits: { maxWallMs: 60_000 } });
    const outcome = await runLoop({ state: newState(), input: userText('go') }, deps, rec.emit);
    expect(outcome).toMatchObject({ status: 'limit', which: 'time' });
    expect(deps.clock.sleeps).toEqual([]);
  });

  it('aborts a request in flight when the wall-clock budget runs out', async () => {
    const { fake, sched, rec } = await setup([fault.hang([text('working...')])]);
    const deps = makeDeps(fake, sched.scheduler, { limits: { maxWallMs: 60_000 } });
    const running = runLoop({ state: newState(), input: userText('go') }, deps, rec.emit);
    await fake.untilRequests(1);
    deps.clock.advance(59_999);
    deps.clock.advance(1);
    const outcome = await running;
    expect(outcome).toMatchObject({ status: 'limit', which: 'time' });
  });

  it('stops at the token and cost caps', async () => {
    const { fake, sched, rec } = await setup([
      reply([call('read_file', { file_path: '1' })], { usage: usage(5000, 100) }),
      reply([text('never')]),
    ]);
    const outcome = await runLoop(
      { state: newState(), input: userText('go') },
      makeDeps(fake, sched.scheduler, { limits: { maxTotalTokens: 1000 } }),
      rec.emit,
    );
    expect(outcome).toMatchObject({ status: 'limit', which: 'tokens' });
  });

  it('detects a loop: the same call 5 times in a row', async () => {
    const same = () => reply([call('read_file', { file_path: 'same.ts' })]);
    const { fake, sched, rec } = await setup([
      reply([call('read_file', { file_path: 'other.ts' })]),
      ...Array.from({ length: 5 }, same),
      reply([text('never')]),
    ]);
    const outcome = await runLoop(
      { state: newState(), input: userText('go') },
      makeDeps(fake, sched.scheduler),
      rec.emit,
    );
    expect(outcome).toMatchObject({ status: 'limit', which: 'loop' });
    expect(outcome.status === 'limit' && outcome.message).toMatch(/read_file with the same arguments 5 times in a row/);
    expect(sched.runs).toHaveLength(5); // the other call and 4 identical ones; the 5th identical call never ran
  });

  it('treats argument order as the same call (stable args)', async () => {
    const { fake, sched, rec } = await setup(
      Array.from({ length: 5 }, (_, i) =>
        reply([call('grep_search', i % 2 ? { pattern: 'x', dir: 'a' } : { dir: 'a', pattern: 'x' })]),
      ),
    );
    const outcome = await runLoop(
      { state: newState(), input: userText('go') },
      makeDeps(fake, sched.scheduler),
      rec.emit,
    );
    expect(outcome).toMatchObject({ status: 'limit', which: 'loop' });
  });

  it('tells the scheduler a turn was cut off at MAX_TOKENS', async () => {
    const { fake, sched, rec } = await setup([
      reply([call('run_shell_command', { command: 'echo hi' })], { finishReason: 'MAX_TOKENS' }),
      reply([text('ok')]),
    ]);
    await runLoop({ state: newState(), input: userText('go') }, makeDeps(fake, sched.scheduler), rec.emit);
    expect(sched.runs[0].opts.truncated).toBe(true);
  });

  it('ends as cancelled when the caller aborts mid-stream', async () => {
    const { fake, sched, rec } = await setup([fault.hang([text('thinking...')])]);
    const ctrl = new AbortController();
    const deps = makeDeps(fake, sched.scheduler, { signal: ctrl.signal });
    const run = runLoop({ state: newState(), input: userText('go') }, deps, (e) => {
      rec.emit(e);
      if (e.type === 'message' && e.role === 'assistant') ctrl.abort();
    });
    expect(await run).toEqual({ status: 'cancelled' });
  });
});

describe('runLoop: accounting', () => {
  it('sums usage, cost and per-model counts', async () => {
    const u1 = usage(1000, 200, { cachedContentTokenCount: 400, thoughtsTokenCount: 50 });
    const u2 = usage(1500, 100);
    const { fake, sched, rec } = await setup([
      reply([call('read_file', { file_path: 'a' })], { usage: u1 }),
      reply([text('done')], { usage: u2 }),
    ]);
    const state = newState();
    await runLoop({ state, input: userText('go') }, makeDeps(fake, sched.scheduler), rec.emit);
    expect(state.usage).toEqual({
      inputTokens: 2500,
      outputTokens: 300,
      cachedTokens: 400,
      thoughtTokens: 50,
      totalTokens: 1250 + 1600,
    });
    const expected =
      estimateCostUsd(MODEL, {
        inputTokens: 1000,
        outputTokens: 200,
        cachedTokens: 400,
        thoughtTokens: 50,
        totalTokens: 1250,
      }) +
      estimateCostUsd(MODEL, {
        inputTokens: 1500,
        outputTokens: 100,
        cachedTokens: 0,
        thoughtTokens: 0,
        totalTokens: 1600,
      });
    expect(state.costUsd).toBeCloseTo(expected, 12);
    expect(state.costUsd).toBeGreaterThan(0);
    expect(state.models[MODEL]).toEqual({ inputTokens: 2500, outputTokens: 300, totalTokens: 2850, requests: 2 });
    expect(state.toolCalls).toBe(1);
    expect(state.lastPromptTokens).toBe(1500);
    expect(rec.of('result')[0].stats).toMatchObject({
      turns: 2,
      totalTokens: 2850,
      toolCalls: 1,
      costUsd: state.costUsd,
    });
  });
});

describe('runLoop: suspend and resume', () => {
  it('suspends on pending approvals and resumes from a JSON round-tripped state', async () => {
    const { fake, sched, rec } = await setup(
      [
        reply([call('read_file', { file_path: 'a' }), call('run_shell_command', { command: 'npm test' })], {
          usage: usage(100, 10),
        }),
        reply([text('all green')]),
      ],
      { ask: ['run_shell_command'] },
    );
    const state = newState();
    const first = await runLoop({ state, input: userText('test it') }, makeDeps(fake, sched.scheduler), rec.emit);
    expect(first).toMatchObject({
      status: 'awaiting_approval',
      pending: [{ id: 'call-1-1', name: 'run_shell_command' }],
    });
    expect(rec.of('approval_request')[0]).toMatchObject({ sessionId: 'sess-1', calls: [{ id: 'call-1-1' }] });
    expect(state.open).toBeDefined();

    const restored = JSON.parse(JSON.stringify(state)) as RunState;
    expect(restored).toEqual(state); // nothing in it fails to serialize
    const rec2 = recorder();
    const second = await runLoop(
      { state: restored, input: { answers: [{ id: 'call-1-1', kind: 'approve' }] } },
      makeDeps(fake, sched.scheduler),
      rec2.emit,
    );
    expect(second).toEqual({ status: 'success', finalText: 'all green' });
    expect(rec2.events[0]).toMatchObject({ type: 'init', resumed: true });
    expect(sched.resumes[0].open).toEqual(state.open);
    expect(restored.open).toBeUndefined();
    expect(fake.requests[1].body.contents.at(-1)).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'read_file', response: { output: 'ran read_file' } } },
        { functionResponse: { name: 'run_shell_command', response: { output: 'approved and ran run_shell_command' } } },
      ],
    });
    expect(restored.turns).toBe(2);
    expect(restored.models[MODEL].requests).toBe(2);
  });

  it('refuses answers when nothing is pending', async () => {
    const { fake, sched, rec } = await setup([]);
    const outcome = await runLoop(
      { state: newState(), input: { answers: [{ id: 'x', kind: 'approve' }] } },
      makeDeps(fake, sched.scheduler),
      rec.emit,
    );
    expect(outcome).toMatchObject({ status: 'error', error: { kind: 'input' } });
  });
});
