import { createHash } from 'node:crypto';
import { stableStringify } from '../common/json.js';
import type { FunctionCall } from '../model/wire.js';
import type { RunState } from './run-state.js';

/** Identical calls in a row that stop the run. Not configurable on purpose: it is a safety net. */
const LOOP_THRESHOLD = 5;

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

/** Turns in a row that bring no new tool call and no new text, and stop the run. A safety net too. */
const NO_PROGRESS_TURNS = 8;
/** Distinct calls and texts remembered (oldest forgotten first); the list is saved with the session. */
const SEEN_LIMIT = 512;

const digest = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);
const normalized = (text: string): string => text.replace(/\s+/g, ' ').trim();
const excerpt = (s: string): string => (s.length > 80 ? `${s.slice(0, 79)}…` : s);

/**
 * Record one model turn and say whether the session has stopped making progress: NO_PROGRESS_TURNS
 * turns in a row whose every call (name and arguments) and whose text were all seen before in the
 * session. Returns the message to stop with, naming what was repeated, or undefined. What was seen
 * lives in RunState, so a loop spanning suspend/resume is caught.
 */
export function recordTurn(
  state: RunState,
  turn: { calls: readonly FunctionCall[]; text: string },
): string | undefined {
  const progress = (state.progress ??= { seen: [], idleTurns: 0 });
  const text = normalized(turn.text);
  const items = [...turn.calls.map((c) => `call ${callKey(c)}`), ...(text ? [`text ${text}`] : [])].map(digest);
  const fresh = items.filter((d, i) => !progress.seen.includes(d) && items.indexOf(d) === i);
  progress.seen.push(...fresh);
  progress.seen.splice(0, progress.seen.length - SEEN_LIMIT);
  progress.idleTurns = fresh.length > 0 ? 0 : progress.idleTurns + 1;
  if (progress.idleTurns < NO_PROGRESS_TURNS) return undefined;
  const repeated = text ? `"${excerpt(text)}"` : turn.calls.map((c) => c.name).join(', ');
  return `loop detected: ${NO_PROGRESS_TURNS} turns in a row brought no new tool call and no new text (the last one repeated ${repeated}), so the run stopped`;
}
