import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/common/errors.js';
import { failedOutcome, outcomeOfError, reportOutcome, type ActionOutcome } from '../../src/action/report.js';

function report(o: ActionOutcome) {
  const outputs: Record<string, string> = {};
  const errors: Array<[string, Record<string, unknown>]> = [];
  let failed = 0;
  reportOutcome(o, {
    setOutput: (n, v) => void (outputs[n] = v),
    error: (m, p) => void errors.push([m, p]),
    markFailed: () => void failed++,
  });
  return { outputs, errors, failed };
}

const ALL_EMPTY = {
  'structured-output': '',
  'session-id': '',
  branch: '',
  'pull-request': '',
  'review-id': '',
  labels: '',
  turns: '0',
  tokens: '0',
  'cost-usd': '0',
  shards: '',
  'shard-count': '',
  'api-calls': '',
  error: '',
};

describe('reportOutcome', () => {
  it('a failed run: every output set, one annotation per problem with its own title, failed once', () => {
    const r = report(
      failedOutcome([
        { title: 'input approval-mode', message: 'input \'approval-mode\' is "x": expected ...' },
        { title: 'input max-turns', message: 'input \'max-turns\' is "y": expected ...' },
      ]),
    );
    expect(r.outputs).toEqual({
      status: 'failed',
      summary: 'input \'approval-mode\' is "x": expected ...',
      ...ALL_EMPTY,
      // run-gemini-cli's output: the first problem, on one line.
      error: 'input \'approval-mode\' is "x": expected ...',
    });
    expect(r.errors.map(([m, p]) => [p.title, m.slice(0, 23)])).toEqual([
      ['input approval-mode', "input 'approval-mode' i"],
      ['input max-turns', "input 'max-turns' is \"y"],
    ]);
    expect(r.failed).toBe(1);
  });

  it('a run the agent failed (no problems listed): one annotation, its summary’s first line', () => {
    const r = report({ result: { status: 'failed', summary: 'model error: quota\nmore detail' }, errors: [] });
    expect(r.errors).toEqual([
      ['model error: quota', { title: 'agent-action', file: undefined, startLine: undefined }],
    ]);
    expect(r.outputs.error).toBe('model error: quota');
    expect(r.failed).toBe(1);
  });

  it('success and skipped: outputs, no annotation, not failed', () => {
    for (const status of ['success', 'skipped', 'awaiting_approval'] as const) {
      const r = report({ result: { status, summary: 'ok' }, errors: [] });
      expect([r.outputs.status, r.outputs.error, r.errors, r.failed]).toEqual([status, '', [], 0]);
    }
  });
});

describe('outcomeOfError', () => {
  it('keeps an AgentError’s site, and each further detail is its own annotation', () => {
    const e = new AgentError('config', 'bad policy: a.toml:3:1: x (and 1 more)', {
      site: { file: 'a.toml', line: 3 },
      details: ['a.toml:3:1: x', 'b.toml:9:1: y'],
    });
    expect(outcomeOfError(e).errors).toEqual([
      { title: 'agent-action: config', message: 'bad policy: a.toml:3:1: x (and 1 more)', file: 'a.toml', line: 3 },
      { title: 'agent-action: config', message: 'b.toml:9:1: y' },
    ]);
  });

  it('anything else: its message, no stack', () => {
    const o = outcomeOfError(new TypeError('x is undefined'));
    expect(o).toEqual({
      result: { status: 'failed', summary: 'x is undefined' },
      errors: [{ title: 'agent-action', message: 'x is undefined' }],
    });
  });
});
