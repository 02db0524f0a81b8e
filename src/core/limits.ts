import { formatUsd } from '../model/pricing.js';
import type { LimitKind } from './events.js';
import type { RunState } from './run-state.js';

export interface LoopLimits {
  /** Model turns per session (all runs together). Default 100. */
  maxTurns?: number;
  /** `maxTurns` is Gemini CLI's `model.maxSessionTurns` setting: the limit's message is Gemini CLI's, naming it. */
  maxTurnsFromSettings?: boolean;
  /** Wall-clock budget per session, carried across suspend/resume. */
  maxWallMs?: number;
  maxCostUsd?: number;
  maxTotalTokens?: number;
}

export const DEFAULT_MAX_TURNS = 100;

export interface LimitHit {
  which: LimitKind;
  message: string;
}

const SETTINGS_TURNS_MESSAGE =
  'Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.';

const turnLimitMessage = (maxTurns: number, limits: LoopLimits): string =>
  limits.maxTurnsFromSettings ? SETTINGS_TURNS_MESSAGE : `reached the turn limit (${maxTurns} turns)`;

/** The first limit the session has reached, checked between turns. Pure. */
export function checkLimits(state: RunState, limits: LoopLimits, elapsedMs: number): LimitHit | undefined {
  const maxTurns = limits.maxTurns ?? DEFAULT_MAX_TURNS;
  if (state.turns >= maxTurns) return { which: 'turns', message: turnLimitMessage(maxTurns, limits) };
  if (limits.maxWallMs !== undefined && elapsedMs >= limits.maxWallMs) {
    return { which: 'time', message: `reached the time limit (${Math.round(limits.maxWallMs / 1000)} s)` };
  }
  if (limits.maxTotalTokens !== undefined && state.usage.totalTokens >= limits.maxTotalTokens) {
    return {
      which: 'tokens',
      message: `reached the token limit (${state.usage.totalTokens} of ${limits.maxTotalTokens} tokens)`,
    };
  }
  if (limits.maxCostUsd !== undefined && state.costUsd >= limits.maxCostUsd) {
    return {
      which: 'cost',
      message: `reached the cost limit ($${formatUsd(state.costUsd)} of $${formatUsd(limits.maxCostUsd)})`,
    };
  }
  return undefined;
}

export const timeLimitHit = (limits: LoopLimits): LimitHit => ({
  which: 'time',
  message: `reached the time limit (${Math.round((limits.maxWallMs ?? 0) / 1000)} s)`,
});
