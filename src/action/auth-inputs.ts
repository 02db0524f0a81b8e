/**
 * How the action reaches Gemini, and the input names of run-gemini-cli (google-github-actions'
 * action) read as ours, so that its users' `with:` blocks work with `uses:` as the only change.
 *
 * A workflow's `with: { gemini_api_key: ... }` reaches an action as `INPUT_GEMINI_API_KEY`; ours is
 * `INPUT_GEMINI-API-KEY`. Each run-gemini-cli name is either read as one of ours (one notice says
 * so), or named in one warning with why it is not needed, or, where going on would do the wrong
 * thing (Gemini Code Assist, a Workload Identity provider with no credentials yet), an input error.
 * A name that is neither ours nor theirs but close to one of ours (`max_turns`, `gemini-apikey`) is
 * an error that says which was meant. After the inputs, the step's environment: `GEMINI_API_KEY`
 * and `GOOGLE_API_KEY` count as the key (as in Gemini CLI), `GOOGLE_GENAI_USE_VERTEXAI`,
 * `GOOGLE_CLOUD_PROJECT` and `GOOGLE_CLOUD_LOCATION` choose Vertex AI (google-github-actions/auth
 * sets the project).
 */
import type { GoogleCredentials } from '../model/google-credentials.js';
import { readGoogleCredentials } from '../model/google-credentials.js';
import type { VertexTarget } from '../model/gemini.js';
import type { Env, GetInput, InputIssue, InputName } from './inputs.js';

type Translation = { ours: InputName } | { unused: string } | { refused: (env: Env) => string | undefined };

const VIA_AUTH_STEP = 'google-github-actions/auth runs as a step of its own before this one (README "Authentication")';
const NO_CODE_ASSIST =
  'agent-action cannot use Gemini Code Assist (its API is not part of the @google/genai SDK; README "Authentication" says why): use a Gemini API key, or Vertex AI with use-vertex-ai';

/** run-gemini-cli's inputs (its action.yml), each as what it is here. */
const RUN_GEMINI_CLI: Record<string, Translation> = {
  gemini_api_key: { ours: 'gemini-api-key' },
  google_api_key: { ours: 'gemini-api-key' },
  gemini_model: { ours: 'model' },
  use_vertex_ai: { ours: 'use-vertex-ai' },
  gcp_project_id: { ours: 'google-cloud-project' },
  gcp_location: { ours: 'google-cloud-location' },
  use_gemini_code_assist: { refused: () => NO_CODE_ASSIST },
  gcp_workload_identity_provider: { refused: wifWithoutCredentials },
  gcp_service_account: { refused: wifWithoutCredentials },
  gcp_token_format: { unused: VIA_AUTH_STEP },
  gcp_access_token_scopes: { unused: VIA_AUTH_STEP },
  gemini_cli_version: { unused: 'agent-action runs its own agent, not an installed Gemini CLI' },
  gemini_debug: { unused: "re-run the job with debug logging for the action's debug lines" },
  extensions: { unused: "extensions load from the trusted commit's .gemini/extensions" },
  upload_artifacts: { unused: 'the outputs and the job summary carry the result' },
  use_pnpm: { unused: 'nothing is installed' },
  workflow_name: { unused: 'no telemetry is sent' },
  github_pr_number: { unused: 'the event names the pull request' },
  github_issue_number: { unused: 'the event names the issue; issue-number picks one for workflow_dispatch' },
};

/** Where google-github-actions/auth leaves its credentials file. */
const CREDENTIALS_VARIABLE = 'GOOGLE_APPLICATION_CREDENTIALS';

function wifWithoutCredentials(env: Env): string | undefined {
  if (env[CREDENTIALS_VARIABLE]) return undefined;
  return `agent-action does not run google-github-actions/auth itself: add it as a step before this one (with this workload_identity_provider and service_account, and permissions id-token: write), then set use-vertex-ai: true (README "Vertex AI through Workload Identity Federation")`;
}

