/**
 * Application Default Credentials as a file: what `GOOGLE_APPLICATION_CREDENTIALS` names, the way
 * google-github-actions/auth leaves it (an `external_account` file for Workload Identity Federation,
 * or the service-account key it was given), or any ADC file gcloud writes (`authorized_user`).
 * Read once, at start, into memory: the Vertex client gets the parsed object (never the path), and
 * every secret the file holds joins the run's secrets (masked in the log, redacted from whatever
 * leaves the run). The file itself sits in the workspace (auth writes `gha-creds-*.json` there), so
 * the sandbox hides it by the variable that names it (sandbox/runner-paths.ts).
 */
import { readFileSync } from 'node:fs';
import { messageOf } from '../common/errors.js';

/** The credentials file as google-auth-library reads it (its `credentials` option). */
export type GoogleCredentials = Record<string, unknown> & { type: string };

export interface ReadCredentials {
  credentials: GoogleCredentials;
  /** The values a hostile reader of the file must not get (each PEM line of a key on its own). */
  secrets: string[];
  /** A service-account key's project, the fallback when no project is named. */
  projectId?: string;
  /** A service-account key's token endpoint, when it is not Google's (google-auth-library ignores it). */
  tokenUri?: string;
}

const TYPES = ['service_account', 'external_account', 'authorized_user', 'impersonated_service_account'];
/** Where google-auth-library sends a service account's signed JWT, whatever its file says. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** Reads and checks the file; a problem is one line naming the file and the variable. */
export function readGoogleCredentials(path: string, variable: string): ReadCredentials | { error: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { error: `${variable} names ${path}, which cannot be read (${messageOf(e).split('\n')[0]})` };
  }
  const parsed = parseGoogleCredentials(text);
  return 'error' in parsed ? { error: `${variable} names ${path}: ${parsed.error}` } : parsed;
}

/** Pure: the file's text -> its credentials and secrets, or why it is not an ADC file. */
export function parseGoogleCredentials(text: string): ReadCredentials | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'not JSON (expected a credentials file such as google-github-actions/auth writes)' };
  }
  const o = value as Record<string, unknown> | null;
  const type = typeof o?.type === 'string' ? o.type : undefined;
  if (!o || !type || !TYPES.includes(type))
    return { error: `"type" is ${JSON.stringify(o?.type ?? null)}: expected one of ${TYPES.join(', ')}` };
  if (type === 'service_account' && (typeof o.private_key !== 'string' || typeof o.client_email !== 'string'))
    return { error: 'a service_account key without "private_key" or "client_email"' };
  const tokenUri = typeof o.token_uri === 'string' && o.token_uri !== GOOGLE_TOKEN_URL ? o.token_uri : undefined;
  return {
    credentials: o as GoogleCredentials,
    secrets: secretsOfCredentials(o),
    ...(type === 'service_account' && typeof o.project_id === 'string' && { projectId: o.project_id }),
    ...(type === 'service_account' && tokenUri && { tokenUri }),
  };
}

/**
 * Pure: a key's PEM body line by line (a file read as text shows it JSON-escaped, `\n` between the
 * lines, so the key whole would never match), the other secret fields whole, and the headers an
 * external account sends for its subject token (auth's `Authorization: Bearer` the runner's ID-token
 * request token) with the token on its own.
 */
function secretsOfCredentials(o: Record<string, unknown>): string[] {
  const out: string[] = [];
  const add = (v: unknown) => typeof v === 'string' && v.length > 0 && out.push(v);
  if (typeof o.private_key === 'string')
    for (const line of o.private_key.split(/\r?\n/)) if (!line.startsWith('-----')) add(line.trim());
  for (const field of ['private_key_id', 'client_secret', 'refresh_token']) add(o[field]);
  const source = o.credential_source as { headers?: Record<string, unknown> } | undefined;
  for (const v of Object.values(source?.headers ?? {})) {
    add(v);
    if (typeof v === 'string') add(/^\s*bearer\s+(\S+)/i.exec(v)?.[1]);
  }
  return [...new Set(out)];
}
