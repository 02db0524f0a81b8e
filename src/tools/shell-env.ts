/**
 * The environment a command starts with: the caller's, minus every credential the run holds. A
 * command the model wrote must not be able to print, upload or reuse the job's tokens.
 */

/**
 * Dropped by shape: the runner's ACTIONS_* tokens and service URLs, the action's own inputs
 * (INPUT_GITHUB_TOKEN, INPUT_GEMINI_API_KEY...), and names with a segment that says they hold a
 * credential. A workflow's `env:` passes secrets under any name (NPM_AUTH, DEPLOY_KEY, GH_PAT,
 * SIGNING_PASS, GOOGLE_CREDENTIALS, SENTRY_DSN, SLACK_WEBHOOK_URL), so the segments are those
 * names end in, as Gemini CLI's sanitizer also reads them; whole segments, so GIT_AUTHOR_NAME,
 * PATH and KEYBOARD stay.
 */
const SECRET_SHAPES = [
  /^ACTIONS_/i,
  /^INPUT_/i,
  /(^|_)(TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PASSPHRASE|API_KEY|APIKEY|KEY|KEYS|PRIVATE_KEY|ACCESS_KEY|AUTH|AUTHTOKEN|PAT|CREDENTIAL|CREDENTIALS|CREDS|DSN|WEBHOOK|COOKIE|CONNECTION_STRING)(_|$)/i,
];

/**
 * Values that are credentials whatever their variable is called: a URL with a password, and the
 * published formats of GitHub, Google, AWS, Slack, Stripe and npm tokens, JWTs and private keys.
 * Each is a bounded run of one character class after a literal prefix: linear, no backtracking.
 */
const SECRET_VALUES = [
  /[a-z][a-z0-9+.-]{0,30}:\/\/[^/\s:@]{1,256}:[^/\s@]{1,256}@/i,
  /(^|[^A-Za-z0-9])(gh[pousr]|github_pat)_[A-Za-z0-9_]{20}/,
  /AIza[0-9A-Za-z_-]{30}/,
  /(^|[^A-Z0-9])(AKIA|ASIA)[0-9A-Z]{16}/,
  /xox[abposr]-[A-Za-z0-9-]{10}/,
  /(^|[^A-Za-z0-9])(sk|rk)_(live|test)_[0-9A-Za-z]{16}/,
  /(^|[^A-Za-z0-9])npm_[A-Za-z0-9]{36}/,
  /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8}/,
  /-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----/,
];

/** Runner debug switches are harmless and useful to commands; keep them. */
const KEEP = new Set(['ACTIONS_STEP_DEBUG', 'ACTIONS_RUNNER_DEBUG']);

export function isSecretName(name: string): boolean {
  if (KEEP.has(name.toUpperCase())) return false;
  return SECRET_SHAPES.some((r) => r.test(name));
}

/** Whether a value has the shape of a credential (see SECRET_VALUES). */
const isSecretValue = (value: string): boolean => SECRET_VALUES.some((r) => r.test(value));

/**
 * Pure: base minus secret-named variables, minus any variable whose value equals or contains a
 * secret value (a token copied into an innocently named variable is still the token) or looks like
 * a credential.
 */
export function scrubEnv(base: Readonly<Record<string, string | undefined>>, secrets: readonly string[]): Record<string, string> {
  const values = secrets.filter((s) => s.length >= 4);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || isSecretName(k) || isSecretValue(v)) continue;
    if (values.some((s) => v.includes(s))) continue;
    out[k] = v;
  }
  return out;
}
