import { messageOf } from '../common/errors.js';
import type { Part } from '../model/wire.js';
import type { ToolError, ToolErrorCode, ToolKind } from '../tools/define-tool.js';
import type { Call } from './call-state.js';

/**
 * Pure pieces of a batch: which calls may run together, how a settled call reads to the model,
 * how a batch's output is cut to its budget, and the repeated-validation streak.
 */

/** What decides where a call may run: its tool's kind and the model's `wait_for_previous`. */
export interface Placement {
  kind: ToolKind | undefined;
  waitForPrevious?: boolean;
}

/**
 * Gemini CLI's rule: an edit, or a call the model marked `wait_for_previous: true`, runs alone, after
 * everything before it and before everything after it; every other call may run beside its neighbours.
 * Edits never overlap, whatever the model says, so two edits of one file cannot race.
 */
const runsAlone = (p: Placement): boolean => p.kind === 'edit' || p.waitForPrevious === true;

/** Split positions 0..n-1 into runs: consecutive calls that may overlap share a group; the rest run alone. */
export function groupCalls(placements: readonly Placement[]): number[][] {
  const groups: number[][] = [];
  let open: number[] | undefined;
  placements.forEach((p, i) => {
    if (runsAlone(p)) {
      open = undefined;
      groups.push([i]);
    } else {
      if (!open) groups.push((open = []));
      open.push(i);
    }
  });
  return groups;
}

/** Run `fn` over items with at most `limit` in flight; resolves when all have finished. */
export async function runLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++];
      await fn(item);
    }
  };
  const width = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: width }, worker));
}

/** What a thrown value means for the model: a ToolFailure keeps its code, anything else is 'failed'. */
export function toolErrorOf(e: unknown): ToolError {
  if (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ToolFailure') {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return { code: code as ToolErrorCode, message: messageOf(e) };
  }
  return { code: 'failed', message: messageOf(e) };
}

/** The text a settled call shows the model, and whether it is an error. */
export function responseTextOf(call: Call): { text: string; isError: boolean } {
  switch (call.status) {
    case 'succeeded':
      return { text: call.output.length > 0 ? call.output : '(the tool returned no output)', isError: false };
    case 'failed':
      return { text: call.error.message || `${call.base.name} failed (${call.error.code})`, isError: true };
    case 'denied':
      return { text: call.reason || `${call.base.name} was not run: policy denied it.`, isError: true };
    case 'cancelled':
      return { text: `${call.base.name} was cancelled: ${call.reason}`, isError: true };
    default:
      return { text: `${call.base.name} did not finish (${call.status})`, isError: true };
  }
}

/** One functionResponse part, `{ output }` or `{ error }`, echoing the model's id when it sent one. */
function responsePartOf(call: Call, text: string, isError: boolean): Part {
  const functionResponse: NonNullable<Part['functionResponse']> = {
    name: call.base.name,
    response: isError ? { error: text } : { output: text },
  };
  if (call.base.wireId !== undefined) functionResponse.id = call.base.wireId;
  return { functionResponse };
}

/**
 * Per-output caps so the total fits `budget`, cutting the largest first ("water-filling": every
 * output longer than one common cap is cut to it; shorter ones stay whole). undefined: not cut.
 */
export function fitToBudget(lengths: readonly number[], budget: number): (number | undefined)[] {
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total <= budget) return lengths.map(() => undefined);
  const sorted = [...lengths].sort((a, b) => b - a);
  let cap = 0;
  let rest = total;
  for (let k = 1; k <= sorted.length; k++) {
    rest -= sorted[k - 1];
    const nextLen = k < sorted.length ? sorted[k] : 0;
    const candidate = Math.floor((budget - rest) / k);
    if (candidate >= nextLen) {
      cap = Math.max(0, candidate);
      break;
    }
  }
  return lengths.map((len) => (len > cap ? cap : undefined));
}

/** Keep the head of a cut output and say so, so the model knows to ask for less. */
export function cutText(text: string, cap: number, budget: number): string {
  const kept = text.slice(0, cap);
  return (
    `${kept}\n[output cut: showing the first ${kept.length} of ${text.length} characters, so this batch's ` +
    `responses fit in ${budget} characters. Ask for a narrower range or fewer results to see the rest.]`
  );
}

/**
 * Responses for settled calls, in the model's order, with the batch budget applied; then any inline
 * data the calls returned (images), as parts after the responses (Gemini CLI's sibling parts).
 */
export function buildResponses(calls: readonly Call[], budget: number): Part[] {
  const ordered = [...calls].sort((a, b) => a.base.order - b.base.order);
  const texts = ordered.map(responseTextOf);
  const caps = fitToBudget(
    texts.map((t) => t.text.length),
    budget,
  );
  const responses = ordered.map((call, i) => {
    const { text, isError } = texts[i];
    const cap = caps[i];
    return responsePartOf(call, cap === undefined ? text : cutText(text, cap, budget), isError);
  });
  const media = ordered.flatMap((c) =>
    c.status === 'succeeded' && c.media
      ? c.media.map((m) => ({ inlineData: { mimeType: m.mimeType, data: m.data } }))
      : [],
  );
  return [...responses, ...media];
}

/** The same validation error made again and again: counted across batches, saved with the batch. */
export interface ValidationStreak {
  key: string;
  count: number;
}

export const emptyStreak = (): ValidationStreak => ({ key: '', count: 0 });

/** After one validation outcome: a failure with the same tool and message extends the streak. */
export function nextStreak(
  streak: ValidationStreak,
  failure: { name: string; message: string } | undefined,
): ValidationStreak {
  if (!failure) return emptyStreak();
  const key = `${failure.name}\u0000${failure.message}`;
  return key === streak.key ? { key, count: streak.count + 1 } : { key, count: 1 };
}

export const STREAK_LIMIT = 3;

export const streakNote = (count: number): string =>
  `This call has now failed validation with the same error ${count} times in a row. Stop retrying it as it is: ` +
  'read the error, change the arguments (or use another tool), or explain the problem and stop.';
