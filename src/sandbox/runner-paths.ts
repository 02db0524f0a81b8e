/**
 * What of the GitHub runner a sandboxed process must never reach. The runner's file commands are
 * files whose names are in the environment: a line appended to `$GITHUB_ENV` or `$GITHUB_PATH`
 * runs in every later step of the job, outside every policy (`BASH_ENV=...`, a PATH entry that
 * shadows `git`). They and the event payload live under RUNNER_TEMP, which also holds
 * actions/checkout v6's credential file. All of it is hidden, and the variables are dropped; so is
 * the Google Cloud credentials file an earlier step left (the action holds what it needs of it).
 */
import { dirname, isAbsolute } from 'node:path';

/** Variables naming the runner's file commands, its temp folder and the event payload. */
const RUNNER_PATH_VARIABLES = [
  'RUNNER_TEMP',
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STEP_SUMMARY',
  'GITHUB_STATE',
  'GITHUB_EVENT_PATH',
  // Google Cloud credentials, as google-github-actions/auth leaves them: a file in the workspace
  // (`gha-creds-*.json`) holding a service account's key, or how to mint the job's OIDC token.
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GOOGLE_GHA_CREDS_PATH',
  'CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE',
] as const;

/** Pure: the absolute paths those variables name in the host's environment (deduplicated). */
export function runnerPathsOf(env: Readonly<Record<string, string | undefined>>): string[] {
  const paths = RUNNER_PATH_VARIABLES.map((name) => env[name]).filter((p): p is string => !!p && isAbsolute(p));
  return [...new Set(paths)];
}

/** Pure: env without the runner's path variables (the sandbox removes them whatever the caller passed). */
export function withoutRunnerVariables(env: Readonly<Record<string, string>>): Record<string, string> {
  const out = { ...env };
  for (const name of RUNNER_PATH_VARIABLES) delete out[name];
  return out;
}

/**
 * The runner's own credentials. An action runs on the runner's bundled Node
 * (`<runner>/externals/node24/bin/node`), so that path names the runner's folder, which holds
 * `.credentials` and `.credentials_rsaparams` (the key the runner authenticates to GitHub with: whoever
 * has it can take this runner's jobs and their secrets), `.runner`, `.env`, `.path` and its `_diag`
 * logs. GitHub's hosted runners keep it under /home (never bound), but a self-hosted runner is often
 * installed in /opt or /usr/local, which the sandbox binds read-only for the tool cache: these are
 * hidden there. Pure: paths for readHiddenEntries, which keeps only those that exist.
 */
export function runnerInstallSecrets(execPath: string): string[] {
  if (!/\/externals\/node[^/]*\/bin\/node$/.test(execPath)) return [];
  const root = dirname(dirname(dirname(dirname(execPath))));
  return ['.credentials', '.credentials_rsaparams', '.runner', '.env', '.path', '.service', '.setup_info', '_diag'].map(
    (name) => `${root}/${name}`,
  );
}
