// The event-stream reader under the Gemini client: where the network cuts the bytes must not change
// the events (a CRLF split in two, a multi-byte character split in two, a frame split byte by byte).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readServerSentEvents } from '../../src/model/sse.js';

async function events(chunks: Array<string | Uint8Array>): Promise<string[]> {
  const enc = new TextEncoder();
  async function* body() {
    for (const c of chunks) yield typeof c === 'string' ? enc.encode(c) : c;
  }
  const out: string[] = [];
  for await (const e of readServerSentEvents(body())) out.push(e);
  return out;
}

describe('readServerSentEvents', () => {
  it.each<[string, string, string[]]>([
    ['CRLF frames (what Gemini sends)', 'data: {"a":1}\r\n\r\ndata: {"b":2}\r\n\r\n', ['{"a":1}', '{"b":2}']],
    ['LF frames', 'data: x\n\ndata: y\n\n', ['x', 'y']],
    ['CR frames', 'data: x\r\rdata: y\r\r', ['x', 'y']],
    ['multi-line data joined by newlines', 'data: a\ndata: b\n\n', ['a\nb']],
    ['no space after the colon; an empty data line', 'data:x\ndata\n\n', ['x\n']],
    ['comments, event, id and retry lines skipped', ': keep-alive\nevent: m\nid: 3\nretry: 10\ndata: z\n\n', ['z']],
    ['an event with no data is no event', 'event: ping\n\ndata: q\n\n', ['q']],
    ['a last event without its blank line', 'data: x\r\n\r\ndata: {"tail"', ['x', '{"tail"']],
    ['a CRLF is one line end, not two', 'data: a\r\ndata: b\r\n\r\n', ['a\nb']],
  ])('%s', async (_what, stream, expected) => {
    expect(await events([stream])).toEqual(expected);
  });

  it('gives the same events however the bytes are cut', async () => {
    const bytes = new TextEncoder().encode('data: {"t":"é✓😀"}\r\n\r\n: c\r\ndata: a\r\ndata: b\r\n\r\ndata: last\n\n');
    const whole = await events([bytes]);
    expect(whole).toEqual(['{"t":"é✓😀"}', 'a\nb', 'last']);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), async (cuts) => {
        const at = [0, ...cuts.sort((a, b) => a - b), bytes.length];
        const pieces = at.slice(1).map((end, i) => bytes.slice(at[i], end));
        expect(await events(pieces)).toEqual(whole);
      }),
      { seed: 20260116, numRuns: 400 },
    );
  });
});
