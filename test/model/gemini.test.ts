import { afterEach, describe, expect, it } from 'vitest';
import { isModelFailure, type ModelChunk, type ModelFailure, type ModelRequest } from '../../src/model/client.js';
import { createGeminiClient } from '../../src/model/gemini.js';
import {
  call,
  fault,
  malformedCall,
  reply,
  startFakeGemini,
  text,
  thought,
  usage,
  type FakeGemini,
  type FakeReply,
} from '../support/fake-gemini.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const MODEL = 'gemini-2.5-flash';

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: MODEL,
    systemInstruction: 'You are a test.',
    tools: [
      {
        name: 'read_file',
        description: 'Read a file',
        parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } } },
      },
    ],
    contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
    signal: new AbortController().signal,
    ...over,
  };
}

async function collect(script: FakeReply[], over: Partial<ModelRequest> = {}, idleTimeoutMs?: number) {
  fake = await startFakeGemini(script);
  const client = createGeminiClient({ apiKey: 'test-key', baseUrl: fake.baseUrl, model: MODEL, idleTimeoutMs });
  const chunks: ModelChunk[] = [];
  let failure: ModelFailure | undefined;
  try {
    for await (const c of client.stream(request(over))) chunks.push(c);
  } catch (e) {
    if (!isModelFailure(e)) throw e;
    failure = e;
  }
  return { chunks, failure };
}

