import { stableStringify } from '../common/json.js';
import type { FunctionCall } from '../model/wire.js';
import type { RunState } from './run-state.js';

/** Identical calls in a row that stop the run. Not configurable on purpose: it is a safety net. */
export const LOOP_THRESHOLD = 5;

export const callKey = (call: FunctionCall): string => `${call.name} ${stableStringify(call.args ?? {})}`;

/**
 * Record a batch's calls (in the model's order) and say whether the session is now looping: the
 * last LOOP_THRESHOLD calls are the same name with the same arguments. Returns the message to stop
 * with, or undefined. The window lives in RunState, so a loop spanning suspend/resume is caught.
 */
export function recordCalls(state: RunState, calls: readonly FunctionCall[]): string | undefined {
  for (const call of calls) {
    state.recentCalls.push(callKey(call));
    // Keep the last LOOP_THRESHOLD keys (a count <= 0 removes nothing; a saved window may be longer).
    state.recentCalls.splice(0, state.recentCalls.length - LOOP_THRESHOLD);
    const [first] = state.recentCalls;
    if (state.recentCalls.length === LOOP_THRESHOLD && state.recentCalls.every((k) => k === first)) {
      return `loop detected: the model called ${call.name} with the same arguments ${LOOP_THRESHOLD} times in a row, so the run stopped`;
    }
  }
  return undefined;
}
