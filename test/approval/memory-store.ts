/**
 * A session store kept in memory for the approval tests: our own SessionStore interface, with real
 * signing (documents are stored as signed text and verified on read) and a compare-and-swap on a
 * version counter, as the git ref store does with ref commits.
 */
import { encodeSession, parseSession, type SessionDoc } from '../../src/session/codec.js';
import type { SessionKey } from '../../src/session/sign.js';
import type { CasResult, SessionStore } from '../../src/session/store.js';

/** Sessions as signed text, versioned per write: what the git ref store keeps, without git. */
export function createMemoryStore(key: SessionKey) {
  const refs = new Map<string, { version: string; text: string }>();
  let writes = 0;
  const put = (id: string, text: string): string => {
    const version = `v${++writes}`;
    refs.set(id, { version, text });
    return version;
  };
  const conflict = (id: string): CasResult => ({
    ok: false,
    reason: 'conflict',
    message: `session ${id} changed since it was read`,
  });
  const store: SessionStore & { put: typeof put; doc(id: string): SessionDoc } = {
    put,
    doc(id) {
      const parsed = parseSession(refs.get(id)!.text, key);
      if (!parsed.ok) throw new Error(parsed.error.message);
      return parsed.doc;
    },
    async read(id) {
      const r = refs.get(id);
      return r ? { id, version: r.version, parsed: parseSession(r.text, key) } : undefined;
    },
    async create(doc) {
      return refs.has(doc.id) ? conflict(doc.id) : { ok: true, version: put(doc.id, encodeSession(doc, key)) };
    },
    async update(id, expected, doc) {
      return refs.get(id)?.version !== expected
        ? conflict(id)
        : { ok: true, version: put(id, encodeSession(doc, key)) };
    },
    async delete(id, expected) {
      if (refs.get(id)?.version !== expected) return conflict(id);
      refs.delete(id);
      return { ok: true, version: '' };
    },
    async list() {
      return [...refs].map(([id, r]) => ({ id, version: r.version }));
    },
  };
  return store;
}
