import { describe, expect, it } from 'vitest';
import type { InvalidReply } from '../../src/model/client.js';
import { answersToolResults, parseReplyFailure, visibleText } from '../../src/model/reply-check.js';
import type { Content, Part } from '../../src/model/wire.js';

// Gemini CLI's rules for an unusable stream (geminiChat.ts at the pinned commit), one row each.

const call: Part = { functionCall: { name: 'read_file', args: {} }, thoughtSignature: 'sig' };
const thought: Part = { text: 'thinking', thought: true };

describe('parseReplyFailure', () => {
  it.each<[string, Part[], string | undefined, boolean, InvalidReply | undefined]>([
    ['text that stopped', [{ text: 'Done.' }], 'STOP', false, undefined],
    ['a call, whatever the finish reason', [call], 'MALFORMED_FUNCTION_CALL', false, undefined],
    ['a call without a finish reason', [call], undefined, false, undefined],
    ['no finish reason, answering a person', [{ text: 'and' }], undefined, false, 'no_finish_reason'],
    ['no finish reason, answering tool results', [{ text: 'and' }], undefined, true, undefined],
    ['MALFORMED_FUNCTION_CALL without a call', [thought], 'MALFORMED_FUNCTION_CALL', true, 'malformed_function_call'],
    [
      'MALFORMED_FUNCTION_CALL even with text',
      [{ text: 'I will call it' }],
      'MALFORMED_FUNCTION_CALL',
      false,
      'malformed_function_call',
    ],
    ['UNEXPECTED_TOOL_CALL', [], 'UNEXPECTED_TOOL_CALL', false, 'unexpected_tool_call'],
    ['nothing, answering a person', [], 'STOP', false, 'no_response_text'],
    ['nothing, answering tool results', [], 'STOP', true, undefined],
    ['only a newline, answering a person', [{ text: '\n' }], 'STOP', false, 'no_response_text'],
    [
      'only a zero-width space and an HTML comment',
      [{ text: '\u200B<!-- hidden -->' }],
      'STOP',
      false,
      'no_response_text',
    ],
    [
      'an empty text part with a signature, answering tool results',
      [{ text: '', thoughtSignature: 'sig' }],
      'STOP',
      true,
      undefined,
    ],
    ['thoughts only, answering a person', [thought], 'STOP', false, 'thinking_only'],
    ['thoughts only, answering tool results', [thought], 'STOP', true, 'thinking_only'],
    ['nothing before MAX_TOKENS, even after tool results', [], 'MAX_TOKENS', true, 'max_tokens_empty'],
    ['text cut at MAX_TOKENS', [{ text: 'The answer is' }], 'MAX_TOKENS', false, undefined],
    ['nothing with OTHER, even after tool results', [], 'OTHER', true, 'other_empty'],
  ])('%s', (_name, parts, finishReason, toolResults, expected) => {
    const failure = parseReplyFailure(
      { parts, ...(finishReason ? { finishReason } : {}) },
      { answersToolResults: toolResults },
    );
    expect(failure?.invalid).toBe(expected);
    if (failure) expect(failure.kind).toBe('invalid_output');
  });

  it('carries the usage the stream reported', () => {
    const usage = { inputTokens: 10, outputTokens: 0, cachedTokens: 0, thoughtTokens: 0, totalTokens: 10 };
    expect(
      parseReplyFailure({ parts: [], finishReason: 'MALFORMED_FUNCTION_CALL', usage }, { answersToolResults: false })
        ?.usage,
    ).toEqual(usage);
  });
});

describe('answersToolResults', () => {
  const results: Content = {
    role: 'user',
    parts: [{ functionResponse: { name: 'read_file', response: { output: 'x' } } }],
  };
  it.each<[string, Content[], boolean]>([
    ['tool results last', [results], true],
    [
      'tool results and a person who wrote too',
      [{ ...results, parts: [...results.parts, { text: 'and also' }] }],
      false,
    ],
    ['a person', [{ role: 'user', parts: [{ text: 'hi' }] }], false],
    ['nothing', [], false],
  ])('%s', (_name, contents, expected) => {
    expect(answersToolResults(contents)).toBe(expected);
  });
});

describe('visibleText', () => {
  it('leaves out thoughts, zero-width characters and HTML comments, and trims', () => {
    expect(visibleText([thought, { text: ' Hi\u200D <!-- a --> there ' }])).toBe('Hi  there');
  });

  it('removes a comment that removing another one made', () => {
    expect(visibleText([{ text: '<!<!-- x -->-- y -->' }])).toBe('');
  });
});
