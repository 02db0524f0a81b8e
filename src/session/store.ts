/**
 * Where sessions live between workflow runs. Every write is a compare-and-swap on a version the
 * caller read: of two runs racing to claim one approval, exactly one wins and the other is told.
 * Two stores: the Action's git refs (SessionDoc) and the developer's state directory
 * (file-store.ts, LocalSessionDoc).
 */
import type { SessionDoc, SessionParse } from './codec.js';

export interface StoredSession<D = SessionDoc> {
  id: string;
  /** Opaque version to pass back to `update`/`delete` (the git store: the ref's commit id). */
  version: string;
  /** The document as stored; a corrupt one is reported, never thrown, so the caller can say why. */
  parsed: SessionParse<D>;
}

export type CasResult =
  | { ok: true; version: string }
  /** Someone else changed (or created, or deleted) the session since `expected` was read. */
  | { ok: false; reason: 'conflict'; message: string };

export interface SessionStore<D = SessionDoc> {
  read(id: string): Promise<StoredSession<D> | undefined>;
  /** Fails with 'conflict' when a session with this id already exists. */
  create(doc: D): Promise<CasResult>;
  update(id: string, expected: string, doc: D): Promise<CasResult>;
  delete(id: string, expected: string): Promise<CasResult>;
  list(): Promise<Array<{ id: string; version: string }>>;
}

/** A session of `thread` that is open or was claimed by a run (crashed or finished without cleanup). */
export interface ThreadSession {
  stored: StoredSession;
  doc: SessionDoc;
}

/**
 * The sessions of one thread, newest first (by `updatedAt`). Used by `/agent continue`, which has no
 * question comment to follow. Documents that do not parse are skipped here: without a thread number
 * they cannot be attributed; a run that follows a question comment's marker reports them instead.
 */
export async function readThreadSessions(store: SessionStore, threadNumber: number): Promise<ThreadSession[]> {
  const found: ThreadSession[] = [];
  for (const { id } of await store.list()) {
    const stored = await store.read(id);
    if (stored?.parsed.ok && stored.parsed.doc.thread.number === threadNumber)
      found.push({ stored, doc: stored.parsed.doc });
  }
  return found.sort((a, b) => Date.parse(b.doc.updatedAt) - Date.parse(a.doc.updatedAt));
}
