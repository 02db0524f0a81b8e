/** Every money figure a person or a workflow reads is rounded to 6 decimals (no float noise). */
import { describe, expect, it } from 'vitest';
import { setOutputs } from '../../src/action/outputs.js';
import { renderResultTable } from '../../src/action/progress-comment.js';
import type { RunStats } from '../../src/core/events.js';
import { checkLimits } from '../../src/core/limits.js';
import { createRunState } from '../../src/core/run-state.js';

const stats = (costUsd: number): RunStats => ({
  turns: 2,
  inputTokens: 250,
  outputTokens: 18,
  cachedTokens: 0,
  thoughtTokens: 0,
  totalTokens: 268,
  costUsd,
  toolCalls: 1,
  durationMs: 4000,
  models: {},
});

describe('money figures', () => {
  it('sets the cost-usd output to the rounded figure', () => {
    const outputs: Record<string, string> = {};
    setOutputs({ status: 'success', summary: 'ok', stats: stats(0.00014000000000000001) }, (k, v) => (outputs[k] = v));
    expect(outputs['cost-usd']).toBe('0.00014');
  });

  it('keeps a cheap run visible: six decimals, not four', () => {
    const outputs: Record<string, string> = {};
    setOutputs({ status: 'success', summary: 'ok', stats: stats(0.0000371) }, (k, v) => (outputs[k] = v));
    expect(outputs['cost-usd']).toBe('0.000037');
  });

  it('prints the rounded cost in the result table (progress comment and job summary)', () => {
    const table = renderResultTable({ status: 'success', summary: 'ok' }, stats(0.00011999999999999999), 4000);
    expect(table).toContain('| Cost | $0.00012 |');
  });

  it('rounds the figures in the cost limit message', () => {
    const state = createRunState('s', 'gemini-2.5-pro', 'default');
    state.costUsd = 0.30000000000000004;
    expect(checkLimits(state, { maxCostUsd: 0.3 }, 0)).toEqual({
      which: 'cost',
      message: 'reached the cost limit ($0.3 of $0.3)',
    });
  });
});
