/**
 * Whether a variable's name says it holds a credential. Not what keeps secrets out of a command's
 * environment (that is an allow-list: sandbox/command-env.ts); what decides which values trusted
 * configuration hands over are secrets to redact and mask: an MCP server's `Authorization` header,
 * a `sandbox-env` variable named `NPM_TOKEN`.
 */

/**
 * The runner's ACTIONS_* tokens and service URLs, the action's own inputs (INPUT_GITHUB_TOKEN,
 * INPUT_GEMINI_API_KEY...), and names with a segment that says they hold a credential. A workflow's
 * `env:` names secrets many ways (NPM_AUTH, DEPLOY_KEY, GH_PAT, SIGNING_PASS, GOOGLE_CREDENTIALS,
 * SENTRY_DSN, SLACK_WEBHOOK_URL), so the segments are those names end in, as Gemini CLI's sanitizer
 * also reads them; whole segments, so GIT_AUTHOR_NAME, PATH and KEYBOARD are not.
 */
const SECRET_SHAPES = [
  /^ACTIONS_/i,
  /^INPUT_/i,
  /(^|_)(TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PASSPHRASE|API_KEY|APIKEY|KEY|KEYS|PRIVATE_KEY|ACCESS_KEY|AUTH|AUTHTOKEN|PAT|CREDENTIAL|CREDENTIALS|CREDS|DSN|WEBHOOK|COOKIE|CONNECTION_STRING)(_|$)/i,
];

/** Runner debug switches are no secrets. */
const KEEP = new Set(['ACTIONS_STEP_DEBUG', 'ACTIONS_RUNNER_DEBUG']);

export function isSecretName(name: string): boolean {
  if (KEEP.has(name.toUpperCase())) return false;
  return SECRET_SHAPES.some((r) => r.test(name));
}
