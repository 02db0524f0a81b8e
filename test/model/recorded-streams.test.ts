import { afterEach, describe, expect, it } from 'vitest';
import { isModelFailure, type ModelChunk, type ModelFailure, type ModelRequest } from '../../src/model/client.js';
import { createGeminiClient } from '../../src/model/gemini.js';
import type { Content } from '../../src/model/wire.js';
import { recorded, startFakeGemini, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';

// Streams the real API sent, replayed byte for byte (test/fixtures/gemini-cli-recorded/README.md),
// read by the real SDK and our client: what the client yields and how it judges each reply.

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const ASKED: Content[] = [{ role: 'user', parts: [{ text: 'Write approved.txt' }] }];
const TOOL_RESULTS: Content[] = [
  ...ASKED,
  {
    role: 'model',
    parts: [{ functionCall: { name: 'write_file', args: { file_path: 'approved.txt', content: 'Approved content' } } }],
  },
  { role: 'user', parts: [{ functionResponse: { name: 'write_file', response: { output: 'wrote approved.txt' } } }] },
];

async function replay(reply: FakeReply, contents: Content[] = ASKED) {
  fake = await startFakeGemini([reply]);
  const client = createGeminiClient({ apiKey: 'k', baseUrl: fake.baseUrl, model: 'gemini-2.5-pro' });
  const req: ModelRequest = {
    model: 'gemini-2.5-pro',
    systemInstruction: 'test',
    tools: [],
    contents,
    signal: new AbortController().signal,
  };
  const chunks: ModelChunk[] = [];
  let failure: ModelFailure | undefined;
  try {
    for await (const c of client.stream(req)) chunks.push(c);
  } catch (e) {
    if (!isModelFailure(e)) throw e;
    failure = e;
  }
  return { chunks, failure };
}

const partsOf = (r: FakeReply) =>
  r.kind === 'chunks' ? r.chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []) : [];

describe('recorded streams through the real SDK', () => {
  it('a function call comes with no id and a thought signature, which reach us verbatim', async () => {
    const rec = recorded('hooks-system.allow-tool.responses', 0);
    const { chunks, failure } = await replay(rec);
    expect(failure).toBeUndefined();
    const call = chunks.flatMap((c) => c.parts).find((p) => p.functionCall);
    expect(call?.functionCall).toEqual({
      name: 'write_file',
      args: { content: 'Approved content', file_path: 'approved.txt' },
    });
    expect(call?.functionCall).not.toHaveProperty('id');
    expect(call?.thoughtSignature).toMatch(/^CiQBcsjafF4NswdygCBTU7cA/);
    expect(call).toEqual(partsOf(rec)[1]);
  });

  it('usage on every chunk, the last one counting: 12,282 for the MALFORMED_FUNCTION_CALL stream, not its first 12,352', async () => {
    const { chunks, failure } = await replay(recorded('context-compress-interactive.compress.responses', 0));
    expect(chunks.map((c) => c.usage?.totalTokens)).toEqual([12_352, 12_282]);
    expect(failure).toMatchObject({ kind: 'invalid_output', invalid: 'malformed_function_call' });
    expect(failure?.usage).toEqual({
      inputTokens: 12_282,
      outputTokens: 0,
      cachedTokens: 0,
      thoughtTokens: 0,
      totalTokens: 12_282,
    });
  });

  it("the retried stream: six chunks, a signature on the answer's first text, 12,550 in all", async () => {
    const rec = recorded('context-compress-interactive.compress.responses', 1);
    const { chunks, failure } = await replay(rec);
    expect(failure).toBeUndefined();
    expect(chunks.map((c) => c.usage?.totalTokens)).toEqual([12_326, 12_373, 12_421, 12_472, 12_523, 12_550]);
    expect(chunks.at(-1)?.usage).toEqual({
      inputTokens: 12_282,
      outputTokens: 224,
      cachedTokens: 11_883,
      thoughtTokens: 44,
      totalTokens: 12_550,
    });
    expect(chunks[1].parts[0].thoughtSignature).toMatch(/^CikB0e2Kb7zk/);
  });

  it('the cached count that arrives only on the last chunk is counted', async () => {
    const { chunks, failure } = await replay(recorded('policy-headless-readonly.responses', 0));
    expect(failure).toBeUndefined();
    expect(chunks.map((c) => c.usage?.cachedTokens)).toEqual([0, 0, 0, 6_082]);
    expect(chunks.at(-1)?.usage?.totalTokens).toBe(8_114);
  });

  it('an empty answer to tool results (content with no parts) is the model ending its turn, not a failure', async () => {
    const { chunks, failure } = await replay(recorded('hooks-system.allow-tool.responses', 1), TOOL_RESULTS);
    expect(failure).toBeUndefined();
    expect(chunks).toEqual([
      {
        parts: [],
        finishReason: 'STOP',
        usage: { inputTokens: 12_939, outputTokens: 0, cachedTokens: 12_203, thoughtTokens: 0, totalTokens: 12_939 },
      },
    ]);
  });

  it('the same empty answer to a person is an unusable reply, carrying what it cost', async () => {
    const { failure } = await replay(recorded('hooks-system.allow-tool.responses', 1));
    expect(failure).toMatchObject({
      kind: 'invalid_output',
      invalid: 'no_response_text',
      usage: { totalTokens: 12_939 },
    });
  });

  it('a call followed by a finishing chunk with no parts is a usable call', async () => {
    const { chunks, failure } = await replay(recorded('hooks-system.before-tool-stop.responses', 0));
    expect(failure).toBeUndefined();
    expect(chunks.map((c) => c.parts.length)).toEqual([1, 1, 0]);
    expect(chunks.at(-1)?.finishReason).toBe('STOP');
  });
});
