/**
 * Sessions move forward only. A session ref holds signed versions, and anyone who can push a ref can
 * put an older one back: its signature still verifies (issue 26: after an approved run finished,
 * its ref was forced back to its own `claimed` version, and `/agent continue` ran the approved call
 * again). So the action keeps, per session, the highest sequence it has written or accepted and
 * the nonces it has consumed, where a push cannot reach: one comment of its own in the thread, the
 * ledger, edited only by the action and read only when the API says the action's account wrote it
 * (authorize.ts isOurs). A version below its session's mark, or an open request whose nonce was
 * consumed, is refused whatever its signature says.
 *
 * Every own comment carrying the ledger marker is read and merged (highest sequence, union of
 * nonces): a ledger split by two racing writers loses nothing that either wrote. A session the
 * ledger does not name (its first version, one exported from the CLI, one saved before ledgers
 * existed) has no mark to be below.
 */
import { messageOf } from '../../common/errors.js';
import { sequenceOf, type SessionDoc } from '../../session/codec.js';
import { isOurs, type OwnLogins } from '../authorize.js';
import { formatMarker, tryParseMarker } from '../markers.js';
import type { RunContext } from '../run-context.js';

const LEDGER_MARKER = 'session-ledger';

/** What the action has seen of one session. */
interface LedgerEntry {
  /** The highest sequence the action wrote or accepted. */
  seq: number;
  /** Request nonces a run claimed: an open request with one of them is a replay. */
  nonces: string[];
}

/** By session id. */
export type Ledger = Readonly<Record<string, LedgerEntry>>;

/** The REST fields of a thread comment the ledger and the question lookup read. */
export interface ThreadComment {
  id: number;
  body?: string | null;
  created_at: string;
  user?: { login?: string } | null;
}

/** Pure: the ledger a comment body carries, or undefined (no marker, or one that does not decode). */
export function parseLedger(body: string): Ledger | undefined {
  const data = tryParseMarker(body, LEDGER_MARKER)?.data;
  if (!data) return undefined;
  try {
    const raw = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as unknown;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
    const out: Record<string, LedgerEntry> = {};
    for (const [id, e] of Object.entries(raw as Record<string, unknown>)) {
      const { seq, nonces } = (e ?? {}) as { seq?: unknown; nonces?: unknown };
      if (!Number.isInteger(seq) || !Array.isArray(nonces) || !nonces.every((n) => typeof n === 'string'))
        return undefined;
      out[id] = { seq: seq as number, nonces: nonces as string[] };
    }
    return out;
  } catch {
    return undefined;
  }
}

/** Pure: the union of two ledgers (highest sequence, every nonce). */
export function mergeLedgers(a: Ledger, b: Ledger): Ledger {
  const out: Record<string, LedgerEntry> = { ...a };
  for (const [id, e] of Object.entries(b)) {
    const mine = out[id];
    out[id] = mine ? { seq: Math.max(mine.seq, e.seq), nonces: [...new Set([...mine.nonces, ...e.nonces])] } : e;
  }
  return out;
}

/** The thread's ledger from the action's own comments (merged), and the newest of them (the one a write edits). */
export function readLedger(comments: readonly ThreadComment[], own: OwnLogins): { ledger: Ledger; commentId?: number } {
  let ledger: Ledger = {};
  let commentId: number | undefined;
  for (const c of comments) {
    if (!isOurs(c.user, own)) continue;
    const found = parseLedger(c.body ?? '');
    if (!found) continue;
    ledger = mergeLedgers(ledger, found);
    commentId = c.id;
  }
  return { ledger, ...(commentId !== undefined ? { commentId } : {}) };
}

/** Pure: whether `doc` may be acted on, given what the action has seen of its session. */
export function checkForward(ledger: Ledger, doc: SessionDoc): { ok: true } | { ok: false; message: string } {
  const seen = ledger[doc.id];
  if (!seen) return { ok: true };
  const seq = sequenceOf(doc);
  if (seq < seen.seq) {
    return {
      ok: false,
      message: `The saved session \`${doc.id}\` is an older version (sequence ${seq}) than the newest agent-action saved (sequence ${seen.seq}): its ref was moved back. A signature does not make an old version current again.`,
    };
  }
  if (doc.request.status === 'open' && seen.nonces.includes(doc.request.nonce)) {
    return {
      ok: false,
      message: `The saved session \`${doc.id}\` offers a request that was already answered (its nonce was used): a replay.`,
    };
  }
  return { ok: true };
}

/** The comment's whole body: a line for people, and the marker the action reads. */
function renderLedger(ledger: Ledger): string {
  const data = Buffer.from(JSON.stringify(ledger), 'utf8').toString('base64');
  return `<sub>agent-action's record of this thread's saved sessions: it refuses a session version older than the newest it saved. Edited by agent-action only.</sub>\n\n${formatMarker(LEDGER_MARKER, { data })}`;
}

/**
 * Records that the action saved or accepted `doc` (and, when a run claims a request, its nonce):
 * the thread's comments are read again first, so what another run recorded meanwhile is kept.
 */
export async function recordVersion(ctx: RunContext, doc: SessionDoc, consumed?: string): Promise<void> {
  const thread = doc.thread.number;
  const comments = (await ctx.octokit.paginate(ctx.octokit.rest.issues.listComments, {
    ...ctx.repo,
    issue_number: thread,
    per_page: 100,
  })) as ThreadComment[];
  const { ledger, commentId } = readLedger(comments, await ctx.own.logins());
  const entry: LedgerEntry = { seq: sequenceOf(doc), nonces: consumed ? [consumed] : [] };
  const next = mergeLedgers(ledger, { [doc.id]: entry });
  const body = renderLedger(next);
  if (commentId === undefined) {
    const { data } = await ctx.octokit.rest.issues.createComment({ ...ctx.repo, issue_number: thread, body });
    ctx.own.learn(data.user?.login);
  } else await ctx.octokit.rest.issues.updateComment({ ...ctx.repo, comment_id: commentId, body });
}

/** recordVersion where a failure must not end the run (after a question is posted, say): the log says what was not recorded. */
export async function tryRecordVersion(ctx: RunContext, doc: SessionDoc): Promise<void> {
  try {
    await recordVersion(ctx, doc);
  } catch (e) {
    ctx.log.warning(
      `session ${doc.id}: could not record version ${sequenceOf(doc)} in the thread's ledger (an older version of it stays acceptable until the next one is recorded): ${messageOf(e)}`,
    );
  }
}
