import { estimateCostUsd } from '../model/pricing.js';
import { addUsage } from '../model/usage.js';
import type { Usage } from '../model/wire.js';
import type { RunStats } from './events.js';
import type { RunState } from './run-state.js';

/** Fold one request's usage into the session: totals, per-model counts, cost, last prompt size. */
export function recordUsage(state: RunState, model: string, usage: Usage): void {
  state.usage = addUsage(state.usage, usage);
  state.costUsd += estimateCostUsd(model, usage);
  state.lastPromptTokens = usage.inputTokens;
  const m = (state.models[model] ??= { inputTokens: 0, outputTokens: 0, totalTokens: 0, requests: 0 });
  m.inputTokens += usage.inputTokens;
  m.outputTokens += usage.outputTokens;
  m.totalTokens += usage.totalTokens;
  m.requests += 1;
}

export function statsOf(state: RunState, durationMs: number): RunStats {
  return {
    turns: state.turns,
    inputTokens: state.usage.inputTokens,
    outputTokens: state.usage.outputTokens,
    cachedTokens: state.usage.cachedTokens,
    thoughtTokens: state.usage.thoughtTokens,
    totalTokens: state.usage.totalTokens,
    costUsd: state.costUsd,
    toolCalls: state.toolCalls,
    durationMs,
    models: structuredClone(state.models),
  };
}
