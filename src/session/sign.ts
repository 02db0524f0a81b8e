/**
 * Session documents are signed: anyone who can push a ref can write `refs/agent-action/sessions/*`,
 * only the action can sign what it finds there. The MAC is HMAC-SHA256 over the document's canonical
 * JSON (object keys sorted, no whitespace, the `signature` field left out), keyed by
 *
 *   key = HKDF-SHA256(ikm = the `session-key` input, or else the Gemini API key,
 *                     salt = "agent-action session v1", info = "session-mac", 32 bytes)
 *
 * and the signature names its key by `keyId` (the first 16 hex digits of HMAC(key, "agent-action key
 * id")), so a document signed before a key rotation is told apart from a forged one.
 *
 * The calls digest is what the approval comment shows and its marker repeats: the first 12 hex
 * digits of SHA-256 over the canonical JSON of the waiting calls' `[{ name, args }]`.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

const SESSION_KEY_SALT = 'agent-action session v1';
const SESSION_KEY_INFO = 'session-mac';

export interface SessionKey {
  bytes: Buffer;
  /** Public: names the key in a signature. */
  id: string;
}

export interface SessionSignature {
  alg: 'HMAC-SHA256';
  keyId: string;
  mac: string;
}

/** Derives the signing key from a secret (the `session-key` input, or the Gemini API key). */
export function createSessionKey(secret: string): SessionKey {
  // Stryker disable next-line StringLiteral: Buffer.from(s, '') reads an empty encoding name as UTF-8, the default
  const bytes = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SESSION_KEY_SALT, SESSION_KEY_INFO, 32));
  return { bytes, id: createHmac('sha256', bytes).update('agent-action key id').digest('hex').slice(0, 16) };
}

/**
 * Pure: JSON with object keys in sorted order and no whitespace; `undefined` members are left out, as
 * JSON.stringify does, so a document and its parsed copy have the same canonical form.
 */
export function canonicalJson(value: unknown): string {
  // An undefined array element is `null`, as in JSON.stringify: the last line's fallback says so.
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const members = Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// Stryker disable next-line StringLiteral: update(s, '') reads an empty encoding name as UTF-8, the default
const macOf = (body: unknown, key: SessionKey): string =>
  createHmac('sha256', key.bytes).update(canonicalJson(body), 'utf8').digest('hex');

export function signSession(body: unknown, key: SessionKey): SessionSignature {
  return { alg: 'HMAC-SHA256', keyId: key.id, mac: macOf(body, key) };
}

export type SignatureCheck =
  { ok: true } | { ok: false; code: 'unsigned' | 'wrong_key' | 'bad_signature'; message: string };

/** Pure: checks a signature found next to `body`. */
export function verifySession(body: unknown, signature: unknown, key: SessionKey): SignatureCheck {
  const sig = signature as Partial<SessionSignature> | undefined;
  if (
    !sig ||
    typeof sig !== 'object' ||
    sig.alg !== 'HMAC-SHA256' ||
    typeof sig.mac !== 'string' ||
    typeof sig.keyId !== 'string'
  ) {
    return {
      ok: false,
      code: 'unsigned',
      message: 'the session document carries no valid signature: agent-action did not write it',
    };
  }
  if (sig.keyId !== key.id) {
    return {
      ok: false,
      code: 'wrong_key',
      message:
        'the session document was signed with a different key: the session key or Gemini API key changed since the request; ask again',
    };
  }
  // Exactly the 64 lowercase hex digits signSession writes: Buffer.from(hex) would drop a trailing
  // odd digit or stop at the first non-hex one, so other spellings of a MAC would verify too.
  if (
    !/^[0-9a-f]{64}$/.test(sig.mac) ||
    !timingSafeEqual(Buffer.from(sig.mac, 'hex'), Buffer.from(macOf(body, key), 'hex'))
  ) {
    return {
      ok: false,
      code: 'bad_signature',
      message: 'the session document does not match its signature: it was changed after agent-action wrote it',
    };
  }
  return { ok: true };
}

/** Pure: the short digest of exactly the calls that will run, for the question comment and its marker. */
export function callsDigestOf(calls: ReadonlyArray<{ name: string; args: Record<string, unknown> }>): string {
  const body = canonicalJson(calls.map((c) => ({ name: c.name, args: c.args })));
  // Stryker disable next-line StringLiteral: update(s, '') reads an empty encoding name as UTF-8, the default
  return createHash('sha256').update(body, 'utf8').digest('hex').slice(0, 12);
}
