/**
 * What leaves for the model: every text of the request redacted, the model's own past calls
 * included, the opaque parts (thought signatures) untouched, the caller's history unchanged. The
 * bug each names: a field the wrapper does not walk (a call's nested argument, a response object).
 */
import { describe, expect, it } from 'vitest';
import { redactRequest, withRedaction } from '../../src/core/redacted-model.js';
import { redactorFor } from '../../src/common/redact.js';
import type { ModelChunk, ModelClient, ModelRequest } from '../../src/model/client.js';

const SECRET = 'ghs_requestSecret0001';
const rev = [...SECRET].reverse().join('');
const hex = Buffer.from(SECRET).toString('hex');

const request = (): ModelRequest => ({
  model: 'gemini-2.5-pro',
  systemInstruction: `memory says ${SECRET}`,
  tools: [],
  signal: new AbortController().signal,
  contents: [
    { role: 'user', parts: [{ text: `issue body ${rev}` }] },
    {
      role: 'model',
      parts: [
        {
          functionCall: { id: 'a', name: 'reply', args: { body: `posted ${hex}`, nested: [{ deep: SECRET }], n: 3 } },
          thoughtSignature: 'c2lnbmF0dXJl',
        },
      ],
    },
    {
      role: 'user',
      parts: [{ functionResponse: { id: 'a', name: 'reply', response: { output: `echo ${SECRET}`, [SECRET]: true } } }],
    },
  ],
});

describe('redactRequest', () => {
  it('redacts the system instruction, texts, call arguments and responses at any depth', () => {
    const out = redactRequest(request(), redactorFor([SECRET]));
    expect(out.systemInstruction).toBe('memory says ***');
    expect(out.contents).toEqual([
      { role: 'user', parts: [{ text: 'issue body ***' }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { id: 'a', name: 'reply', args: { body: 'posted ***', nested: [{ deep: '***' }], n: 3 } },
            thoughtSignature: 'c2lnbmF0dXJl',
          },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'a', name: 'reply', response: { output: 'echo ***', '***': true } } }],
      },
    ]);
  });

  it('leaves the caller’s history as it was', () => {
    const req = request();
    const before = JSON.stringify(req.contents);
    redactRequest(req, redactorFor([SECRET]));
    expect(JSON.stringify(req.contents)).toBe(before);
  });
});

describe('withRedaction', () => {
  it('the client below gets the redacted request; its chunks come back as they are', async () => {
    const seen: ModelRequest[] = [];
    const inner: ModelClient = {
      async *stream(req) {
        seen.push(req);
        yield { parts: [{ text: `reply with ${SECRET}` }] } satisfies ModelChunk;
      },
    };
    const chunks: ModelChunk[] = [];
    for await (const c of withRedaction(inner, [SECRET]).stream(request())) chunks.push(c);
    expect(JSON.stringify(seen[0].contents)).not.toContain(SECRET);
    expect(JSON.stringify(seen[0].contents)).not.toContain(hex);
    expect(chunks).toEqual([{ parts: [{ text: `reply with ${SECRET}` }] }]);
  });
});
