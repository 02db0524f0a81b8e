import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/common/errors.js';
import type { LoopEvent, RunStats } from '../../src/core/events.js';
import { createSessionMetrics } from '../../src/cli/metrics.js';
import { createOutputWriter, describeError, exitCodeOf } from '../../src/cli/output.js';

const stats: RunStats = {
  turns: 3,
  inputTokens: 450,
  outputTokens: 23,
  cachedTokens: 20,
  thoughtTokens: 5,
  totalTokens: 478,
  costUsd: 0.00014000000000000001,
  toolCalls: 2,
  durationMs: 42,
  models: { 'gemini-2.5-pro': { inputTokens: 450, outputTokens: 23, totalTokens: 478, requests: 3 } },
};

/** Three turns, text in each: the first two end in a tool call, the last is the answer. */
const events: LoopEvent[] = [
  { type: 'init', sessionId: 's-1', model: 'gemini-2.5-pro', resumed: false },
  { type: 'message', role: 'user', text: 'do it', delta: false },
  { type: 'message', role: 'assistant', text: 'Reading', delta: true },
  { type: 'message', role: 'assistant', text: ' the file.', delta: true },
  { type: 'tool_use', id: 'c1', name: 'read_file', args: { file_path: 'a.txt' } },
  { type: 'tool_state', id: 'c1', name: 'read_file', status: 'executing' },
  {
    type: 'tool_result',
    id: 'c1',
    name: 'read_file',
    ok: false,
    output: '',
    error: { code: 'not_found', message: 'no such file: a.txt' },
  },
  { type: 'message', role: 'assistant', text: 'Listing.\n', delta: true },
  { type: 'tool_use', id: 'c2', name: 'list_directory', args: { dir_path: '.' } },
  { type: 'tool_result', id: 'c2', name: 'list_directory', ok: true, output: 'b.txt' },
  { type: 'warning', message: 'slow' },
  { type: 'message', role: 'assistant', text: 'It is b.txt.', delta: true },
  { type: 'result', outcome: { status: 'success', finalText: 'It is b.txt.' }, stats },
];

function capture(format: 'text' | 'json' | 'stream-json') {
  const out: string[] = [];
  const err: string[] = [];
  const metrics = createSessionMetrics(() => 0);
  metrics.recordApiCall({
    model: 'gemini-2.5-pro',
    role: 'main',
    latencyMs: 30,
    usage: { inputTokens: 100, outputTokens: 10, cachedTokens: 20, thoughtTokens: 5, totalTokens: 115 },
  });
  metrics.recordApiCall({ model: 'gemini-2.5-pro', role: 'main', latencyMs: 12, error: 'rate_limited' });
  const w = createOutputWriter(format, {
    io: { stdout: (t) => out.push(t), stderr: (t) => err.push(t) },
    metrics,
    now: () => 1000,
  });
  return { w, out, err };
}

