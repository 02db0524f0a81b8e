/**
 * A sub-agent waiting inside a call saves its own loop state in the parent's open batch; the session
 * codec checks it like the parent's, naming the nested path of a bad field.
 */
import { describe, expect, it } from 'vitest';
import { createRunState } from '../../src/core/run-state.js';
import { encodeSession, parseSession } from '../../src/session/codec.js';
import { sampleSession, TEST_KEY } from './fixture.js';

function withChild(edit: (child: Record<string, any>) => void = () => undefined): string {
  const { signature: _old, ...doc } = JSON.parse(encodeSession(sampleSession(), TEST_KEY));
  const child = JSON.parse(JSON.stringify(createRunState('s-1f2e3d/m1', 'gemini-2.5-pro', 'autoEdit')));
  edit(child);
  doc.state.open.calls = [
    {
      status: 'awaiting_approval',
      base: { id: 'm1', name: 'invoke_agent', args: {}, order: 0 },
      nested: { pending: [], saved: { version: 1, agent: 'writer', state: child } },
    },
  ];
  // Signed again, so what the codec checks is the nested state, not the signature.
  return encodeSession(doc, TEST_KEY);
}

describe('session codec: a nested sub-agent state', () => {
  it('accepts a well-formed child state', () => {
    expect(parseSession(withChild(), TEST_KEY).ok).toBe(true);
  });

  it.each([
    [
      'its history is not a list',
      (c: Record<string, any>) => (c.history = 'x'),
      /`state\.open\.calls\[0\]\.nested\.saved\.state\.history` must be an array/,
    ],
    [
      'its usage is missing',
      (c: Record<string, any>) => delete c.usage,
      /missing field `state\.open\.calls\[0\]\.nested\.saved\.state\.usage`/,
    ],
    [
      'its turns are fractional',
      (c: Record<string, any>) => (c.turns = 0.5),
      /`state\.open\.calls\[0\]\.nested\.saved\.state\.turns` must be an integer/,
    ],
  ])('rejects a child state whose %s', (_, edit, message) => {
    const parsed = parseSession(withChild(edit), TEST_KEY);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.message).toMatch(message);
  });
});
