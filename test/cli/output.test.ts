import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/common/errors.js';
import type { LoopEvent, RunStats } from '../../src/core/events.js';
import { createOutputWriter } from '../../src/cli/output.js';

const stats: RunStats = {
  turns: 2,
  inputTokens: 120,
  outputTokens: 30,
  cachedTokens: 20,
  thoughtTokens: 5,
  totalTokens: 155,
  costUsd: 0.001,
  toolCalls: 1,
  durationMs: 42,
  models: { 'gemini-2.5-pro': { inputTokens: 120, outputTokens: 30, totalTokens: 155, requests: 2 } },
};

const events: LoopEvent[] = [
  { type: 'init', sessionId: 's-1', model: 'gemini-2.5-pro', resumed: false },
  { type: 'message', role: 'assistant', text: 'Reading', delta: true },
  { type: 'tool_use', id: 'c1', name: 'read_file', args: { file_path: 'a.txt' } },
  { type: 'tool_state', id: 'c1', name: 'read_file', status: 'executing' },
  { type: 'tool_result', id: 'c1', name: 'read_file', ok: false, output: '', error: { code: 'not_found', message: 'no such file: a.txt' } },
  { type: 'warning', message: 'slow' },
  { type: 'message', role: 'assistant', text: ' done.', delta: true },
  { type: 'result', outcome: { status: 'success', finalText: 'Reading done.' }, stats },
];

function capture(format: 'text' | 'json' | 'stream-json') {
  const out: string[] = [];
  const err: string[] = [];
  const w = createOutputWriter(format, { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
  return { w, out, err };
}

describe('stream-json', () => {
  it('speaks Gemini CLI vocabulary, one JSON object per line with a timestamp', () => {
    const { w, out } = capture('stream-json');
    w.prompt('do it');
    events.forEach(w.emit);
    const lines = out.join('').trimEnd().split('\n').map((l) => JSON.parse(l));
    for (const l of lines) expect(l.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    const strip = lines.map(({ timestamp: _t, ...rest }) => rest);
    expect(strip).toEqual([
      { type: 'message', role: 'user', content: 'do it' },
      { type: 'init', session_id: 's-1', model: 'gemini-2.5-pro' },
      { type: 'message', role: 'assistant', content: 'Reading', delta: true },
      { type: 'tool_use', tool_name: 'read_file', tool_id: 'c1', parameters: { file_path: 'a.txt' } },
      { type: 'tool_result', tool_id: 'c1', status: 'error', output: '', error: { type: 'not_found', message: 'no such file: a.txt' } },
      { type: 'error', severity: 'warning', message: 'slow' },
      { type: 'message', role: 'assistant', content: ' done.', delta: true },
      {
        type: 'result',
        status: 'success',
        stats: {
          total_tokens: 155,
          input_tokens: 120,
          output_tokens: 30,
          cached: 20,
          input: 100,
          duration_ms: 42,
          tool_calls: 1,
          cost_usd: 0.001,
          models: { 'gemini-2.5-pro': { total_tokens: 155, input_tokens: 120, output_tokens: 30, requests: 2 } },
        },
      },
    ]);
  });

  it('reports a limit as an error result', () => {
    const { w, out } = capture('stream-json');
    w.emit({ type: 'result', outcome: { status: 'limit', which: 'turns', message: 'reached the turn limit (3)' }, stats });
    expect(JSON.parse(out[0]!)).toMatchObject({ type: 'result', status: 'error', error: { type: 'limit_turns', message: 'reached the turn limit (3)' } });
  });
});

describe('json', () => {
  it('prints one object at the end with the response, stats and tool counts', () => {
    const { w, out } = capture('json');
    events.forEach(w.emit);
    expect(out).toHaveLength(1);
    const o = JSON.parse(out[0]!);
    expect(o.session_id).toBe('s-1');
    expect(o.response).toBe('Reading done.');
    expect(o.stats.tools).toMatchObject({ totalCalls: 1, totalFail: 1, byName: { read_file: { count: 1, fail: 1 } } });
    expect(o.stats.models['gemini-2.5-pro'].tokens).toEqual({ prompt: 120, candidates: 30, total: 155 });
    expect(o.error).toBeUndefined();
  });

  it('prints an error object for a failure before the loop', () => {
    const { w, out } = capture('json');
    w.fail(new AgentError('config', 'policy.toml:3:1: priority must be an integer'));
    expect(JSON.parse(out[0]!)).toEqual({ error: { type: 'config', message: 'policy.toml:3:1: priority must be an integer', code: 52 } });
  });
});

describe('text', () => {
  it('streams assistant text to stdout and problems to stderr', () => {
    const { w, out, err } = capture('text');
    events.forEach(w.emit);
    expect(out.join('')).toBe('Reading done.\n');
    expect(err.join('')).toContain('no such file: a.txt');
    expect(err.join('')).toContain('Warning: slow');
  });
});
