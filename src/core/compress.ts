import type { ModelClient } from '../model/client.js';
import type { Content } from '../model/wire.js';
import type { Emit } from './events.js';
import { repairHistory } from './history-repair.js';
import type { RunState } from './run-state.js';
import { withRetry, type RetryDeps } from './retry.js';
import { recordUsage } from './stats.js';
import { runTurn } from './turn.js';

/** Compress when the last prompt passed this share of the context window. */
const COMPRESS_AT = 0.5;
/** Share of the history (by size) kept verbatim. */
const KEEP_FRACTION = 0.3;

export const SNAPSHOT_PREFIX = 'The conversation so far was compressed into this snapshot. Continue the task from it.';
const SNAPSHOT_ACK = 'Understood. I will continue from the snapshot.';

const COMPRESSION_PROMPT = `You compress an AI coding agent's conversation so the agent can continue its task with less context.
Write a snapshot of everything the agent needs to carry on; anything you leave out is lost.
If the conversation starts with an earlier <state_snapshot>, merge it: keep its goal, constraints and
knowledge unless later turns replaced them, and extend its file and action lists. Never drop the goal.
Answer with exactly this structure and nothing else:
<state_snapshot>
  <overall_goal>the user's objective in one or two sentences</overall_goal>
  <constraints>rules, preferences and limits the user or the repository set, one per line</constraints>
  <key_knowledge>facts learned: commands that work, conventions, APIs, findings</key_knowledge>
  <files_touched>path: what was read, created or changed, and why; one per line</files_touched>
  <recent_actions>the last significant actions and their results, one per line</recent_actions>
  <task_state>what is done, what is in progress (mark it), what is next</task_state>
</state_snapshot>`;

/** Whether the last prompt was big enough to compress before the next request. */
export const shouldCompress = (state: RunState, contextWindow: number): boolean =>
  state.lastPromptTokens > contextWindow * COMPRESS_AT;

const sizeOf = (c: Content): number => JSON.stringify(c).length;

/**
 * Where the newest ~KEEP_FRACTION of the history (by size) starts, at a safe boundary: a model turn,
 * or a user turn that answers no call (never between a functionCall and its functionResponse). At
 * least two older turns are summarised and at least one turn is kept; undefined when impossible. Pure.
 */
export function findSplit(history: readonly Content[], keepFraction = KEEP_FRACTION): number | undefined {
  const total = history.reduce((n, c) => n + sizeOf(c), 0);
  let kept = 0;
  let target = history.length;
  while (target > 0 && kept + sizeOf(history[target - 1]) <= total * keepFraction) kept += sizeOf(history[--target]);
  const safe = (i: number) => history[i].role === 'model' || !history[i].parts.some((p) => p.functionResponse);
  // The nearest safe boundary at or after the target (keeping a little less), else before it.
  for (let i = Math.max(target, 2); i < history.length; i++) if (safe(i)) return i;
  for (let i = Math.min(target, history.length) - 1; i >= 2; i--) if (safe(i)) return i;
  return undefined;
}

/** The contents sent to the summariser: the older history plus the instruction, ending on a user turn. */
function buildCompressionContents(older: readonly Content[]): Content[] {
  const ask = { text: 'Write the <state_snapshot> for the conversation above now.' };
  const last = older.at(-1);
  if (last?.role === 'user') return [...older.slice(0, -1), { ...last, parts: [...last.parts, ask] }];
  return [...older, { role: 'user', parts: [ask] }];
}

/** History after compression: the snapshot as a user turn, then the kept turns, roles alternating. */
export function buildCompressedHistory(snapshot: string, kept: readonly Content[]): Content[] {
  const head: Content[] = [{ role: 'user', parts: [{ text: `${SNAPSHOT_PREFIX}\n\n${snapshot}` }] }];
  if (kept[0]?.role === 'user') head.push({ role: 'model', parts: [{ text: SNAPSHOT_ACK }] });
  return [...head, ...kept];
}

export interface CompressDeps {
  model: ModelClient;
  retry: RetryDeps;
  emit: Emit;
}

/**
 * Ask the model (no tools, nothing shown to the user) to summarise the older history into a
 * structured snapshot that merges any earlier one, and keep the newest turns verbatim. On any
 * failure the history is left as it was and a warning says why. Returns whether it compressed.
 */
export async function compressHistory(state: RunState, deps: CompressDeps): Promise<boolean> {
  const before = state.lastPromptTokens;
  const history = repairHistory(state.history).history;
  const split = findSplit(history);
  if (split === undefined) {
    deps.emit({ type: 'warning', message: 'context is large but the history has no safe point to compress at' });
    return false;
  }
  const older = history.slice(0, split);
  const result = await withRetry(
    (progress) =>
      runTurn(
        deps.model,
        {
          model: state.model,
          systemInstruction: COMPRESSION_PROMPT,
          tools: [],
          contents: buildCompressionContents(older),
          signal: deps.retry.signal,
          role: 'utility_compressor',
        },
        { progress, callPrefix: 'compress', countUsage: (u) => recordUsage(state, state.model, u) },
      ),
    deps.retry,
  );
  if (!result.ok) {
    deps.emit({
      type: 'warning',
      message: `context compression failed, continuing uncompressed: ${result.failure.message}`,
    });
    return false;
  }
  const snapshot = result.value.text.trim();
  if (!snapshot) {
    deps.emit({ type: 'warning', message: 'context compression returned no snapshot, continuing uncompressed' });
    return false;
  }
  state.history = buildCompressedHistory(snapshot, history.slice(split));
  state.snapshot = snapshot;
  // An estimate (4 characters a token) until the next request reports the real figure.
  state.lastPromptTokens = Math.ceil(state.history.reduce((n, c) => n + sizeOf(c), 0) / 4);
  deps.emit({ type: 'compressed', beforeTokens: before, afterTokens: state.lastPromptTokens });
  return true;
}
