/**
 * The environment of every process the model can influence (a command, a hook, an MCP stdio
 * server), sandboxed or not: default deny, like the policy. A variable of the host's environment
 * is passed because it is named below, never because its name looks harmless: a deny list misses
 * `PGPASSWORD`, `MYSQL_PWD`, a `REDIS_URL` with a password and a base64 `KUBE_CONFIG_DATA`, and
 * the next client's name after those. What else a process gets, trusted configuration names
 * itself: the Action's `sandbox-env` input, the CLI's `security.environmentVariableRedaction.allowed`
 * setting, a hook's or an MCP server's own `env` block; the caller adds those values on top.
 */

/** Each variable passed from the host, with why a command needs it and why it holds no secret. */
export const PASSED_VARIABLES: Readonly<Record<string, string>> = {
  PATH: 'finds the toolchains the workflow installed (setup-node, setup-python...); the sandbox binds them read-only',
  HOME: 'tools write caches under it; inside the sandbox it names an empty folder of its own',
  LANG: 'the locale: text encoding and messages',
  LANGUAGE: 'the locale: message languages',
  TERM: 'how tools format output; commands have no terminal, so most print plain text',
  TZ: 'the time zone tests and tools format dates in',
  CI: '`true` on a runner: test runners switch off watch modes and prompts',
  GITHUB_ACTIONS: '`true` on a runner: tools print annotations and skip interactive steps',
  GITHUB_REPOSITORY: 'owner/name of the repository, as the event and the API name it',
  GITHUB_REPOSITORY_ID: "the repository's numeric id",
  GITHUB_REPOSITORY_OWNER: 'the owner of the repository',
  GITHUB_REPOSITORY_OWNER_ID: "the owner's numeric id",
  GITHUB_SHA: 'the commit the workflow started on',
  GITHUB_REF: 'the ref the workflow started on',
  GITHUB_REF_NAME: 'its short name',
  GITHUB_REF_TYPE: 'branch or tag',
  GITHUB_REF_PROTECTED: 'whether that ref is protected',
  GITHUB_HEAD_REF: "a pull request's head branch",
  GITHUB_BASE_REF: "a pull request's base branch",
  GITHUB_EVENT_NAME: 'the event that started the run (its payload file stays hidden)',
  GITHUB_WORKFLOW: "the workflow's name",
  GITHUB_WORKFLOW_REF: "the workflow file's ref",
  GITHUB_WORKFLOW_SHA: "the workflow file's commit",
  GITHUB_JOB: "the job's id",
  GITHUB_RUN_ID: "the run's id (tools link to the run)",
  GITHUB_RUN_NUMBER: "the run's number",
  GITHUB_RUN_ATTEMPT: "the run's attempt",
  GITHUB_RETENTION_DAYS: 'how long artifacts are kept',
  GITHUB_ACTOR: 'who started the run',
  GITHUB_ACTOR_ID: "that account's numeric id",
  GITHUB_TRIGGERING_ACTOR: 'who started this attempt',
  GITHUB_SERVER_URL: "GitHub's address (github.com or an Enterprise Server)",
  GITHUB_API_URL: "GitHub's REST address; a command gets no token to call it with",
  GITHUB_GRAPHQL_URL: "GitHub's GraphQL address",
  GITHUB_WORKSPACE: 'the checked-out repository: the workspace itself',
  RUNNER_OS: 'Linux, Windows or macOS',
  RUNNER_ARCH: 'X64, ARM64...',
  RUNNER_NAME: "the runner's name",
  RUNNER_ENVIRONMENT: 'github-hosted or self-hosted',
  RUNNER_DEBUG: '`1` when the run has debug logging on',
  RUNNER_TOOL_CACHE: 'where setup-* actions keep toolchains; bound read-only',
};
// Never passed, named here so nobody adds them: GITHUB_TOKEN and every ACTIONS_* variable (the
// runner's tokens and service URLs); the runner's file commands GITHUB_ENV, GITHUB_OUTPUT,
// GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY and the event file GITHUB_EVENT_PATH (a line
// appended to one steers every later step); RUNNER_TEMP and RUNNER_WORKSPACE (hidden folders);
// GITHUB_ACTION* (this action's own step and folder); INPUT_* (the action's inputs).

/** Passed by prefix: the locale's categories (LC_ALL, LC_CTYPE, LC_MESSAGES...). */
const PASSED_PREFIXES = ['LC_'] as const;

export const isPassedVariable = (name: string): boolean =>
  Object.hasOwn(PASSED_VARIABLES, name) || PASSED_PREFIXES.some((p) => name.startsWith(p));

/** Below this, a value is a word or a number: a variable that merely contains one is not a leak. */
const MIN_SECRET_LENGTH = 8;

/**
 * Pure: the variables of `base` that PASSED_VARIABLES names, minus any whose value holds one of
 * `secrets` (a token copied into `GITHUB_REF` is still the token). What trusted configuration names
 * is not here: the caller puts it on top, as it is.
 */
export function commandEnvOf(
  base: Readonly<Record<string, string | undefined>>,
  secrets: readonly string[],
): Record<string, string> {
  const values = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || !isPassedVariable(name)) continue;
    if (values.some((s) => value.includes(s))) continue;
    out[name] = value;
  }
  return out;
}

/** Names trusted configuration may not pass, whatever it says: the runner's and the action's own. */
const NEVER_PASSED =
  /^(ACTIONS_|INPUT_|GITHUB_TOKEN$|GITHUB_ENV$|GITHUB_OUTPUT$|GITHUB_PATH$|GITHUB_STATE$|GITHUB_STEP_SUMMARY$|GITHUB_EVENT_PATH$|RUNNER_TEMP$)/i;

/** Why trusted configuration may not pass `name` to commands (or undefined: it may). Pure. */
export function whyNotPassable(name: string): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    return 'is not a variable name (letters, digits and _, not starting with a digit)';
  if (NEVER_PASSED.test(name))
    return "is the runner's or the action's own (a token, an input or a file command): commands never get it";
  return undefined;
}