describe('createGeminiClient over the real SDK', () => {
  it('streams parts verbatim, with finish reason and the last usage', async () => {
    const { chunks, failure } = await collect([
      reply([thought('thinking'), text('Hi '), text('there'), call('read_file', { file_path: 'a.ts' })], {
        usage: usage(100, 20, { cachedContentTokenCount: 40, thoughtsTokenCount: 7 }),
      }),
    ]);
    expect(failure).toBeUndefined();
    expect(chunks.flatMap((c) => c.parts)).toEqual([
      { text: 'thinking', thought: true },
      { text: 'Hi ' },
      { text: 'there' },
      {
        functionCall: { name: 'read_file', args: { file_path: 'a.ts' } },
        thoughtSignature: 'fake-signature/read_file',
      },
    ]);
    expect(chunks.at(-1)?.finishReason).toBe('STOP');
    // A running total on every chunk, as the API sends it; the last is the reply's.
    expect(chunks.map((c) => c.usage?.outputTokens)).toEqual([5, 10, 15, 20]);
    expect(chunks.map((c) => c.usage?.totalTokens)).toEqual([112, 117, 122, 127]);
    expect(chunks.at(-1)?.usage).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      cachedTokens: 40,
      thoughtTokens: 7,
      totalTokens: 127,
    });
  });

  it('sends v1beta requests with the key, system instruction, declarations and contents', async () => {
    await collect([reply([text('ok')])], { maxOutputTokens: 321 });
    const [req] = fake!.requests;
    expect(req.model).toBe(MODEL);
    expect(req.method).toBe('streamGenerateContent');
    expect(req.apiKey).toBe('test-key');
    expect(req.body.systemInstruction?.parts[0].text).toBe('You are a test.');
    expect(req.body.tools?.[0].functionDeclarations?.map((d) => d.name)).toEqual(['read_file']);
    expect(req.body.contents).toEqual([{ role: 'user', parts: [{ text: 'hello' }] }]);
    expect(req.body.generationConfig).toMatchObject({
      maxOutputTokens: 321,
      thinkingConfig: { includeThoughts: true },
    });
  });

  it('sends a function calling mode as toolConfig.functionCallingConfig, and none without tools', async () => {
    await collect([reply([text('ok')])], { toolConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] } });
    expect((fake!.requests[0].body as Record<string, unknown>).toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] },
    });
    await fake!.close();
    await collect([reply([text('ok')])], { tools: [], toolConfig: { mode: 'NONE' } });
    expect((fake!.requests[0].body as Record<string, unknown>).toolConfig).toBeUndefined();
  });

  it('sends no tools field when there are no declarations', async () => {
    await collect([reply([text('ok')])], { tools: [] });
    expect(fake!.requests[0].body.tools).toBeUndefined();
  });

  it.each<[string, FakeReply, Partial<ModelFailure>]>([
    [
      '429 with Retry-After seconds',
      fault.status(429, { retryAfter: '7' }),
      { kind: 'rate_limited', status: 429, retryAfterMs: 7000 },
    ],
    [
      '429 with RetryInfo and no header',
      fault.status(429, { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2.5s' }] }),
      { kind: 'rate_limited', retryAfterMs: 2500 },
    ],
    ['500', fault.status(500), { kind: 'server', status: 500 }],
    ['503', fault.status(503), { kind: 'server', status: 503 }],
    ['400', fault.status(400, { message: 'bad contents' }), { kind: 'bad_request', status: 400 }],
    ['401', fault.status(401), { kind: 'auth', status: 401 }],
    ['403', fault.status(403), { kind: 'auth', status: 403 }],
    [
      '400 API_KEY_INVALID',
      fault.status(400, {
        message: 'API key not valid',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
      }),
      { kind: 'auth', status: 400 },
    ],
    [
      '400 "API key not valid" without details',
      fault.status(400, { message: 'API key not valid. Please pass a valid API key.' }),
      { kind: 'auth', status: 400 },
    ],
    ['connection reset mid-stream', fault.reset([text('partial')]), { kind: 'network' }],
    ['malformed frame', fault.malformed([text('partial')]), { kind: 'invalid_output' }],
    [
      'error object mid-stream',
      fault.errorFrame(503, 'overloaded', [text('partial')]),
      { kind: 'server', status: 503 },
    ],
    ['finishReason SAFETY', reply([text('no')], { finishReason: 'SAFETY' }), { kind: 'safety' }],
    [
      'finishReason MALFORMED_FUNCTION_CALL',
      malformedCall([thought('I will write it')]),
      { kind: 'invalid_output', invalid: 'malformed_function_call' },
    ],
    ['an empty reply (content without parts)', reply([]), { kind: 'invalid_output', invalid: 'no_response_text' }],
    ['thoughts and nothing else', reply([thought('hmm')]), { kind: 'invalid_output', invalid: 'thinking_only' }],
    [
      'a stream that ends without a finish reason',
      reply([text('and then')], { finishReason: null }),
      { kind: 'invalid_output', invalid: 'no_finish_reason' },
    ],
    [
      'nothing written before MAX_TOKENS',
      reply([], { finishReason: 'MAX_TOKENS' }),
      { kind: 'invalid_output', invalid: 'max_tokens_empty' },
    ],
    [
      'blocked prompt',
      { kind: 'chunks', chunks: [{ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } }] },
      { kind: 'safety' },
    ],
  ])('classifies %s', async (_name, script, expected) => {
    const { failure } = await collect([script]);
    expect(failure).toMatchObject(expected);
  });

  it('puts the API message in a non-retryable failure, once', async () => {
    const { failure } = await collect([fault.status(400, { message: 'Invalid JSON payload received.' })]);
    expect(failure?.message).toBe('400 INVALID_ARGUMENT: Invalid JSON payload received.');
  });

  it('aborts a hung stream after the idle timeout as a network failure', async () => {
    const { chunks, failure } = await collect([fault.hang([text('start')])], {}, 150);
    expect(chunks.flatMap((c) => c.parts)).toEqual([{ text: 'start' }]);
    expect(failure).toMatchObject({ kind: 'network' });
    expect(failure?.message).toMatch(/stalled/);
  });

  it('reports the caller aborting as aborted', async () => {
    const ctrl = new AbortController();
    fake = await startFakeGemini([fault.hang([text('start')])]);
    const client = createGeminiClient({ apiKey: 'k', baseUrl: fake.baseUrl, model: MODEL });
    const seen: unknown[] = [];
    const run = (async () => {
      for await (const c of client.stream(request({ signal: ctrl.signal }))) {
        seen.push(c);
        ctrl.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ name: 'ModelFailure', kind: 'aborted' });
  });

  it('reads the base URL from GOOGLE_GEMINI_BASE_URL when no option is given', async () => {
    fake = await startFakeGemini([reply([text('from env')])]);
    const before = process.env.GOOGLE_GEMINI_BASE_URL;
    process.env.GOOGLE_GEMINI_BASE_URL = fake.baseUrl;
    try {
      const client = createGeminiClient({ apiKey: 'k', model: MODEL });
      const parts = [];
      for await (const c of client.stream(request())) parts.push(...c.parts);
      expect(parts).toEqual([{ text: 'from env' }]);
    } finally {
      if (before === undefined) delete process.env.GOOGLE_GEMINI_BASE_URL;
      else process.env.GOOGLE_GEMINI_BASE_URL = before;
    }
  });
});
