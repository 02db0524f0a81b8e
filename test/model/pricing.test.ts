import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/model/classify.js';
import {
  contextWindowOf,
  DEFAULT_CONTEXT_WINDOW,
  estimateCostUsd,
  formatUsd,
  hasKnownPrice,
  roundUsd,
} from '../../src/model/pricing.js';
import { parseUsage } from '../../src/model/usage.js';
import type { Usage } from '../../src/model/wire.js';

const u = (inputTokens: number, outputTokens: number, cachedTokens = 0, thoughtTokens = 0): Usage => ({
  inputTokens,
  outputTokens,
  cachedTokens,
  thoughtTokens,
  totalTokens: inputTokens + outputTokens + thoughtTokens,
});

describe('estimateCostUsd', () => {
  it.each([
    ['gemini-2.5-flash', u(1_000_000, 0), 0.3],
    ['gemini-2.5-flash', u(0, 1_000_000), 2.5],
    ['gemini-2.5-flash', u(0, 500_000, 0, 500_000), 2.5], // thinking is billed as output
    ['gemini-2.5-flash', u(1_000_000, 0, 1_000_000), 0.03], // cached input priced apart
    ['gemini-2.5-flash-lite', u(1_000_000, 1_000_000), 0.5],
    ['gemini-2.5-pro', u(100_000, 0), 0.125],
    ['gemini-2.5-pro', u(300_000, 0), 0.75], // long-context rate above 200k
    ['gemini-3-pro-preview', u(100_000, 100_000), 1.4],
    ['gemini-3-pro-preview', u(1_000_000, 1_000_000), 22], // 4 + 18 above 200k
    ['models/gemini-2.5-flash', u(1_000_000, 0), 0.3],
    ['gemini-2.5-flash-preview-09-2025', u(1_000_000, 0), 0.3], // a dated variant takes its family's price
    ['gemini-2.5-flash-lite-preview-06-17', u(1_000_000, 0), 0.1], // and not the shorter family's
  ])('%s %o -> $%d', (model, usage, usd) => {
    expect(estimateCostUsd(model, usage)).toBeCloseTo(usd, 6);
  });

  it('prices an unknown model at 0 and says the price is unknown', () => {
    expect(estimateCostUsd('my-custom-model', u(1_000_000, 1_000_000))).toBe(0);
    expect(hasKnownPrice('my-custom-model')).toBe(false);
    expect(hasKnownPrice('gemini-2.5-pro')).toBe(true);
  });

  it('knows context windows, defaulting to 1,048,576', () => {
    expect(contextWindowOf('gemini-2.5-pro')).toBe(1_048_576);
    expect(contextWindowOf('unknown')).toBe(DEFAULT_CONTEXT_WINDOW);
  });
});

describe('parseUsage', () => {
  it('maps usageMetadata fields', () => {
    expect(
      parseUsage({
        promptTokenCount: 10,
        candidatesTokenCount: 4,
        cachedContentTokenCount: 3,
        thoughtsTokenCount: 2,
        totalTokenCount: 16,
      }),
    ).toEqual({
      inputTokens: 10,
      outputTokens: 4,
      cachedTokens: 3,
      thoughtTokens: 2,
      totalTokens: 16,
    });
  });
  it('sums the parts when the total is missing, and reads nothing as undefined', () => {
    expect(parseUsage({ promptTokenCount: 10, candidatesTokenCount: 4 })?.totalTokens).toBe(14);
    expect(parseUsage(undefined)).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['7', 7000],
    ['0.5', 500],
    ['Wed, 21 Oct 2015 07:28:10 GMT', 10_000],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s -> %s', (value, ms) => {
    expect(parseRetryAfter(value, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(ms);
  });
});

describe('roundUsd and formatUsd', () => {
  it.each([
    [0.00014000000000000001, 0.00014, '0.00014'],
    [0.00011999999999999999, 0.00012, '0.00012'],
    [0.0001925, 0.000193, '0.000193'],
    [0.0000004, 0, '0'],
    [0.0000005, 0.000001, '0.000001'],
    [12.3456789, 12.345679, '12.345679'],
    [0.1 + 0.2, 0.3, '0.3'],
    [0, 0, '0'],
  ])('%d is %d, printed %s', (usd, rounded, text) => {
    expect(roundUsd(usd)).toBe(rounded);
    expect(formatUsd(usd)).toBe(text);
  });
});
