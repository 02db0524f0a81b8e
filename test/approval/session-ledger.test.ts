/**
 * The session ledger's pure parts: what a comment body carries, how two ledgers merge, whose
 * comments count, and which versions move forward. The ledger is what refuses a session ref pushed
 * back to an older, validly signed version (issue 26, fourth item).
 */
import { describe, expect, it } from 'vitest';
import {
  checkForward,
  mergeLedgers,
  parseLedger,
  readLedger,
  type ThreadComment,
} from '../../src/action/approval/session-ledger.js';
import { formatMarker } from '../../src/action/markers.js';
import type { SessionDoc } from '../../src/session/codec.js';

const OWN = new Set(['github-actions[bot]']);
const bodyOf = (ledger: unknown) =>
  `record\n\n${formatMarker('session-ledger', { data: Buffer.from(JSON.stringify(ledger)).toString('base64') })}`;
const comment = (id: number, login: string, ledger: unknown): ThreadComment => ({
  id,
  body: bodyOf(ledger),
  created_at: '2026-03-01T10:00:00Z',
  user: { login },
});
const doc = (sequence: number | undefined, status: 'open' | 'claimed' | 'finished', nonce = 'n1') =>
  ({ id: 's1', ...(sequence !== undefined ? { sequence } : {}), request: { status, nonce } }) as unknown as SessionDoc;

describe('parseLedger', () => {
  it('reads what a ledger comment carries', () => {
    expect(parseLedger(bodyOf({ s1: { seq: 3, nonces: ['a'] } }))).toEqual({ s1: { seq: 3, nonces: ['a'] } });
  });
  it.each([
    ['no marker', 'just text'],
    ['not base64 JSON', formatMarker('session-ledger', { data: '!!!' })],
    ['a list', bodyOf([1])],
    // Entries that would pass on their own: only the shape check refuses these.
    ['a list of valid entries', bodyOf([{ seq: 1, nonces: [] }])],
    ['a number', bodyOf(7)],
    ['null', bodyOf(null)],
    ['a fractional sequence', bodyOf({ s1: { seq: 1.5, nonces: [] } })],
    ['a nonce that is not text', bodyOf({ s1: { seq: 1, nonces: [1] } })],
    ['one nonce of several that is not text', bodyOf({ s1: { seq: 1, nonces: ['a', 1] } })],
  ])('refuses %s', (_name, body) => {
    expect(parseLedger(body)).toBeUndefined();
  });
});

describe('mergeLedgers and readLedger', () => {
  it('keeps the highest sequence and every nonce', () => {
    expect(
      mergeLedgers({ s1: { seq: 2, nonces: ['a'] } }, { s1: { seq: 1, nonces: ['b'] }, s2: { seq: 5, nonces: [] } }),
    ).toEqual({
      s1: { seq: 2, nonces: ['a', 'b'] },
      s2: { seq: 5, nonces: [] },
    });
  });
  it("reads only the action's own comments, merged; the newest own one is the one edited", () => {
    const comments = [
      comment(1, 'github-actions[bot]', { s1: { seq: 4, nonces: ['a'] } }),
      // Someone quoting a ledger that sets the mark back (or forward, to block the real session): ignored.
      comment(2, 'stranger', { s1: { seq: 1, nonces: [] } }),
      comment(3, 'other-bot[bot]', { s1: { seq: 99, nonces: ['x'] } }),
      comment(4, 'GitHub-Actions[bot]', { s1: { seq: 2, nonces: ['b'] } }),
    ];
    expect(readLedger(comments, OWN)).toEqual({ ledger: { s1: { seq: 4, nonces: ['a', 'b'] } }, commentId: 4 });
    expect(readLedger(comments.slice(1, 3), OWN)).toStrictEqual({ ledger: {} });
  });
  it("skips the action's own comments that carry no ledger (its progress comment, say)", () => {
    const comments = [
      comment(1, 'github-actions[bot]', { s1: { seq: 4, nonces: [] } }),
      { id: 2, body: 'Working on it.', created_at: '2026-03-01T10:00:00Z', user: { login: 'github-actions[bot]' } },
      { id: 3, body: null, created_at: '2026-03-01T10:00:00Z', user: { login: 'github-actions[bot]' } },
    ];
    expect(readLedger(comments, OWN)).toStrictEqual({ ledger: { s1: { seq: 4, nonces: [] } }, commentId: 1 });
  });
});

describe('checkForward', () => {
  const ledger = { s1: { seq: 3, nonces: ['n1'] } };
  it('refuses a version below the mark, whatever it is', () => {
    const r = checkForward(ledger, doc(2, 'claimed', 'n2'));
    expect(r).toMatchObject({
      ok: false,
      message: expect.stringContaining('an older version (sequence 2) than the newest agent-action saved (sequence 3)'),
    });
    expect(checkForward(ledger, doc(undefined, 'claimed', 'n2')).ok).toBe(false);
  });
  it('refuses an open request whose nonce was consumed, even at the mark', () => {
    expect(checkForward(ledger, doc(3, 'open', 'n1'))).toMatchObject({
      ok: false,
      message: expect.stringContaining('already answered'),
    });
  });
  it('accepts the newest version, a newer one, and a session the ledger does not name', () => {
    expect(checkForward(ledger, doc(3, 'claimed')).ok).toBe(true);
    expect(checkForward(ledger, doc(4, 'open', 'n9')).ok).toBe(true);
    expect(checkForward({}, doc(1, 'open')).ok).toBe(true);
  });
});
