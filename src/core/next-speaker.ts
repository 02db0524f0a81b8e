/**
 * The next-speaker check (Gemini CLI's): when a turn ends with text and no tool calls, a short
 * structured-output request to a small model judges whether the model meant to go on ("Next, I
 * will run the tests.") or is done. If it meant to go on, the loop sends "Please continue." as
 * the next user message instead of ending a fix half-done: in CI nobody is there to type it.
 * Continuations are capped per session; the check's tokens count toward the run's budget.
 */
import type { ModelClient } from '../model/client.js';
import type { Usage } from '../model/wire.js';
import type { Emit } from './events.js';
import type { AfterTextTurn } from './loop.js';
import { withRetry, type RetryDeps } from './retry.js';
import type { RunState } from './run-state.js';
import { recordUsage } from './stats.js';
import { runTurn } from './turn.js';

/** The synthetic user message, as Gemini CLI sends it. */
const CONTINUE_MESSAGE = 'Please continue.';
const DEFAULT_MAX_CONTINUATIONS = 3;
const DEFAULT_NEXT_SPEAKER_MODEL = 'gemini-2.5-flash';

export interface NextSpeakerOptions {
  /** The small model that judges. Default DEFAULT_NEXT_SPEAKER_MODEL. */
  model?: string;
  /** Continuations per session. Default DEFAULT_MAX_CONTINUATIONS. */
  maxContinuations?: number;
}

/** Gemini CLI's answer shape: a short reason, then who speaks next. */
const NEXT_SPEAKER_SCHEMA = {
  type: 'object',
  properties: {
    reasoning: { type: 'string', description: 'One or two sentences: which rule applies to the reply, and why.' },
    next_speaker: {
      type: 'string',
      enum: ['user', 'model'],
      description: 'Who speaks next, judged from the reply alone.',
    },
  },
  required: ['reasoning', 'next_speaker'],
} as const;

const JUDGE_INSTRUCTION =
  'You judge whether an AI coding agent has finished its turn. Answer only with the JSON object you are asked for.';

/** The question, with the reply quoted. Only the last reply is judged, so the request stays small. */
export function nextSpeakerPrompt(reply: string): string {
  return [
    "Here is the agent's latest reply, between <reply> tags:",
    `<reply>\n${reply}\n</reply>`,
    'Decide who should speak next, applying these rules in order:',
    '1. \'model\' if the reply announces a next step the agent itself is about to take ("Next, I will...", "Now I\'ll run the tests"), says it will call a tool it did not call, or stops mid-thought.',
    "2. 'user' if the reply ends with a question to the user.",
    "3. 'user' otherwise: the reply finished its thought or its task and waits for the user.",
  ].join('\n');
}

/** The judged speaker, or undefined when the answer is not the JSON asked for. Pure. */
export function parseNextSpeaker(text: string): 'user' | 'model' | undefined {
  try {
    const v = (JSON.parse(text) as { next_speaker?: unknown } | null)?.next_speaker;
    return v === 'user' || v === 'model' ? v : undefined;
  } catch {
    return undefined;
  }
}

async function askWhoSpeaks(
  reply: string,
  o: { client: ModelClient; model: string; retry: RetryDeps; state: RunState; emit: Emit },
): Promise<'user' | 'model' | undefined> {
  const request = {
    model: o.model,
    systemInstruction: JUDGE_INSTRUCTION,
    tools: [],
    contents: [{ role: 'user' as const, parts: [{ text: nextSpeakerPrompt(reply) }] }],
    signal: o.retry.signal,
    responseJsonSchema: NEXT_SPEAKER_SCHEMA as unknown as Record<string, unknown>,
    role: 'utility_next_speaker' as const,
  };
  const countUsage = (u: Usage) => recordUsage(o.state, o.model, u);
  const result = await withRetry(
    (progress) => runTurn(o.client, request, { progress, callPrefix: 'next-speaker', countUsage }),
    o.retry,
  );
  if (!result.ok) {
    o.emit({
      type: 'warning',
      message: `the next-speaker check failed, so the run ends here: ${result.failure.message}`,
    });
    return undefined;
  }
  const speaker = parseNextSpeaker(result.value.text);
  if (!speaker)
    o.emit({ type: 'warning', message: 'the next-speaker check gave no usable answer, so the run ends here' });
  return speaker;
}

/** The loop's after-text hook that runs the check. */
export function createNextSpeakerCheck(opts: NextSpeakerOptions = {}): AfterTextTurn {
  const model = opts.model ?? DEFAULT_NEXT_SPEAKER_MODEL;
  const max = opts.maxContinuations ?? DEFAULT_MAX_CONTINUATIONS;
  return async (state, turn, ctx) => {
    const used = state.continuations ?? 0;
    if (used >= max || !turn.text.trim()) return { kind: 'end' };
    const speaker = await askWhoSpeaks(turn.text, {
      client: ctx.model,
      model,
      retry: ctx.retry,
      state,
      emit: ctx.emit,
    });
    if (speaker !== 'model') return { kind: 'end' };
    state.continuations = used + 1;
    return { kind: 'continue', message: CONTINUE_MESSAGE };
  };
}
