import { describe, expect, it } from 'vitest';
import { createSessionMetrics, streamStatsOf } from '../../src/cli/metrics.js';
import { ModelFailure, type ModelChunk, type ModelClient, type ModelRequest } from '../../src/model/client.js';

/** A client whose every request takes 25 ms on the fake clock and then answers or fails. */
function scriptedClient(clock: { t: number }, replies: Array<ModelChunk[] | ModelFailure>): ModelClient {
  return {
    async *stream() {
      clock.t += 25;
      const r = replies.shift();
      if (!r) throw new Error('script exhausted');
      if (r instanceof ModelFailure) throw r;
      yield* r;
    },
  };
}

const request = (tools: number): ModelRequest => ({
  model: 'gemini-2.5-flash',
  systemInstruction: '',
  tools: Array.from({ length: tools }, (_, i) => ({ name: `t${i}`, description: '', parametersJsonSchema: {} })),
  contents: [],
  signal: new AbortController().signal,
});

async function drain(it: AsyncIterable<ModelChunk>): Promise<unknown> {
  try {
    for await (const _ of it);
    return undefined;
  } catch (e) {
    return e;
  }
}

describe('session metrics', () => {
  it('times each request, takes the last usage, counts failures by kind and splits roles', async () => {
    const clock = { t: 0 };
    const m = createSessionMetrics(() => clock.t);
    const client = m.wrap(
      scriptedClient(clock, [
        [
          {
            parts: [{ text: 'a' }],
            usage: { inputTokens: 50, outputTokens: 1, cachedTokens: 0, thoughtTokens: 0, totalTokens: 51 },
          },
          {
            parts: [{ text: 'b' }],
            usage: { inputTokens: 100, outputTokens: 8, cachedTokens: 40, thoughtTokens: 3, totalTokens: 111 },
          },
        ],
        new ModelFailure('server', 'HTTP 503'),
        [
          {
            parts: [{ text: 'snapshot' }],
            usage: { inputTokens: 7, outputTokens: 2, cachedTokens: 0, thoughtTokens: 0, totalTokens: 9 },
          },
        ],
      ]),
    );
    expect(await drain(client.stream(request(2)))).toBeUndefined();
    expect(await drain(client.stream(request(2)))).toMatchObject({ kind: 'server' });
    expect(await drain(client.stream(request(0)))).toBeUndefined();
    const s = m.snapshot();
    expect(s.models['gemini-2.5-flash']!.api).toEqual({
      totalRequests: 3,
      totalErrors: 1,
      totalLatencyMs: 75,
      errorsByType: { server: 1 },
    });
    expect(s.models['gemini-2.5-flash']!.tokens).toEqual({
      input: 67,
      prompt: 107,
      candidates: 10,
      total: 120,
      cached: 40,
      thoughts: 3,
      tool: 0,
    });
    expect(Object.keys(s.models['gemini-2.5-flash']!.roles)).toEqual(['main', 'utility_compressor']);
    expect(s.models['gemini-2.5-flash']!.roles.main).toMatchObject({
      totalRequests: 2,
      totalErrors: 1,
      tokens: { prompt: 100 },
    });
    expect(streamStatsOf(s, 9)).toEqual({
      total_tokens: 120,
      input_tokens: 107,
      output_tokens: 10,
      cached: 40,
      input: 67,
      duration_ms: 9,
      tool_calls: 0,
      models: {
        'gemini-2.5-flash': { total_tokens: 120, input_tokens: 107, output_tokens: 10, cached: 40, input: 67 },
      },
    });
  });

  it('counts tool calls with durations from executing to result, and policy decisions', () => {
    const clock = { t: 0 };
    const m = createSessionMetrics(() => clock.t);
    m.observe({ type: 'tool_use', id: 'a', name: 'run_shell_command', args: {} });
    m.observe({ type: 'tool_state', id: 'a', name: 'run_shell_command', status: 'scheduled' });
    m.observe({ type: 'tool_state', id: 'a', name: 'run_shell_command', status: 'executing' });
    clock.t = 40;
    m.observe({ type: 'tool_result', id: 'a', name: 'run_shell_command', ok: true, output: 'ok' });
    m.observe({ type: 'tool_state', id: 'b', name: 'run_shell_command', status: 'denied' });
    m.observe({
      type: 'tool_result',
      id: 'b',
      name: 'run_shell_command',
      ok: false,
      output: 'denied',
      error: { code: 'denied', message: 'denied' },
    });
    m.observe({
      type: 'tool_result',
      id: 'c',
      name: 'read_file',
      ok: false,
      output: '',
      error: { code: 'invalid_args', message: 'bad' },
    });
    const { tools } = m.snapshot();
    expect(tools).toEqual({
      totalCalls: 3,
      totalSuccess: 1,
      totalFail: 2,
      totalDurationMs: 40,
      totalDecisions: { accept: 1, reject: 1, modify: 0, auto_accept: 0 },
      byName: {
        run_shell_command: {
          count: 2,
          success: 1,
          fail: 1,
          durationMs: 40,
          decisions: { accept: 1, reject: 1, modify: 0, auto_accept: 0 },
        },
        read_file: {
          count: 1,
          success: 0,
          fail: 1,
          durationMs: 0,
          decisions: { accept: 0, reject: 0, modify: 0, auto_accept: 0 },
        },
      },
    });
  });
});
