import type { Usage } from './wire.js';

/** The wire's `usageMetadata` fields this project reads. */
export interface UsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/**
 * usageMetadata -> Usage. `inputTokens` is the whole prompt (cached tokens included, as the API
 * counts them); `totalTokens` is the API's total when given, else the sum of the parts.
 */
export function parseUsage(meta: UsageMetadata | undefined): Usage | undefined {
  if (!meta || typeof meta !== 'object') return undefined;
  const inputTokens = n(meta.promptTokenCount) + n(meta.toolUsePromptTokenCount);
  const outputTokens = n(meta.candidatesTokenCount);
  const thoughtTokens = n(meta.thoughtsTokenCount);
  return {
    inputTokens,
    outputTokens,
    cachedTokens: n(meta.cachedContentTokenCount),
    thoughtTokens,
    totalTokens: n(meta.totalTokenCount) || inputTokens + outputTokens + thoughtTokens,
  };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    thoughtTokens: a.thoughtTokens + b.thoughtTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
