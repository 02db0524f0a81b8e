/**
 * Secrets leave the process environment before any tool exists. The action reads its inputs once
 * (keeping what it needs in memory), then deletes from `process.env` the secret inputs, the runner's
 * ACTIONS_* tokens and service URLs, the usual token variables, and any variable holding a secret
 * value under another name. Every process started afterwards (a command, git, a hook) inherits none
 * of them. `/proc/<pid>/environ` still shows the block the process started with: the sandbox's
 * fresh /proc is what hides that; redaction of output stays the last line.
 */
import { SECRET_INPUTS } from './inputs.js';

/** Runner debug switches are not secrets, and @actions/core reads them. */
const KEEP = new Set(['ACTIONS_STEP_DEBUG', 'ACTIONS_RUNNER_DEBUG']);
const TOKEN_NAMES = new Set([
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
]);
/** `INPUT_GEMINI-API-KEY` as core.getInput spells it, and the lower-case/underscore spellings local-action also reads. */
const SECRET_INPUT_KEYS = new Set(SECRET_INPUTS.map((n) => `INPUT_${n.toUpperCase().replace(/_/g, '-')}`));

/** Whether a variable is removed by name (its value aside). */
function isRunnerSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (KEEP.has(upper)) return false;
  if (upper.startsWith('ACTIONS_')) return true; // ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_*, ACTIONS_CACHE_URL, ...
  if (TOKEN_NAMES.has(upper)) return true;
  return upper.startsWith('INPUT_') && SECRET_INPUT_KEYS.has(upper.replace(/_/g, '-').replace(/^INPUT-/, 'INPUT_'));
}

/**
 * Deletes, in place, every secret-named variable and every variable whose value contains one of
 * `secrets` (8 characters or more: shorter values would match innocent text). Returns the names.
 */
export function dropSecretsFromEnv(env: Record<string, string | undefined>, secrets: readonly string[]): string[] {
  const values = secrets.filter((s) => s.length >= 8);
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (isRunnerSecretName(name) || (value !== undefined && values.some((s) => value.includes(s)))) {
      delete env[name];
      dropped.push(name);
    }
  }
  return dropped.sort();
}
