/**
 * The environment a command starts with: the caller's, minus every credential the run holds. A
 * command the model wrote must not be able to print, upload or reuse the job's tokens.
 */

/**
 * Dropped by shape: the runner's ACTIONS_* tokens and service URLs, the action's own inputs
 * (INPUT_GITHUB_TOKEN, INPUT_GEMINI_API_KEY...), and names that say they hold a credential
 * (GITHUB_TOKEN, GH_TOKEN, GEMINI_API_KEY, GOOGLE_API_KEY, NPM_TOKEN, AWS_SECRET_ACCESS_KEY...).
 */
const SECRET_SHAPES = [/^ACTIONS_/i, /^INPUT_/i, /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY)(_|$)/i];

/** Runner debug switches are harmless and useful to commands; keep them. */
const KEEP = new Set(['ACTIONS_STEP_DEBUG', 'ACTIONS_RUNNER_DEBUG']);

export function isSecretName(name: string): boolean {
  if (KEEP.has(name.toUpperCase())) return false;
  return SECRET_SHAPES.some((r) => r.test(name));
}

/**
 * Pure: base minus secret-named variables, minus any variable whose value equals or contains a
 * secret value (a token copied into an innocently named variable is still the token).
 */
export function scrubEnv(base: Readonly<Record<string, string | undefined>>, secrets: readonly string[]): Record<string, string> {
  const values = secrets.filter((s) => s.length >= 4);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || isSecretName(k)) continue;
    if (values.some((s) => v.includes(s))) continue;
    out[k] = v;
  }
  return out;
}
