import prices from './prices.json' with { type: 'json' };
import type { Usage } from './wire.js';

interface Rates {
  input: number;
  output: number;
  cachedInput: number;
}
export interface ModelPrice extends Rates {
  contextWindow: number;
  longContext?: Rates & { thresholdTokens: number };
}

export const DEFAULT_CONTEXT_WINDOW = 1_048_576;

const TABLE = prices.models as Record<string, ModelPrice>;

/** The table entry for a model id: exact, or the longest known id it extends (`<id>-...`). */
function tryPriceOf(model: string): ModelPrice | undefined {
  const id = model.replace(/^models\//, '');
  if (TABLE[id]) return TABLE[id];
  let best: string | undefined;
  for (const known of Object.keys(TABLE)) {
    if (id.startsWith(`${known}-`) && (!best || known.length > best.length)) best = known;
  }
  return best ? TABLE[best] : undefined;
}

/** Whether `estimateCostUsd` knows this model; an unknown model's cost reads as 0. */
export const hasKnownPrice = (model: string): boolean => tryPriceOf(model) !== undefined;

export const contextWindowOf = (model: string): number => tryPriceOf(model)?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;

/**
 * USD for one request's usage. Cached input is priced apart from fresh input; output includes
 * thinking tokens. Unknown model: 0 (check `hasKnownPrice` to say "unknown price").
 */
export function estimateCostUsd(model: string, usage: Usage): number {
  const price = tryPriceOf(model);
  if (!price) return 0;
  const long = price.longContext;
  const rates: Rates = long && usage.inputTokens > long.thresholdTokens ? long : price;
  const cached = Math.min(usage.cachedTokens, usage.inputTokens);
  const usd =
    (usage.inputTokens - cached) * rates.input +
    cached * rates.cachedInput +
    (usage.outputTokens + usage.thoughtTokens) * rates.output;
  return usd / 1_000_000;
}

/**
 * A money figure as people and programs read it: rounded to 6 decimals (a millionth of a dollar,
 * below any price step), so float sums never show as `0.00014000000000000001`.
 */
export const roundUsd = (usd: number): number => Math.round(usd * 1_000_000) / 1_000_000;

/** `roundUsd` as text, never in exponent notation: "0.00014", "12.5", "0". */
export const formatUsd = (usd: number): string => String(roundUsd(usd));
