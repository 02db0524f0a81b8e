import { ModelFailure, type InvalidReply } from './client.js';
import type { Content, Part, Usage } from './wire.js';

/**
 * What counts as a usable reply, judged once the stream has ended, the way Gemini CLI's chat judges
 * its streams (packages/core/src/core/geminiChat.ts, at the commit test/fixtures/gemini-cli-recorded
 * names). A reply that calls a tool is always used, whatever its finish reason. Otherwise it is
 * unusable when it has no finish reason, ends MALFORMED_FUNCTION_CALL or UNEXPECTED_TOOL_CALL, or
 * shows no text; one exception: an empty reply to tool results only (no text, no thoughts) is the
 * model ending its turn, and is used. Blocked finish reasons are failures of their own (`safety`).
 */

/** Finish reasons that mean the reply was blocked. */
const BLOCKED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'LANGUAGE',
]);

/** Finish reasons that make a reply without a call unusable, whatever its text. */
const UNUSABLE: Readonly<Record<string, InvalidReply>> = {
  MALFORMED_FUNCTION_CALL: 'malformed_function_call',
  UNEXPECTED_TOOL_CALL: 'unexpected_tool_call',
  TOO_MANY_TOOL_CALLS: 'too_many_tool_calls',
};

/** Finish reasons that make a reply without a call and without text unusable, even after tool results. */
const UNUSABLE_WHEN_EMPTY: Readonly<Record<string, InvalidReply>> = {
  MAX_TOKENS: 'max_tokens_empty',
  OTHER: 'other_empty',
};

/** What a stream brought, as far as judging it goes. */
export interface ReplySummary {
  parts: readonly Part[];
  finishReason?: string;
  /** The last usage the stream reported: the failure carries it (the request was billed). */
  usage?: Usage;
}

/** The failure a blocked finish reason means, if it is one. Pure. */
export function parseBlockedFinish(reason: string | undefined, usage: Usage | undefined): ModelFailure | undefined {
  return reason && BLOCKED.has(reason)
    ? new ModelFailure('safety', `the model's reply was blocked (finishReason ${reason})`, usage ? { usage } : {})
    : undefined;
}

/**
 * Whether the request's last turn is tool results and nothing else: a model may answer those with
 * nothing at all (it has said what it had to, and ends its turn). Pure.
 */
export function answersToolResults(contents: readonly Content[]): boolean {
  const last = contents.at(-1);
  return last?.role === 'user' && last.parts.length > 0 && last.parts.every((p) => p.functionResponse);
}

/**
 * The text a person would see: non-thought text without zero-width characters and HTML comments,
 * trimmed. A reply of only a newline or a comment shows nothing. Pure.
 */
export function visibleText(parts: readonly Part[]): string {
  let text = parts
    .filter((p) => typeof p.text === 'string' && !p.thought && !p.functionCall)
    .map((p) => p.text)
    .join('')
    .replace(/[\u200B-\u200D\uFEFF\u200E\u200F]/g, '');
  for (let before = ''; before !== text;) {
    before = text;
    text = text.replace(/<!--[\s\S]*?-->/g, '');
  }
  return text.trim();
}

/** Why a finished, unblocked reply is unusable, as a failure to retry; undefined when it is usable. Pure. */
export function parseReplyFailure(reply: ReplySummary, ctx: { answersToolResults: boolean }): ModelFailure | undefined {
  if (reply.parts.some((p) => p.functionCall)) return undefined;
  const reason = reply.finishReason;
  const invalid = invalidReasonOf(reason, {
    empty: visibleText(reply.parts) === '',
    thoughts: reply.parts.some((p) => p.thought),
    ...ctx,
  });
  return invalid
    ? new ModelFailure('invalid_output', MESSAGES[invalid](reason), {
        invalid,
        ...(reply.usage ? { usage: reply.usage } : {}),
      })
    : undefined;
}

function invalidReasonOf(
  reason: string | undefined,
  r: { empty: boolean; thoughts: boolean; answersToolResults: boolean },
): InvalidReply | undefined {
  if (!reason && !r.answersToolResults) return 'no_finish_reason';
  if (reason && UNUSABLE[reason]) return UNUSABLE[reason];
  if (!r.empty) return undefined;
  if (reason && UNUSABLE_WHEN_EMPTY[reason]) return UNUSABLE_WHEN_EMPTY[reason];
  if (r.thoughts) return 'thinking_only';
  return r.answersToolResults ? undefined : 'no_response_text';
}

const MESSAGES: Record<InvalidReply, (reason: string | undefined) => string> = {
  no_finish_reason: () => 'the model stream ended without a finish reason',
  no_response_text: (r) => `the model returned an empty reply (finishReason ${r})`,
  thinking_only: (r) => `the model returned thoughts but no answer (finishReason ${r})`,
  malformed_function_call: () => 'the model sent a malformed function call (finishReason MALFORMED_FUNCTION_CALL)',
  unexpected_tool_call: () => 'the model called a tool it was not offered (finishReason UNEXPECTED_TOOL_CALL)',
  too_many_tool_calls: () => 'the model called too many tools at once (finishReason TOO_MANY_TOOL_CALLS)',
  max_tokens_empty: () => 'the model reached the output token limit before it wrote anything (finishReason MAX_TOKENS)',
  other_empty: () => 'the model returned an empty reply (finishReason OTHER)',
  malformed_stream: () => 'the response stream was malformed',
};
