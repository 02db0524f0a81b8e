// Our Gemini client speaks the REST wire itself (src/model/gemini.ts). The official SDK,
// @google/genai, is the reference for that wire: the same requests sent through both must reach
// the server as the same JSON, and the same streamed replies must read as the same chunks. A field
// we drop, rename or misplace (systemInstruction's role, generationConfig, a thought signature in
// history, a function-call id) shows here before the API rejects it or a model loses context.
import { GoogleGenAI, type FunctionCallingConfigMode, type GenerateContentResponse } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelChunk, ModelRequest } from '../../src/model/client.js';
import { createGeminiClient } from '../../src/model/gemini.js';
import { parseUsage, type UsageMetadata } from '../../src/model/usage.js';
import type { Part } from '../../src/model/wire.js';
import { call, reply, startFakeGemini, text, thought, usage, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const declaration = { name: 'read_file', description: 'Read a file', parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string', description: 'path' } }, required: ['file_path'] } };

const history: ModelRequest['contents'] = [
  { role: 'user', parts: [{ text: 'read a.ts' }] },
  { role: 'model', parts: [{ text: 'plan', thought: true, thoughtSignature: 'c2lnLTE=' }, { functionCall: { id: 'c1', name: 'read_file', args: { file_path: 'a.ts' } } }] },
  { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: 'export const a = 1;\n' } } }] },
  { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { file_path: 'b.ts' } }, thoughtSignature: 'c2lnLTI=' }] },
  { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { error: 'not found' } } }, { text: 'and then?' }] },
];

/** The request as the SDK sends it, with the options the project used when it ran on the SDK. */
async function viaSdk(baseUrl: string, req: Omit<ModelRequest, 'signal'>, thinking: boolean): Promise<ModelChunk[]> {
  const ai = new GoogleGenAI({ apiKey: 'parity-key', apiVersion: 'v1beta', httpOptions: { baseUrl } });
  const responses = await ai.models.generateContentStream({
    model: req.model,
    contents: req.contents,
    config: {
      systemInstruction: req.systemInstruction,
      ...(req.tools.length ? { tools: [{ functionDeclarations: req.tools }] } : {}),
      ...(req.toolConfig && req.tools.length ? { toolConfig: { functionCallingConfig: { ...req.toolConfig, mode: req.toolConfig.mode as FunctionCallingConfigMode } } } : {}),
      ...(req.maxOutputTokens ? { maxOutputTokens: req.maxOutputTokens } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.responseJsonSchema ? { responseMimeType: 'application/json', responseJsonSchema: req.responseJsonSchema } : {}),
      ...(thinking ? { thinkingConfig: { includeThoughts: true } } : {}),
      automaticFunctionCalling: { disable: true },
    },
  });
  const chunks: ModelChunk[] = [];
  for await (const res of responses) chunks.push(chunkOfSdk(res));
  return chunks;
}

function chunkOfSdk(res: GenerateContentResponse): ModelChunk {
  const cand = res.candidates?.[0];
  const usageOf = parseUsage(res.usageMetadata as UsageMetadata | undefined);
  return {
    parts: (cand?.content?.parts ?? []) as Part[],
    ...(cand?.finishReason ? { finishReason: String(cand.finishReason) } : {}),
    ...(usageOf ? { usage: usageOf } : {}),
  };
}

async function viaOurs(baseUrl: string, req: Omit<ModelRequest, 'signal'>): Promise<ModelChunk[]> {
  const client = createGeminiClient({ apiKey: 'parity-key', baseUrl, model: req.model });
  const chunks: ModelChunk[] = [];
  for await (const c of client.stream({ ...req, signal: new AbortController().signal })) chunks.push(c);
  return chunks;
}

describe('our Gemini client and @google/genai on the wire', () => {
  it.each<[string, Omit<ModelRequest, 'signal'>, boolean]>([
    ['a first request with tools (thinking model)', { model: 'gemini-2.5-flash', systemInstruction: 'You are a test.', tools: [declaration], contents: [history[0]!] }, true],
    ['a long history with thought signatures, ids and responses', { model: 'gemini-2.5-pro', systemInstruction: 'S', tools: [declaration], contents: history, maxOutputTokens: 512 }, true],
    ['no tools, an output limit, a model that does not think', { model: 'gemini-2.0-flash', systemInstruction: 'Short.', tools: [], contents: [history[0]!], maxOutputTokens: 64 }, false],
    ['a function calling mode naming the allowed functions', { model: 'gemini-2.5-flash', systemInstruction: 'S', tools: [declaration], contents: [history[0]!], toolConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] } }, true],
    ['structured output at temperature 0', { model: 'gemini-2.5-flash', systemInstruction: 'Judge.', tools: [], contents: [history[0]!], temperature: 0, responseJsonSchema: { type: 'object', properties: { next_speaker: { type: 'string', enum: ['user', 'model'] } }, required: ['next_speaker'] } }, true],
    ['unicode and control characters in every field', { model: 'gemini-2.5-flash', systemInstruction: 'é\u0000\u2028"\\', tools: [{ ...declaration, description: '✓ \n\t' }], contents: [{ role: 'user', parts: [{ text: '\u{1F600} \r\n "q" \\ \u0007' }] }] }, true],
  ])('sends the same request: %s', async (_what, req, thinking) => {
    fake = await startFakeGemini([reply([text('a')]), reply([text('a')])]);
    await viaSdk(fake.baseUrl, req, thinking);
    await viaOurs(fake.baseUrl, req);
    const [sdk, ours] = fake.requests;
    expect(ours!.method).toBe('streamGenerateContent');
    expect({ model: ours!.model, method: ours!.method, apiKey: ours!.apiKey }).toEqual({ model: sdk!.model, method: sdk!.method, apiKey: sdk!.apiKey });
    expect(ours!.body).toEqual(sdk!.body);
  });

  it.each<[string, FakeReply]>([
    ['text, thoughts, calls and usage', reply([thought('hmm', 'sig'), text('Hi '), text('there'), call('read_file', { file_path: 'a.ts' }, 'c1')], { usage: usage(100, 20, { cachedContentTokenCount: 40, thoughtsTokenCount: 7 }) })],
    ['a finish reason without parts', reply([], { finishReason: 'MAX_TOKENS' })],
    ['a call without an id, with a signature', { kind: 'chunks', chunks: [{ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'x', args: {} }, thoughtSignature: 'AAA=' }] }, index: 0, finishReason: 'STOP' }] }] }],
  ])('reads the same chunks: %s', async (_what, script) => {
    fake = await startFakeGemini([script, script]);
    const req = { model: 'gemini-2.5-flash', systemInstruction: 'S', tools: [declaration], contents: [history[0]!] };
    const sdk = await viaSdk(fake.baseUrl, req, true);
    const ours = await viaOurs(fake.baseUrl, req);
    expect(ours).toEqual(sdk);
  });
});
