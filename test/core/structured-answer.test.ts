/**
 * `output-schema`: the schema checked against its draft's meta-schema before anything runs; after
 * the loop's last text turn, one structured request (no tools, responseJsonSchema) whose reply is
 * checked with the schema, asked again once with the checker's words, and an error naming the
 * failing path when it still does not fit. Through the loop and the real SDK against the fake Gemini.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runLoop } from '../../src/core/loop.js';
import { parseOutputSchema, type OutputSchema } from '../../src/core/output-schema.js';
import {
  structuredAnswerPrompt,
  structuredRetryPrompt,
  withStructuredAnswer,
} from '../../src/core/structured-answer.js';
import { reply, startFakeGemini, text, usage, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { fakeScheduler, makeDeps, newState, recorder, userText } from './helpers.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const SCHEMA_TEXT = JSON.stringify({
  type: 'object',
  properties: { verdict: { enum: ['ok', 'broken'] }, files: { type: 'array', items: { type: 'string' } } },
  required: ['verdict'],
  additionalProperties: false,
});

function schemaOf(text: string): OutputSchema {
  const parsed = parseOutputSchema(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}

async function run(script: FakeReply[]) {
  fake = await startFakeGemini(script);
  const answers: unknown[] = [];
  const state = newState();
  const deps = makeDeps(fake, fakeScheduler().scheduler, {
    afterTextTurn: withStructuredAnswer(undefined, {
      schema: schemaOf(SCHEMA_TEXT),
      systemInstruction: () => 'SYSTEM',
      onAnswer: (v) => answers.push(v),
    }),
  });
  const outcome = await runLoop({ state, input: userText('check the build') }, deps, recorder().emit);
  return { fake, state, outcome, answers };
}

describe('parseOutputSchema', () => {
  // Red if the schema is not checked against the meta-schema (a typo'd type would pass and fail every answer).
  it.each([
    ['{"type": "strnig"}', 'not a valid JSON Schema: /type '],
    ['{"type": "object", "required": "verdict"}', 'not a valid JSON Schema: /required must be array'],
    ['{"properties": {"n": {"minimum": "1"}}}', '/properties/n/minimum must be number'],
    ['{"type": "object",', 'not JSON ('],
    ['[1, 2]', 'a JSON Schema object'],
    ['{"$schema": "https://example.com/my-draft"}', 'is not a draft this action knows'],
  ])('%s is refused, saying where', (text, words) => {
    const parsed = parseOutputSchema(text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toContain(words);
  });

  it('a good schema (draft 2020-12 by default, or a draft it names) checks values, naming the path', () => {
    const s = schemaOf(SCHEMA_TEXT);
    expect(s.check({ verdict: 'ok', files: ['a.ts'] })).toBeUndefined();
    expect(s.check({ verdict: 'maybe' })).toBe('/verdict must be one of "ok", "broken"');
    expect(s.check({ files: [3] })).toBe("missing required field 'verdict'; /files/0 must be string");
    expect(s.check({ verdict: 'ok', extra: 1 })).toBe("unknown field 'extra'");
    expect(schemaOf('{"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer"}').check(1.5)).toBe(
      '/ must be integer',
    );
  });
});

describe('the structured final answer', () => {
  it('a matching answer: one structured request with the history, no tools, the schema as responseJsonSchema', async () => {
    const r = await run([
      reply([text('The build passes.')]),
      reply([text('{"verdict": "ok", "files": []}')], { usage: usage(50, 9) }),
    ]);
    expect(r.outcome).toEqual({ status: 'success', finalText: 'The build passes.' });
    expect(r.answers).toEqual([{ verdict: 'ok', files: [] }]);
    const asked = r.fake.requests[1].body;
    expect(asked.tools).toBeUndefined();
    expect(asked.generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: JSON.parse(SCHEMA_TEXT),
    });
    expect(asked.contents.at(-2)).toEqual({ role: 'model', parts: [{ text: 'The build passes.' }] });
    expect(asked.contents.at(-1)).toEqual({
      role: 'user',
      parts: [{ text: structuredAnswerPrompt(JSON.parse(SCHEMA_TEXT)) }],
    });
    // Its tokens count toward the run's budget like any turn's.
    expect(r.state.usage.totalTokens).toBeGreaterThanOrEqual(59);
  });

  it('an answer that does not fit is asked again once, with the checker’s words; the second fits', async () => {
    const r = await run([
      reply([text('Done.')]),
      reply([text('{"verdict": "fine"}')]),
      reply([text('{"verdict": "ok"}')]),
    ]);
    expect(r.outcome.status).toBe('success');
    expect(r.answers).toEqual([{ verdict: 'ok' }]);
    expect(r.fake.requests[2].body.contents.at(-1)).toEqual({
      role: 'user',
      parts: [{ text: structuredRetryPrompt('/verdict must be one of "ok", "broken"') }],
    });
    expect(r.fake.requests).toHaveLength(3);
  });

  it('still wrong after the retry: the run ends with an error naming the path; no value', async () => {
    const r = await run([reply([text('Done.')]), reply([text('{"verdict": "fine"}')]), reply([text('not json')])]);
    expect(r.answers).toEqual([]);
    expect(r.outcome.status).toBe('error');
    expect(r.outcome.status === 'error' && r.outcome.error.message).toBe(
      'the final answer does not match output-schema, asked twice: the reply is not JSON',
    );
    expect(r.fake.requests).toHaveLength(3);
  });
});
