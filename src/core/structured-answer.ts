/**
 * The final answer in a workflow's shape (`output-schema`). When the loop's last turn ends with
 * text (and the next-speaker check, if any, says the model is done), one more request goes with
 * the whole conversation, no tools, and the schema as Gemini's `responseJsonSchema` with
 * `responseMimeType: application/json` (the API's structured output; it takes no tools with it,
 * hence a turn of its own after the work). The reply is checked with the schema itself: the API
 * constrains the reply, but it is not a validator and supports a subset of JSON Schema. A reply
 * that does not fit is asked for again once, with the checker's words; still wrong, the run stops
 * with an error naming the paths that failed.
 */
import { AgentError } from '../common/errors.js';
import type { Usage } from '../model/wire.js';
import type { AfterTextTurn } from './loop.js';
import type { OutputSchema } from './output-schema.js';
import { withRetry } from './retry.js';
import type { RunState } from './run-state.js';
import { recordUsage } from './stats.js';
import { runTurn } from './turn.js';

export interface StructuredAnswerOptions {
  schema: OutputSchema;
  /** The system instruction of the run's model, read when asked (the mode may have changed). */
  systemInstruction: () => string;
  /** Gets the value that matched. */
  onAnswer(value: unknown): void;
}

type Ctx = Parameters<AfterTextTurn>[2];
type Attempt = { ok: true; value: unknown } | { ok: false; problem: string; fatal?: string };

/** The request for the answer; the schema is in it twice: as words for the model, as the API's constraint. */
export const structuredAnswerPrompt = (schema: Record<string, unknown>): string =>
  `Now give your final answer as one JSON value matching this JSON Schema; later steps of the workflow read it. Reply with the JSON only.\n\n${JSON.stringify(schema)}`;

/** What the second request says: the checker's own words. */
export const structuredRetryPrompt = (problem: string): string =>
  `That answer does not match the schema: ${problem}. Reply again with the corrected JSON only.`;

/** `before` (the next-speaker check, say) first; when it ends the run, the structured answer is asked for. */
export function withStructuredAnswer(before: AfterTextTurn | undefined, o: StructuredAnswerOptions): AfterTextTurn {
  return async (state, turn, ctx) => {
    const decision = before ? await before(state, turn, ctx) : { kind: 'end' as const };
    if (decision.kind !== 'end') return decision;
    const ask = (prompt: string) => askOnce({ state, ctx, o }, prompt);
    let attempt = await ask(structuredAnswerPrompt(o.schema.schema));
    if (!attempt.ok && !attempt.fatal) attempt = await ask(structuredRetryPrompt(attempt.problem));
    if (attempt.ok) {
      o.onAnswer(attempt.value);
      return decision;
    }
    const message = attempt.fatal ?? `the final answer does not match output-schema, asked twice: ${attempt.problem}`;
    return { kind: 'stop', outcome: { status: 'error', error: new AgentError('general', message) } };
  };
}

/** One structured request: the prompt and the reply join the history; the reply parsed and checked. */
async function askOnce(
  { state, ctx, o }: { state: RunState; ctx: Ctx; o: StructuredAnswerOptions },
  prompt: string,
): Promise<Attempt> {
  state.history.push({ role: 'user', parts: [{ text: prompt }] });
  const request = {
    model: state.model,
    systemInstruction: o.systemInstruction(),
    tools: [],
    contents: [...state.history],
    signal: ctx.retry.signal,
    responseJsonSchema: o.schema.schema,
  };
  const countUsage = (u: Usage) => recordUsage(state, state.model, u);
  const result = await withRetry(
    (progress) => runTurn(ctx.model, request, { progress, callPrefix: 'structured-answer', countUsage }),
    ctx.retry,
  );
  if (!result.ok)
    return {
      ok: false,
      problem: result.failure.message,
      fatal: `the structured answer could not be had: ${result.failure.message}`,
    };
  state.turns++;
  if (result.value.content.parts.length) state.history.push(result.value.content);
  let value: unknown;
  try {
    value = JSON.parse(result.value.text);
  } catch {
    return { ok: false, problem: 'the reply is not JSON' };
  }
  const problem = o.schema.check(value);
  return problem === undefined ? { ok: true, value } : { ok: false, problem };
}