const parseLines = (out: string[]) =>
  out
    .join('')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('stream-json', () => {
  it('emits init first, the user message once, and Gemini CLI key order (type, timestamp, fields)', () => {
    const { w, out } = capture('stream-json');
    events.forEach(w.emit);
    const lines = parseLines(out);
    for (const l of lines) {
      expect(Object.keys(l).slice(0, 2)).toEqual(['type', 'timestamp']);
      expect(l.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const strip = lines.map(({ timestamp: _t, ...rest }) => rest);
    expect(strip).toEqual([
      { type: 'init', session_id: 's-1', model: 'gemini-2.5-pro' },
      { type: 'message', role: 'user', content: 'do it' },
      { type: 'message', role: 'assistant', content: 'Reading', delta: true },
      { type: 'message', role: 'assistant', content: ' the file.', delta: true },
      { type: 'tool_use', tool_name: 'read_file', tool_id: 'c1', parameters: { file_path: 'a.txt' } },
      {
        type: 'tool_result',
        tool_id: 'c1',
        status: 'error',
        output: '',
        error: { type: 'file_not_found', message: 'no such file: a.txt' },
      },
      { type: 'message', role: 'assistant', content: 'Listing.\n', delta: true },
      { type: 'tool_use', tool_name: 'list_directory', tool_id: 'c2', parameters: { dir_path: '.' } },
      { type: 'tool_result', tool_id: 'c2', status: 'success', output: 'b.txt' },
      { type: 'error', severity: 'warning', message: 'slow' },
      { type: 'message', role: 'assistant', content: 'It is b.txt.', delta: true },
      {
        type: 'result',
        status: 'success',
        stats: {
          total_tokens: 115,
          input_tokens: 100,
          output_tokens: 10,
          cached: 20,
          input: 80,
          duration_ms: 42,
          tool_calls: 2,
          models: {
            'gemini-2.5-pro': { total_tokens: 115, input_tokens: 100, output_tokens: 10, cached: 20, input: 80 },
          },
          cost_usd: 0.00014,
        },
      },
    ]);
    // Key order inside stats is Gemini CLI's, cost_usd (ours) last.
    expect(Object.keys((strip.at(-1) as { stats: object }).stats)).toEqual([
      'total_tokens',
      'input_tokens',
      'output_tokens',
      'cached',
      'input',
      'duration_ms',
      'tool_calls',
      'models',
      'cost_usd',
    ]);
  });

  it('reports a turn limit as an error result with Gemini CLI error type', () => {
    const { w, out } = capture('stream-json');
    w.emit({
      type: 'result',
      outcome: { status: 'limit', which: 'turns', message: 'reached the turn limit (3)' },
      stats,
    });
    expect(JSON.parse(out[0]!)).toMatchObject({
      type: 'result',
      status: 'error',
      error: { type: 'FatalTurnLimitedError', message: 'reached the turn limit (3)' },
    });
    expect(JSON.parse(out[0]!).error).not.toHaveProperty('code');
  });

  it('reports a failure before the loop as one error result with zero stats', () => {
    const { w, out } = capture('stream-json');
    w.fail(new AgentError('auth', 'no API key: set GEMINI_API_KEY'));
    expect(out).toHaveLength(1);
    const { timestamp: _t, ...rest } = JSON.parse(out[0]!);
    expect(rest).toMatchObject({
      type: 'result',
      status: 'error',
      error: { type: 'FatalAuthenticationError', message: 'no API key: set GEMINI_API_KEY' },
    });
    expect(rest.stats).toMatchObject({ tool_calls: 0, cost_usd: 0 });
  });

  it('strips terminal escape sequences from the model text', () => {
    const { w, out } = capture('stream-json');
    w.emit({ type: 'message', role: 'assistant', text: 'ok\u001b[2J\u001b]0;pwned\u0007', delta: true });
    expect(JSON.parse(out[0]!).content).toBe('ok');
  });
});

describe('json', () => {
  it('prints one object: session_id, the last turn as response, Gemini CLI stats, warnings; no newline after', () => {
    const { w, out } = capture('json');
    events.forEach(w.emit);
    expect(out).toHaveLength(1);
    expect(out[0]!.endsWith('}')).toBe(true);
    const o = JSON.parse(out[0]!);
    expect(Object.keys(o)).toEqual(['session_id', 'response', 'stats', 'warnings']);
    expect(o.session_id).toBe('s-1');
    expect(o.response).toBe('It is b.txt.');
    expect(o.warnings).toEqual(['slow']);
    expect(o.stats.models['gemini-2.5-pro']).toEqual({
      api: { totalRequests: 2, totalErrors: 1, totalLatencyMs: 42, errorsByType: { rate_limited: 1 } },
      tokens: { input: 80, prompt: 100, candidates: 10, total: 115, cached: 20, thoughts: 5, tool: 0 },
      roles: {
        main: {
          totalRequests: 2,
          totalErrors: 1,
          totalLatencyMs: 42,
          tokens: { input: 80, prompt: 100, candidates: 10, total: 115, cached: 20, thoughts: 5, tool: 0 },
        },
      },
    });
    expect(o.stats.tools).toMatchObject({
      totalCalls: 2,
      totalSuccess: 1,
      totalFail: 1,
      byName: { read_file: { count: 1, fail: 1 }, list_directory: { count: 1, success: 1 } },
    });
    expect(o.stats.cost_usd).toBe(0.00014);
  });

  it('prints session_id, stats and error (with the exit code) when the run fails', () => {
    const { w, out } = capture('json');
    w.emit(events[0]!);
    w.emit({
      type: 'result',
      outcome: { status: 'error', error: new AgentError('auth', 'the Gemini API refused the credentials') },
      stats,
    });
    const o = JSON.parse(out[0]!);
    expect(Object.keys(o)).toEqual(['session_id', 'stats', 'error']);
    expect(o.error).toEqual({
      type: 'FatalAuthenticationError',
      message: 'the Gemini API refused the credentials',
      code: 41,
    });
  });

  it('prints an error object for a failure before the loop, each diagnostic once', () => {
    const { w, out } = capture('json');
    const first = 'p.toml:3:1: error: priority must be an integer';
    const second = 'p.toml:9:1: error: decision is missing';
    w.fail(new AgentError('config', `bad policy: ${first}`, { details: [first, second] }));
    expect(JSON.parse(out[0]!)).toEqual({
      error: { type: 'FatalConfigError', message: `bad policy: ${first}\n${second}`, code: 52 },
    });
  });
});

describe('text', () => {
  it("prints each turn's text on its own line, problems to stderr", () => {
    const { w, out, err } = capture('text');
    events.forEach(w.emit);
    expect(out.join('')).toBe('Reading the file.\nListing.\nIt is b.txt.\n');
    expect(err.join('')).toBe('[read_file] no such file: a.txt\nWarning: slow\n');
  });

  it('adds no blank line for a turn with no text, and ends with one newline', () => {
    const { w, out } = capture('text');
    w.emit({ type: 'tool_use', id: 'c1', name: 'glob', args: {} });
    w.emit({ type: 'message', role: 'assistant', text: 'done', delta: true });
    w.emit({ type: 'result', outcome: { status: 'success', finalText: 'done' }, stats });
    expect(out.join('')).toBe('done\n');
  });

  it('prints an error once on stderr', () => {
    const { w, out, err } = capture('text');
    w.emit({
      type: 'result',
      outcome: { status: 'limit', which: 'time', message: 'reached the time limit (1 min)' },
      stats,
    });
    expect(out.join('')).toBe('');
    expect(err.join('')).toBe('Error: reached the time limit (1 min)\n');
  });
});

describe('errors', () => {
  it('describeError names each problem once', () => {
    expect(describeError(new AgentError('config', 'bad policy: a.toml:1:1: x', { details: ['a.toml:1:1: x'] }))).toBe(
      'bad policy: a.toml:1:1: x',
    );
    expect(
      describeError(
        new AgentError('config', 'bad policy: a.toml:1:1: x', { details: ['a.toml:1:1: x', 'b.toml:2:1: y'] }),
      ),
    ).toBe('bad policy: a.toml:1:1: x\nb.toml:2:1: y');
  });

  it.each([
    [{ status: 'success', finalText: '' }, 0],
    [{ status: 'limit', which: 'cost', message: 'x' }, 53],
    [{ status: 'cancelled' }, 130],
    [{ status: 'error', error: new AgentError('auth', 'x') }, 41],
    [{ status: 'error', error: new AgentError('fatal_tool', 'x') }, 54],
  ] as const)('exit code of %j is %i', (outcome, code) => {
    expect(exitCodeOf(outcome)).toBe(code);
  });
});

describe('stream-json: sub-agent events', () => {
  it("nests a sub-agent's events under the invoke_agent call, in one `subagent` line each, and keeps them out of text and json", () => {
    const childStats: RunStats = {
      ...stats,
      turns: 2,
      inputTokens: 300,
      outputTokens: 40,
      totalTokens: 340,
      costUsd: 0.0001234567,
      toolCalls: 1,
      durationMs: 7,
    };
    const nested: LoopEvent[] = [
      { type: 'init', sessionId: 's-1/m1', model: 'gemini-2.5-pro', resumed: false },
      { type: 'message', role: 'assistant', text: 'Looking.', delta: true },
      { type: 'tool_use', id: 'c1', name: 'read_file', args: { file_path: 'a.txt' } },
      { type: 'tool_state', id: 'c1', name: 'read_file', status: 'executing' },
      { type: 'tool_result', id: 'c1', name: 'read_file', ok: true, output: 'alpha' },
      { type: 'result', outcome: { status: 'success', finalText: 'done' }, stats: childStats },
    ];
    const wrap = (event: LoopEvent): LoopEvent => ({
      type: 'subagent',
      parentId: 'm1',
      agent: 'codebase_investigator',
      event,
    });
    const { w, out } = capture('stream-json');
    nested.map(wrap).forEach(w.emit);
    const lines = parseLines(out);
    expect(lines.map((l) => ({ ...l, timestamp: undefined }))).toEqual([
      {
        type: 'subagent',
        timestamp: undefined,
        parent_tool_id: 'm1',
        agent: 'codebase_investigator',
        event: { type: 'init', session_id: 's-1/m1', model: 'gemini-2.5-pro' },
      },
      {
        type: 'subagent',
        timestamp: undefined,
        parent_tool_id: 'm1',
        agent: 'codebase_investigator',
        event: { type: 'message', role: 'assistant', content: 'Looking.', delta: true },
      },
      {
        type: 'subagent',
        timestamp: undefined,
        parent_tool_id: 'm1',
        agent: 'codebase_investigator',
        event: { type: 'tool_use', tool_name: 'read_file', tool_id: 'c1', parameters: { file_path: 'a.txt' } },
      },
      {
        type: 'subagent',
        timestamp: undefined,
        parent_tool_id: 'm1',
        agent: 'codebase_investigator',
        event: { type: 'tool_result', tool_id: 'c1', status: 'success', output: 'alpha' },
      },
      {
        type: 'subagent',
        timestamp: undefined,
        parent_tool_id: 'm1',
        agent: 'codebase_investigator',
        event: {
          type: 'result',
          status: 'success',
          stats: {
            total_tokens: 340,
            input_tokens: 300,
            output_tokens: 40,
            duration_ms: 7,
            tool_calls: 1,
            cost_usd: 0.000123,
          },
        },
      },
    ]);
    const text = capture('text');
    nested.map(wrap).forEach(text.w.emit);
    expect(text.out).toEqual([]);
  });
});