/** Our inputs' fallbacks in the step's environment, in order (Gemini CLI's variables). */
const ENV_FALLBACK: Partial<Record<InputName, readonly string[]>> = {
  'gemini-api-key': ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  'use-vertex-ai': ['GOOGLE_GENAI_USE_VERTEXAI'],
  'google-cloud-project': ['GOOGLE_CLOUD_PROJECT'],
  'google-cloud-location': ['GOOGLE_CLOUD_LOCATION'],
};

export interface InputNames {
  /** getInput with run-gemini-cli's names and the environment's variables behind ours. */
  getInput: GetInput;
  errors: InputIssue[];
  warnings: string[];
  notices: string[];
}

/** The inputs the step was given: `INPUT_*` variables with a value, by their lower-cased names. */
const givenInputs = (env: Env): string[] =>
  Object.entries(env)
    .filter(([k, v]) => k.startsWith('INPUT_') && v?.trim())
    .map(([k]) => k.slice('INPUT_'.length).toLowerCase());

/**
 * Reads which inputs the step was given (from `INPUT_*`), and returns a getInput that answers for
 * ours with theirs and the environment behind: an input of ours wins when it is not left at its
 * default, then run-gemini-cli's name, then the environment.
 */
export function readInputNames(getInput: GetInput, env: Env, defaults: Readonly<Record<string, string>>): InputNames {
  const out: InputNames = { getInput, errors: [], warnings: [], notices: [] };
  const aliases = new Map<string, string[]>();
  const unused: string[] = [];
  for (const name of givenInputs(env)) {
    if (name in defaults) continue;
    const t = RUN_GEMINI_CLI[name] as Translation | undefined;
    if (t && 'ours' in t) aliases.set(t.ours, [...(aliases.get(t.ours) ?? []), name]);
    else if (t && 'unused' in t) unused.push(`${name} (${t.unused})`);
    else if (t) refuse(out, { name, why: t.refused(env), value: getInput(name).trim() }, unused);
    else {
      const meant = closestInput(name, Object.keys(defaults));
      if (meant)
        out.errors.push(issue(name, `input '${name}' is not an input of agent-action: did you mean '${meant}'?`));
      else unused.push(`${name} (not an input of agent-action or run-gemini-cli)`);
    }
  }
  if (/^true$/i.test(env.GOOGLE_GENAI_USE_GCA ?? ''))
    out.errors.push(issue('GOOGLE_GENAI_USE_GCA', `GOOGLE_GENAI_USE_GCA is true: ${NO_CODE_ASSIST}`, 'runner'));
  if (unused.length > 0) out.warnings.push(`inputs agent-action does not use, ignored: ${unused.join('; ')}`);
  const read = [...aliases].flatMap(([ours, names]) => names.map((n) => `${n} as ${ours}`));
  if (read.length > 0) out.notices.push(`run-gemini-cli's inputs read as agent-action's: ${read.join(', ')}`);
  out.getInput = aliasedGetInput(getInput, { env, defaults, aliases, errors: out.errors });
  return out;
}

/** A refused name is an error only when it asks for what cannot be done; otherwise it is unused. */
function refuse(
  out: InputNames,
  { name, why, value }: { name: string; why: string | undefined; value: string },
  unused: string[],
): void {
  if (name === 'use_gemini_code_assist' && !/^true$/i.test(value)) return; // false: nothing asked
  if (why) out.errors.push(issue(name, `input '${name}' (run-gemini-cli's) is set: ${why}`));
  else unused.push(`${name} (google-github-actions/auth already ran: its credentials file is used)`);
}

const issue = (input: string, message: string, source: InputIssue['source'] = 'input'): InputIssue => ({
  input,
  source,
  message,
});

