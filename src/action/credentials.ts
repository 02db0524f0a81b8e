/**
 * Credentials a run holds besides its secret inputs, found at start so they are masked in the log
 * and redacted (in every form, common/redact.ts) from whatever the run posts: the runner's tokens,
 * and the header actions/checkout persists for git (`AUTHORIZATION: basic base64(x-access-token:TOKEN)`),
 * whose base64 value is a secret of its own: reversed or split, it no longer holds the token's forms.
 */
import { runGit } from '../git/git.js';

/** The runner's tokens in the step's environment: removed from it at start (env-secrets.ts), never posted. */
const RUNNER_TOKENS = ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN'] as const;

export const runnerTokensOf = (env: Readonly<Record<string, string | undefined>>): string[] =>
  RUNNER_TOKENS.map((n) => env[n] ?? '').filter((v) => v.length > 0);

/** The value git sends for a token, as actions/checkout writes it: the header's secret part. */
export const checkoutHeaderOf = (token: string): string => Buffer.from(`x-access-token:${token}`).toString('base64');

/**
 * The secrets of every `http.*.extraheader` git would send from the workspace (actions/checkout's
 * header, whatever token it was given; v6 keeps it in an included file, which git follows): each
 * `basic` value and the token inside it, each `bearer` token. Read with the action's hardened git.
 */
export async function readCheckoutSecrets(workspace: string): Promise<string[]> {
  try {
    const r = await runGit(workspace, ['config', '--includes', '--get-regexp', '^http\\..*extraheader$']);
    return r.code === 0 ? parseHeaderSecrets(r.stdout.toString('utf8')) : [];
  } catch {
    // Not a work tree the action can read (no repository yet): no header either.
    return [];
  }
}

/** Pure: the secrets in `git config --get-regexp` lines of extraheader values. */
export function parseHeaderSecrets(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/authorization:\s*(basic|bearer)\s+(\S+)/gi)) {
    out.push(m[2]);
    if (m[1].toLowerCase() !== 'basic') continue;
    const decoded = Buffer.from(m[2], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) out.push(decoded.slice(colon + 1));
  }
  return [...new Set(out.filter((s) => s.length > 0))];
}
