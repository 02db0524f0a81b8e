import { describe, expect, it } from 'vitest';
import { encodeSession, parseSession, type SessionDoc } from '../../src/session/codec.js';
import { signSession } from '../../src/session/sign.js';
import { sampleSession, TEST_KEY } from './fixture.js';

/**
 * A doc after an edit to its plain-JSON form (delete or replace a dotted path), signed again as the
 * action would sign it: these cases are about the shape check behind a valid signature.
 */
function mutated(edit: (d: Record<string, any>) => void): string {
  const { signature: _old, ...d } = JSON.parse(encodeSession(sampleSession(), TEST_KEY));
  edit(d);
  return JSON.stringify({ ...d, signature: signSession(d, TEST_KEY) });
}

describe('session codec', () => {
  it('round-trips a document exactly, history parts verbatim', () => {
    const doc = sampleSession();
    const parsed = parseSession(encodeSession(doc, TEST_KEY), TEST_KEY);
    expect(parsed).toEqual({ ok: true, doc });
    if (!parsed.ok) return;
    expect(parsed.doc.state.history[1].parts[0].thoughtSignature).toBe('c2lnbmF0dXJl');
    expect(encodeSession(parsed.doc, TEST_KEY)).toBe(encodeSession(doc, TEST_KEY));
  });

  it('keeps the plan, and loads a document written before the plan was saved with none', () => {
    const doc = sampleSession();
    doc.state.todos = [
      { description: 'Find the bug', status: 'completed' },
      { description: 'Fix add', status: 'in_progress' },
    ];
    expect(parseSession(encodeSession(doc, TEST_KEY), TEST_KEY)).toEqual({ ok: true, doc });
    const old = parseSession(
      mutated((d) => delete d.state.todos),
      TEST_KEY,
    );
    expect(old.ok && old.doc.state.todos).toBeUndefined();
  });

  it('keeps fields it does not know inside history parts', () => {
    const doc: SessionDoc = sampleSession();
    doc.state.history[1].parts.push({ executableCode: { code: 'print(1)' } });
    const parsed = parseSession(encodeSession(doc, TEST_KEY), TEST_KEY);
    expect(parsed.ok && parsed.doc.state.history[1].parts[2]).toEqual({ executableCode: { code: 'print(1)' } });
  });

  it.each([
    ['not JSON', '{"version": 1,', 'bad_json', /not JSON/],
    ['an array', '[]', 'invalid', /must be a JSON object/],
    ['no version', mutated((d) => delete d.version), 'invalid', /missing field `version`/],
    [
      'version 1 (before signed sessions)',
      mutated((d) => (d.version = 1)),
      'unknown_version',
      /version 1; this action reads version 2/,
    ],
    ['version "2"', mutated((d) => (d.version = '2')), 'unknown_version', /version "2"/],
    ['no id', mutated((d) => delete d.id), 'invalid', /missing field `session.id`/],
    ['no repository', mutated((d) => delete d.repository), 'invalid', /missing field `repository`/],
    ['empty owner', mutated((d) => (d.repository.owner = '')), 'invalid', /`repository.owner` must not be empty/],
    [
      'thread number a string',
      mutated((d) => (d.thread.number = '7')),
      'invalid',
      /`thread.number` must be an integer/,
    ],
    [
      'thread kind unknown',
      mutated((d) => (d.thread.kind = 'discussion')),
      'invalid',
      /`thread.kind` is "discussion"; expected one of issue, pull_request/,
    ],
    ['no trigger command', mutated((d) => delete d.trigger.command), 'invalid', /missing field `trigger.command`/],
    ['no requester', mutated((d) => delete d.requester), 'invalid', /missing field `session.requester`/],
    ['bad mode', mutated((d) => (d.mode = 'auto_edit')), 'invalid', /`session.mode` is "auto_edit"/],
    ['no state', mutated((d) => delete d.state), 'invalid', /missing field `state`/],
    ['history not an array', mutated((d) => (d.state.history = {})), 'invalid', /`state.history` must be an array/],
    [
      'history role',
      mutated((d) => (d.state.history[0].role = 'system')),
      'invalid',
      /`state.history\[0\].role` is "system"/,
    ],
    [
      'history part',
      mutated((d) => (d.state.history[1].parts[1] = 'text')),
      'invalid',
      /`state.history\[1\].parts\[1\]` must be an object/,
    ],
    ['usage missing', mutated((d) => delete d.state.usage), 'invalid', /missing field `state.usage`/],
    [
      'usage token',
      mutated((d) => (d.state.usage.totalTokens = null)),
      'invalid',
      /`state.usage.totalTokens` must be a number/,
    ],
    ['turns fractional', mutated((d) => (d.state.turns = 1.5)), 'invalid', /`state.turns` must be an integer/],
    [
      'added rule',
      mutated((d) => delete d.state.addedRules[0].toolName),
      'invalid',
      /missing field `state.addedRules\[0\].toolName`/,
    ],
    ['plan not a list', mutated((d) => (d.state.todos = 'fix it')), 'invalid', /`state.todos` must be an array/],
    [
      'plan item status',
      mutated((d) => (d.state.todos = [{ description: 'Fix add', status: 'done' }])),
      'invalid',
      /`state.todos\[0\].status` is "done"; expected one of pending, in_progress, completed, cancelled, blocked/,
    ],
    [
      'plan item description',
      mutated((d) => (d.state.todos = [{ status: 'pending' }])),
      'invalid',
      /missing field `state.todos\[0\].description`/,
    ],
    ['open batch calls', mutated((d) => (d.state.open.calls = null)), 'invalid', /`state.open.calls` must be an array/],
    [
      'state id differs',
      mutated((d) => (d.state.id = 'other')),
      'invalid',
      /`state.id` \("other"\) differs from the session id/,
    ],
    ['no pending', mutated((d) => delete d.pending), 'invalid', /missing field `session.pending`/],
    ['pending without id', mutated((d) => delete d.pending[0].id), 'invalid', /missing field `pending\[0\].id`/],
    [
      'bad answer kind',
      mutated((d) => (d.request.answers = [{ id: 'x', kind: 'maybe' }])),
      'invalid',
      /`request.answers\[0\].kind` is "maybe"/,
    ],
    ['no nonce', mutated((d) => delete d.request.nonce), 'invalid', /missing field `request.nonce`/],
    ['bad expiry', mutated((d) => (d.request.expiresAt = 'next week')), 'invalid', /`request.expiresAt` is not a date/],
    [
      'bad status',
      mutated((d) => (d.request.status = 'done')),
      'invalid',
      /`request.status` is "done"; expected one of open, claimed, finished/,
    ],
    ['no worktree', mutated((d) => delete d.worktree), 'invalid', /missing field `worktree`/],
    [
      'bad base commit',
      mutated((d) => (d.worktree.baseCommit = 'main')),
      'invalid',
      /`worktree.baseCommit` is not an object id/,
    ],
    ['no trusted commit', mutated((d) => delete d.trustedCommit), 'invalid', /missing field `session.trustedCommit`/],
    [
      'trusted commit a branch name',
      mutated((d) => (d.trustedCommit = 'main')),
      'invalid',
      /`session.trustedCommit` is not an object id: "main"/,
    ],
    [
      'patch not base64',
      mutated((d) => (d.worktree.patchBase64 = 'diff --git')),
      'invalid',
      /`worktree.patchBase64` is not base64/,
    ],
    ['no updatedAt', mutated((d) => delete d.updatedAt), 'invalid', /missing field `session.updatedAt`/],
  ])('rejects %s', (_name, text, code, message) => {
    const parsed = parseSession(text, TEST_KEY);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.code).toBe(code);
    expect(parsed.error.message).toMatch(message);
  });
});