function aliasedGetInput(
  getInput: GetInput,
  o: { env: Env; defaults: Readonly<Record<string, string>>; aliases: Map<string, string[]>; errors: InputIssue[] },
): GetInput {
  const values = new Map<string, string>();
  for (const [ours, names] of o.aliases) {
    const own = getInput(ours).trim();
    const theirs = [...new Set(names.map((n) => getInput(n).trim()).filter(Boolean))];
    const mine = own && own !== o.defaults[ours] ? [own] : [];
    if (new Set([...mine, ...theirs]).size > 1) {
      o.errors.push(
        issue(
          ours,
          `inputs ${[...(mine.length ? [ours] : []), ...names].map((n) => `'${n}'`).join(' and ')} disagree: set only '${ours}'`,
        ),
      );
    }
    if (!mine.length && theirs.length) values.set(ours, theirs[0]);
  }
  return (name) => {
    const own = getInput(name).trim();
    const alias = values.get(name);
    if (alias !== undefined) return alias;
    if (own) return own;
    const fallback = ENV_FALLBACK[name as InputName]?.map((v) => o.env[v]?.trim()).find(Boolean);
    return fallback ?? '';
  };
}

/** Pure: the input of ours a name was meant to be (same after `_` -> `-`, or at most 2 edits away). */
export function closestInput(name: string, ours: readonly string[]): string | undefined {
  const dashed = name.toLowerCase().replace(/[_\s]/g, '-');
  let best: { name: string; d: number } | undefined;
  for (const o of ours) {
    const d = o === dashed ? 0 : editDistance(dashed, o);
    if (d <= 2 && (!best || d < best.d)) best = { name: o, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** What parseInputs knows of Vertex AI (the credentials file is read later, by readInputs). */
export type VertexInput = { auth: 'api-key' } | { auth: 'adc'; project: string; location: string } | undefined;

/** Pure: `use-vertex-ai` and its project and location; an API key with Vertex AI is express mode. */
export function parseVertexInput(
  get: (name: InputName) => string,
  fail: (input: InputName, expected: string) => undefined,
): VertexInput {
  const raw = get('use-vertex-ai').toLowerCase();
  const [project, location] = [get('google-cloud-project'), get('google-cloud-location') || 'global'];
  const on = raw === 'true' || raw === '1';
  if (!on && raw !== '' && raw !== 'false' && raw !== '0')
    return fail('use-vertex-ai', 'true or false (empty: GOOGLE_GENAI_USE_VERTEXAI decides)');
  if (!on) return undefined;
  return get('gemini-api-key') ? { auth: 'api-key' } : { auth: 'adc', project, location };
}

export interface VertexCredentials {
  vertex?: VertexTarget;
  secrets: string[];
  errors: InputIssue[];
  /** A service-account key's private key: sessions are signed with a key derived from it when no session-key is set. */
  sessionSecret?: string;
}

/**
 * Vertex AI with Google Cloud credentials: the file GOOGLE_APPLICATION_CREDENTIALS names, read now
 * (its secrets masked and redacted), and the project (the input, GOOGLE_CLOUD_PROJECT, or a
 * service-account key's own). No variable: google-auth-library looks for credentials itself.
 */
export function readVertexCredentials(input: VertexInput, env: Env): VertexCredentials {
  if (input?.auth !== 'adc') return { vertex: input, secrets: [], errors: [] };
  const path = env[CREDENTIALS_VARIABLE];
  const file = path ? readGoogleCredentials(path, CREDENTIALS_VARIABLE) : undefined;
  if (file && 'error' in file) return { secrets: [], errors: [issue(CREDENTIALS_VARIABLE, file.error, 'runner')] };
  const project = input.project || file?.projectId || '';
  if (!project)
    return {
      secrets: file?.secrets ?? [],
      errors: [
        issue(
          'google-cloud-project',
          "input 'google-cloud-project' is empty: expected the Google Cloud project Vertex AI bills (or GOOGLE_CLOUD_PROJECT, which google-github-actions/auth sets when it knows the project)",
        ),
      ],
    };
  const credentials: GoogleCredentials | undefined = file?.credentials;
  const key = credentials?.type === 'service_account' ? credentials.private_key : undefined;
  return {
    vertex: {
      auth: 'adc',
      project,
      location: input.location,
      ...(credentials && { credentials }),
      ...(file?.tokenUri && { tokenUri: file.tokenUri }),
    },
    secrets: file?.secrets ?? [],
    errors: [],
    ...(typeof key === 'string' && { sessionSecret: key }),
  };
}
