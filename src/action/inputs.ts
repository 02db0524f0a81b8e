/**
 * The only reader of the action's inputs, and only through a `getInput(name)` function: `@actions/core`'s
 * in a workflow (local-action substitutes its own), a function of a record in tests. `parseInputs`
 * builds the whole settings object as one literal and collects every input error at once;
 * `readInputs` masks the secrets first.
 */
import { parse as parseToml } from 'smol-toml';
import { messageOf } from '../common/errors.js';
import { parseOutputSchema, type OutputSchema } from '../core/output-schema.js';
import type { ApprovalMode } from '../policy/types.js';
import { parseSettingsText } from '../context/settings-file.js';
import { parseMcpServers, type McpServerConfig, type ParsedMcpServers } from '../tools/mcp/config.js';
import type { McpStartMode } from '../tools/mcp/manager.js';
import { DEFAULT_BOUNDS, type ProcessBounds } from '../sandbox/bounds.js';
import { parseSandboxEnvNames, parseSandboxLimits, resolveSandboxEnv } from './sandbox-inputs.js';
import { parseBaseBranch, parseBranchPrefix } from './branch-inputs.js';
import { checkoutHeaderOf, runnerTokensOf } from './credentials.js';
import type { VertexTarget } from '../model/gemini.js';
import { parseVertexInput, readInputNames, readVertexCredentials } from './auth-inputs.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** A policy input: paths to TOML files, or TOML written inline in the workflow. */
export type PolicyInput = { kind: 'paths'; paths: string[] } | { kind: 'inline'; toml: string } | { kind: 'none' };

export interface ActionSettings {
  /** The Gemini API's key, or a Vertex AI key (express mode) when `vertex` says api-key. */
  geminiApiKey: string;
  /** Vertex AI instead of the Gemini API (auth-inputs.ts); credentials from the file ADC names. */
  vertex?: VertexTarget;
  model: string;
  geminiBaseUrl?: string;
  githubToken: string;
  prompt?: string;
  trigger: string;
  /** `trigger-anywhere`: a comment addresses the agent wherever its prose names the trigger. */
  triggerAnywhere: boolean;
  /** undefined: per command (auto_edit for fix, plan otherwise). */
  approvalMode?: ApprovalMode;
  policy: PolicyInput;
  adminPolicy: PolicyInput;
  maxTurns: number;
  timeoutMs: number;
  maxCostUsd?: number;
  triageLabel: string;
  /** `triage-query`: a GitHub issue search selecting what the triage plan triages; undefined: the label's issues. */
  triageQuery?: string;
  fixLabel: string;
  /** pull_request_target.labeled with this label starts a review (the label-gated route for forks). */
  reviewLabel: string;
  allowedBots: string[];
  approvalTimeoutMs: number;
  contextFileNames: string[];
  /** workflow_dispatch/schedule: triage or prompt about this one issue (a matrix fan-out). */
  issueNumber?: number;
  /** How model-run commands are isolated (issue #11): required refuses to run commands without the OS sandbox. */
  sandbox: SandboxRequirement;
  /** Sandboxed commands may reach the network. */
  sandboxNetwork: boolean;
  /** `sandbox-env`: variables of the step's environment every command, hook and MCP server gets, read at start. */
  sandboxEnv: Record<string, string>;
  /** `sandbox-limits`: what bounds each sandboxed call. */
  sandboxLimits: ProcessBounds;
  /** Signs session documents; undefined: derived from the Gemini API key. */
  sessionKey?: string;
  /** Labels triage may apply; empty: every repository label except the ones that trigger agent workflows. */
  triageLabels: string[];
  /** MCP servers the workflow adds (`mcp-servers`, settings.json's schema); `$VAR`s resolved from the step's environment. */
  mcpServers: McpServerConfig[];
  /** `settings`: Gemini CLI settings (settings.json's schema), the workflow's own; its mcpServers are also in mcpServers. */
  settingsInput?: Record<string, unknown>;
  /** When MCP servers start: with the agent (eager) or at the first model request (lazy). */
  mcpStart: McpStartMode;
  /** `mcp-network`: stdio servers that may reach the network, whatever `sandbox-network` says. */
  mcpNetwork: string[];
  /** 'event': the event says what to do; the triage modes ignore it (issue #17). */
  mode: ActionMode;
  /** Nightly triage at scale: the plan and its shards. */
  triage: TriageSettings;
  /** Files larger than this are left out of the agent's commits (at most GitHub's 100 MiB). */
  maxFileBytes: number;
  /** The pull request's base and where the agent's work starts; undefined: the default branch. */
  baseBranch?: string;
  /** The start of every branch the agent creates (`agent-action/`). */
  branchPrefix: string;
  /** Commits made through GitHub's API, which signs them, instead of git push. */
  commitSigning: boolean;
  /** `output-schema`: the final answer is also asked for, and checked, as JSON of this shape. */
  outputSchema?: OutputSchema;
}

type ActionMode = 'event' | 'triage-plan' | 'triage';

interface TriageSettings {
  /** mode triage: the shard's issues, in the plan's order. */
  issues: number[];
  /** The durable marker: this label plus a marker comment (src/action/triage/triage-marker.ts). */
  triagedLabel: string;
  maxShards: number;
  shardSize: number;
  /** Shard jobs at once: the plan divides the write budget by it. */
  maxParallel: number;
  /** Issues of one shard triaged at once. */
  concurrency: number;
  /** Each issue's own money budget; undefined: max-cost-usd applies to each issue. */
  maxCostUsdPerIssue?: number;
  dryRun: boolean;
  /** This shard's share of GitHub's content-creation guidance (80 a minute, 500 an hour). */
  writesPerMinute: number;
  writesPerHour: number;
}

type SandboxRequirement = 'required' | 'auto' | 'off';

/** What the runner tells every action through its environment. */
export interface RunnerEnv {
  eventName: string;
  eventPath: string;
  workspace: string;
  repository: { owner: string; repo: string };
  apiUrl: string;
  serverUrl: string;
  runId?: string;
  /** GitHub's request pacing (1 s between writes) or none: tests against a loopback server. */
  pacing: 'github' | 'none';
  /**
   * How often a long run checkpoints its session after a settled batch (default 5 minutes, so
   * short runs never pay for a push). `AGENT_ACTION_CHECKPOINT_SECONDS` sets it, for tests.
   */
  checkpointEveryMs: number;
  /** The least time between edits of the progress comment (default 10 s). `AGENT_ACTION_PROGRESS_SECONDS` sets it, for tests. */
  progressEveryMs: number;
}

/** One problem with an input (`max-turns`) or a runner variable (`GITHUB_REPOSITORY`). */
export interface InputIssue {
  /** An input's action.yml name, or the runner variable's name. */
  input: string;
  source: 'input' | 'runner';
  message: string;
}

/** On errors, `settings` still holds what parsed (each bad input at its fallback): enough to answer in the thread. */
export type ParsedInputs =
  { ok: true; settings: ActionSettings } | { ok: false; errors: InputIssue[]; settings: ActionSettings };
export type ParsedRunnerEnv = { ok: true; runner: RunnerEnv } | { ok: false; errors: InputIssue[] };

/** `@actions/core`'s getInput (local-action substitutes its own); tests pass a function of a record. */
export type GetInput = (name: string) => string;

/**
 * action.yml's defaults, input by input. An input that arrives empty takes its default here, so the
 * action never fails on an input the workflow did not set (a test holds this table equal to the
 * parsed action.yml). `${{ github.token }}` is the runner's to evaluate; arriving unevaluated (under
 * local-action) it is an error that says what to set.
 */
export const INPUT_DEFAULTS = {
  'gemini-api-key': '',
  model: 'gemini-2.5-pro',
  'gemini-base-url': '',
  'use-vertex-ai': '',
  'google-cloud-project': '',
  'google-cloud-location': '',
  'github-token': '${{ github.token }}',
  prompt: '',
  trigger: '/agent',
  'trigger-anywhere': 'false',
  'approval-mode': '',
  policy: '',
  'admin-policy': '',
  'max-turns': '40',
  'timeout-minutes': '30',
  'max-cost-usd': '',
  'triage-label': 'needs-triage',
  'triage-query': '',
  'fix-label': 'agent-fix',
  'review-label': 'agent-review',
  'allowed-bots': '',
  'approval-timeout': '7d',
  'context-file-names': 'GEMINI.md',
  sandbox: 'required',
  'sandbox-network': 'false',
  'sandbox-env': '',
  'sandbox-limits': 'processes=1024 memory=8G file-size=1G open-files=8192',
  'session-key': '',
  'triage-labels': '',
  'mcp-servers': '',
  settings: '',
  'mcp-start': 'eager',
  'mcp-network': '',
  'issue-number': '',
  mode: '',
  issues: '',
  'triaged-label': 'agent:triaged',
  'max-shards': '20',
  'shard-size': '20',
  'max-parallel': '4',
  'triage-concurrency': '2',
  'max-cost-usd-per-issue': '',
  'dry-run': 'false',
  'writes-per-minute': '80',
  'writes-per-hour': '500',
  'max-file-size': '100MB',
  'base-branch': '',
  'branch-prefix': 'agent-action/',
  'commit-signing': 'false',
  'output-schema': '',
} as const satisfies Record<string, string>;

export type InputName = keyof typeof INPUT_DEFAULTS;

const MODES: Record<string, ApprovalMode> = {
  default: 'default',
  auto_edit: 'autoEdit',
  autoEdit: 'autoEdit',
  yolo: 'yolo',
  plan: 'plan',
};
/** Inputs that hold credentials: masked before anything else is read, then removed from the environment. */
export const SECRET_INPUTS = ['gemini-api-key', 'github-token', 'session-key'] as const satisfies readonly InputName[];
const SANDBOX: Record<string, SandboxRequirement> = { required: 'required', auto: 'auto', off: 'off' };
const EXPRESSION = /^\$\{\{[\s\S]*\}\}$/;
const ACTION_MODES: Record<string, ActionMode> = { '': 'event', 'triage-plan': 'triage-plan', triage: 'triage' };

/** An input's value: trimmed (as core.getInput does; local-action's does not), its default when empty. */
const inputValue = (getInput: GetInput, name: InputName): string => getInput(name).trim() || INPUT_DEFAULTS[name];

/** What each input's parser needs: the input's value, and a way to record a problem (then take the fallback). */
interface InputReader {
  get: (name: InputName) => string;
  fail: (input: InputName, expected: string) => undefined;
}

/** A reader that collects every problem into `errors`, each naming its input and quoting its value. */
function inputReader(getInput: GetInput, errors: InputIssue[]): InputReader {
  const get = (name: InputName) => inputValue(getInput, name);
  const fail = (input: InputName, expected: string): undefined => {
    errors.push({
      input,
      source: 'input',
      message: `input '${input}' is ${JSON.stringify(get(input))}: expected ${expected}`,
    });
    return undefined;
  };
  return { get, fail };
}

function intInput(r: InputReader, name: InputName, range: { min: number; max: number }): number {
  const { min, max } = range;
  const raw = r.get(name);
  const n = Number(raw);
  return /^\d+$/.test(raw) && n >= min && n <= max ? n : (r.fail(name, `a whole number from ${min} to ${max}`) ?? min);
}

function optionalNumberInput(r: InputReader, name: InputName): number | undefined {
  const raw = r.get(name);
  if (!raw) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : r.fail(name, 'a positive number (US dollars), or empty for no limit');
}

function approvalModeInput(r: InputReader): ApprovalMode | undefined {
  const raw = r.get('approval-mode');
  if (!raw) return undefined;
  return (
    MODES[raw] ?? r.fail('approval-mode', 'one of default, auto_edit, yolo, plan, or empty for the per-command default')
  );
}

function policyInput(r: InputReader, name: InputName): PolicyInput {
  const parsed = parsePolicyInput(r.get(name));
  if ('error' in parsed) {
    r.fail(name, `paths to TOML policy files or inline TOML [[rule]] tables (${parsed.error})`);
    return { kind: 'none' };
  }
  return parsed;
}

const durationInput = (r: InputReader, name: InputName): number =>
  parseDurationMs(r.get(name)) ?? r.fail(name, 'a duration such as 90m, 12h or 7d') ?? 0;

function boolInput(r: InputReader, name: InputName): boolean {
  const raw = r.get(name).toLowerCase();
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return r.fail(name, 'true or false') ?? false;
}

function tokenInput(r: InputReader): string {
  const raw = r.get('github-token');
  if (!EXPRESSION.test(raw)) return raw;
  return (
    r.fail(
      'github-token',
      'a token; the expression was not evaluated (outside a GitHub runner, under local-action say, set INPUT_GITHUB-TOKEN)',
    ) ?? ''
  );
}

function sandboxLimitsInput(r: InputReader): ProcessBounds {
  const parsed = parseSandboxLimits(r.get('sandbox-limits'));
  return 'bounds' in parsed
    ? parsed.bounds
    : (r.fail(
        'sandbox-limits',
        `limits such as processes=1024 memory=8G file-size=1G open-files=8192 (${parsed.error})`,
      ) ?? DEFAULT_BOUNDS);
}

const geminiBaseUrlInput = (r: InputReader): string | undefined =>
  parseUrl(r.get('gemini-base-url')) ??
  (r.get('gemini-base-url') ? r.fail('gemini-base-url', 'an http(s) URL, or empty') : undefined);

function triggerInput(r: InputReader): string {
  const trigger = r.get('trigger');
  return /^\S+$/.test(trigger) ? trigger : (r.fail('trigger', 'one word without spaces, such as /agent') ?? '');
}

function mcpStartInput(r: InputReader): McpStartMode {
  const raw = r.get('mcp-start');
  return raw === 'lazy' ? 'lazy' : raw === 'eager' ? 'eager' : (r.fail('mcp-start', 'eager or lazy') ?? 'eager');
}

function issueNumberInput(r: InputReader): number | undefined {
  const raw = r.get('issue-number');
  if (!raw) return undefined;
  return /^[1-9]\d*$/.test(raw) ? Number(raw) : r.fail('issue-number', 'an issue number, or empty');
}

const maxFileBytesInput = (r: InputReader): number =>
  parseFileSize(r.get('max-file-size')) ??
  r.fail('max-file-size', 'a size from 1 byte to 100MB (GitHub refuses larger files), such as 500KB or 20MB') ??
  MAX_FILE_BYTES;

function baseBranchInput(r: InputReader): string | undefined {
  const parsed = parseBaseBranch(r.get('base-branch'));
  return 'error' in parsed ? r.fail('base-branch', `${parsed.error}, or empty for the default branch`) : parsed.value;
}

function branchPrefixInput(r: InputReader): string {
  const parsed = parseBranchPrefix(r.get('branch-prefix'));
  return 'error' in parsed ? (r.fail('branch-prefix', parsed.error) ?? INPUT_DEFAULTS['branch-prefix']) : parsed.value;
}

/** Names only (their values are read later, by readInputs): here just checked. */
function checkSandboxEnvNames(r: InputReader): void {
  const envNames = parseSandboxEnvNames(r.get('sandbox-env'));
  if ('error' in envNames)
    r.fail(
      'sandbox-env',
      `names of variables of the step's environment, separated by commas or spaces (${envNames.error})`,
    );
}

/** `mode` and `issues` together: mode triage needs the shard's issues. */
function modeAndIssuesInputs(r: InputReader): { actionMode: ActionMode; issues: number[] | undefined } {
  const actionMode =
    ACTION_MODES[r.get('mode')] ?? r.fail('mode', 'triage-plan, triage, or empty to act on the event') ?? 'event';
  const issues = parseIssueList(r.get('issues'));
  if (issues === undefined)
    r.fail('issues', 'issue numbers as a JSON array ([12, 15]) or separated by commas or spaces');
  else if (actionMode === 'triage' && issues.length === 0)
    r.fail('issues', 'the issues of this shard (mode triage), e.g. ${{ toJSON(matrix.issues) }}');
  return { actionMode, issues };
}

function triageSettingsOf(r: InputReader, issues: number[] | undefined): TriageSettings {
  return {
    issues: issues ?? [],
    triagedLabel: r.get('triaged-label'),
    maxShards: intInput(r, 'max-shards', { min: 1, max: 256 }),
    shardSize: intInput(r, 'shard-size', { min: 1, max: 500 }),
    maxParallel: intInput(r, 'max-parallel', { min: 1, max: 256 }),
    concurrency: intInput(r, 'triage-concurrency', { min: 1, max: 16 }),
    maxCostUsdPerIssue: optionalNumberInput(r, 'max-cost-usd-per-issue'),
    dryRun: boolInput(r, 'dry-run'),
    writesPerMinute: intInput(r, 'writes-per-minute', { min: 1, max: 1000 }),
    writesPerHour: intInput(r, 'writes-per-hour', { min: 1, max: 100_000 }),
  };
}

/**
 * Pure: every input through `getInput`, as one settings literal, with every problem collected, each
 * naming its input, quoting the value and saying what is expected. The Gemini API key may be empty
 * here: a run that never asks the model (a skipped event, `/agent help`) does not need one.
 */
export function parseInputs(getInput: GetInput): ParsedInputs {
  const errors: InputIssue[] = [];
  const r = inputReader(getInput, errors);
  const { get, fail } = r;
  // Checked first so the errors keep the order they have always had.
  checkSandboxEnvNames(r);
  const { actionMode, issues } = modeAndIssuesInputs(r);

  const settings: ActionSettings = {
    geminiApiKey: get('gemini-api-key'),
    vertex: parseVertexInput(get, fail),
    model: get('model'),
    geminiBaseUrl: geminiBaseUrlInput(r),
    githubToken: tokenInput(r),
    prompt: get('prompt') || undefined,
    trigger: triggerInput(r),
    triggerAnywhere: boolInput(r, 'trigger-anywhere'),
    approvalMode: approvalModeInput(r),
    policy: policyInput(r, 'policy'),
    adminPolicy: policyInput(r, 'admin-policy'),
    maxTurns: intInput(r, 'max-turns', { min: 1, max: 1000 }),
    timeoutMs: intInput(r, 'timeout-minutes', { min: 1, max: 360 }) * 60_000,
    maxCostUsd: optionalNumberInput(r, 'max-cost-usd'),
    triageLabel: get('triage-label'),
    triageQuery: get('triage-query') || undefined,
    fixLabel: get('fix-label'),
    reviewLabel: get('review-label'),
    allowedBots: splitList(get('allowed-bots')).map((b) => b.toLowerCase()),
    approvalTimeoutMs: durationInput(r, 'approval-timeout'),
    contextFileNames: splitList(get('context-file-names')),
    sandbox: SANDBOX[get('sandbox')] ?? fail('sandbox', 'one of required, auto, off') ?? 'required',
    sandboxNetwork: boolInput(r, 'sandbox-network'),
    // Names only: readInputs reads their values from the step's environment.
    sandboxEnv: {},
    sandboxLimits: sandboxLimitsInput(r),
    sessionKey: get('session-key') || undefined,
    triageLabels: splitList(get('triage-labels')),
    mcpServers: mcpServersOf(get('mcp-servers'), (why) => fail('mcp-servers', why)).servers,
    settingsInput: settingsInputOf(get('settings'), errors),
    mcpStart: mcpStartInput(r),
    mcpNetwork: splitList(get('mcp-network')),
    issueNumber: issueNumberInput(r),
    mode: actionMode,
    triage: triageSettingsOf(r, issues),
    maxFileBytes: maxFileBytesInput(r),
    baseBranch: baseBranchInput(r),
    branchPrefix: branchPrefixInput(r),
    commitSigning: boolInput(r, 'commit-signing'),
    outputSchema: outputSchemaInput(r),
  };
  if (settings.contextFileNames.length === 0) settings.contextFileNames = ['GEMINI.md'];
  if (!settings.settingsInput) delete settings.settingsInput;
  if (settings.triageQuery === undefined) delete settings.triageQuery;
  return errors.length > 0 ? { ok: false, errors, settings } : { ok: true, settings };
}

/** Empty: none. Checked against its draft's meta-schema now, so a bad one fails before any model call. */
function outputSchemaInput(r: InputReader): OutputSchema | undefined {
  const raw = r.get('output-schema').trim();
  if (!raw) return undefined;
  const parsed = parseOutputSchema(raw);
  if (parsed.ok) return parsed.value;
  r.fail('output-schema', `a JSON Schema as JSON text: ${parsed.message}`);
  return undefined;
}

/** GitHub refuses a push carrying a file over 100 MiB, whatever the input says. */
const MAX_FILE_BYTES = 100 * 1024 * 1024;
const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2 };

/** Pure: `20MB`, `500 KiB`, `1048576` -> bytes (units of 1024, as GitHub counts MB); undefined when not a size within 1 byte and 100 MiB. */
export function parseFileSize(raw: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(raw.trim());
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * unit);
  return bytes >= 1 && bytes <= MAX_FILE_BYTES ? bytes : undefined;
}

/** Pure: what the runner says through GITHUB_* (and the test switches AGENT_ACTION_*). */
export function parseRunnerEnv(env: Env): ParsedRunnerEnv {
  const errors: InputIssue[] = [];
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  if (!owner || !repo)
    errors.push({
      input: 'GITHUB_REPOSITORY',
      source: 'runner',
      message: `GITHUB_REPOSITORY is ${JSON.stringify(env.GITHUB_REPOSITORY ?? '')}: expected owner/name (set by the runner)`,
    });
  if (!env.GITHUB_EVENT_NAME)
    errors.push({
      input: 'GITHUB_EVENT_NAME',
      source: 'runner',
      message: 'GITHUB_EVENT_NAME is not set: expected the runner to set it',
    });
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    runner: {
      eventName: env.GITHUB_EVENT_NAME ?? '',
      eventPath: env.GITHUB_EVENT_PATH ?? '',
      workspace: env.GITHUB_WORKSPACE || process.cwd(),
      repository: { owner, repo },
      apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
      serverUrl: (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, ''),
      runId: env.GITHUB_RUN_ID || undefined,
      pacing: env.AGENT_ACTION_GITHUB_PACING === 'none' ? 'none' : 'github',
      checkpointEveryMs: /^\d+$/.test(env.AGENT_ACTION_CHECKPOINT_SECONDS ?? '')
        ? Number(env.AGENT_ACTION_CHECKPOINT_SECONDS) * 1000
        : 5 * 60_000,
      progressEveryMs: /^\d+$/.test(env.AGENT_ACTION_PROGRESS_SECONDS ?? '')
        ? Number(env.AGENT_ACTION_PROGRESS_SECONDS) * 1000
        : 10_000,
    },
  };
}

/** The secret inputs' values, read once (for masking, then for scrubbing the environment). */
const secretInputsOf = (getInput: GetInput): string[] =>
  SECRET_INPUTS.map((n) => getInput(n).trim()).filter((v) => v.length > 0 && !EXPRESSION.test(v));

/** Every credential the run holds from the start: the secret inputs, the checkout header the token makes, the runner's tokens. */
function credentialsOf(getInput: GetInput, env: Env): string[] {
  const inputs = secretInputsOf(getInput);
  const token = getInput('github-token').trim();
  const header = token && !EXPRESSION.test(token) ? [checkoutHeaderOf(token)] : [];
  return [...new Set([...inputs, ...header, ...runnerTokensOf(env)])];
}

/** What readInputs found: the settings or the errors, and the secrets either way. */
type ReadInputs =
  | { ok: true; settings: ActionSettings; runner: RunnerEnv; secrets: string[] }
  /** What parsed comes along (`settings`, and `runner` when the runner's variables did), so the errors can be answered in the thread. */
  | { ok: false; errors: InputIssue[]; secrets: string[]; settings: ActionSettings; runner?: RunnerEnv };

/** Lines for the log about the names read (run-gemini-cli's, auth-inputs.ts): notices and one warning. */
export interface InputNotes {
  warnings: string[];
  notices: string[];
}

/**
 * Reads every input once, under our names or run-gemini-cli's, with the step's environment behind
 * them (auth-inputs.ts): masks the secrets first (so even an error message cannot show one), then
 * parses the inputs and the runner's variables, collecting the problems of both, then reads the
 * Google Cloud credentials file when Vertex AI is to use it (its secrets masked as it is read).
 */
export function readInputs(
  given: GetInput,
  env: Env,
  mask: (secret: string) => void,
): ReadInputs & { notes: InputNotes } {
  const names = readInputNames(given, env, INPUT_DEFAULTS);
  const read = readNamedInputs(names.getInput, env, mask);
  const notes = { warnings: names.warnings, notices: names.notices };
  const vertex = readVertexCredentials(read.settings.vertex, env);
  for (const v of vertex.secrets) {
    if (read.secrets.includes(v)) continue;
    read.secrets.push(v);
    mask(v);
  }
  const settings: ActionSettings = {
    ...read.settings,
    vertex: vertex.vertex,
    sessionKey: read.settings.sessionKey ?? vertex.sessionSecret,
  };
  const errors = [...names.errors, ...vertex.errors, ...(read.ok ? [] : read.errors)];
  if (read.ok && errors.length === 0) return { ...read, settings, notes };
  return { ok: false, errors, secrets: read.secrets, settings, notes, ...(read.runner && { runner: read.runner }) };
}

function readNamedInputs(getInput: GetInput, env: Env, mask: (secret: string) => void): ReadInputs {
  const secrets = credentialsOf(getInput, env);
  for (const secret of secrets) mask(secret);
  const inputs = parseInputs(getInput);
  const runner = parseRunnerEnv(env);
  const passed = inputs.ok ? resolveSandboxEnv(inputValue(getInput, 'sandbox-env'), env, secrets) : undefined;
  if (passed?.problems.length)
    return {
      ok: false,
      errors: passed.problems.map((p) => ({
        input: 'sandbox-env',
        source: 'input',
        message: `input 'sandbox-env': ${p}`,
      })),
      secrets,
      settings: inputs.settings,
      ...(runner.ok && { runner: runner.runner }),
    };
  if (inputs.ok && runner.ok) {
    // `$VAR`s of the workflow's own MCP servers come from the step's environment, read now, before
    // secrets leave it; a value that looks like a credential joins the secrets (masked, redacted).
    const resolved = resolveMcpServers(inputValue(getInput, 'mcp-servers'), env, inputs.settings.settingsInput);
    for (const v of [...resolved.secrets, ...passed!.secrets]) {
      if (secrets.includes(v)) continue;
      secrets.push(v);
      mask(v);
    }
    return {
      ok: true,
      settings: { ...inputs.settings, mcpServers: resolved.servers, sandboxEnv: passed!.env },
      runner: runner.runner,
      secrets,
    };
  }
  return {
    ok: false,
    errors: [...(inputs.ok ? [] : inputs.errors), ...(runner.ok ? [] : runner.errors)],
    secrets,
    settings: inputs.settings,
    ...(runner.ok && { runner: runner.runner }),
  };
}

/**
 * The `mcp-servers` input: JSON in settings.json's schema, `{ "name": { ... } }` or `{ "mcpServers":
 * { ... } }`. Strict (a workflow's own input): any problem is an input error. References are kept.
 */
function mcpServersOf(raw: string, fail: (why: string) => undefined, env?: Env): ParsedMcpServers {
  const none: ParsedMcpServers = { servers: [], problems: [], secrets: [] };
  if (!raw) return none;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return (
      fail(
        `a JSON object of server names to settings, as settings.json's mcpServers (${messageOf(e).split('\n')[0]})`,
      ) ?? none
    );
  }
  const inner = (value as { mcpServers?: unknown } | null)?.mcpServers;
  const servers = inner !== undefined && Object.keys(value as object).length === 1 ? inner : value;
  const parsed = parseMcpServers(servers, {
    source: { label: "input 'mcp-servers'", origin: 'workflow' },
    ...(env && { env }),
  });
  if (parsed.problems.length > 0)
    return (
      fail(
        `valid MCP server settings: ${parsed.problems.map((p) => `${p.path.replace(/^mcpServers\./, '')}: ${p.message}`).join('; ')}`,
      ) ?? none
    );
  return parsed;
}

/**
 * The `mcp-servers` input with `$VAR`, `${VAR}` resolved from the step's environment (the workflow
 * author chose both the reference and, in `env:`, what it holds). A resolved value is a secret when
 * the variable's name or the field it fills says so (`*_TOKEN`, `*_KEY`, `Authorization`...).
 */
function resolveMcpServers(
  raw: string,
  env: Env,
  settingsInput: Record<string, unknown> | undefined,
): { servers: McpServerConfig[]; secrets: string[] } {
  // The `settings` input's servers first: `mcp-servers` wins a name both give.
  const fromSettings = settingsInput ? settingsServersOf(settingsInput, () => undefined, env) : undefined;
  const fromInput = mcpServersOf(raw, () => undefined, env);
  return {
    servers: [...(fromSettings?.servers ?? []), ...fromInput.servers],
    secrets: [...(fromSettings?.secrets ?? []), ...fromInput.secrets],
  };
}

/**
 * The `settings` input: a JSON object in settings.json's schema (comments allowed, as Gemini CLI
 * allows them in the file). Bad JSON is an error naming the input and where it breaks; so is a bad
 * `mcpServers` entry (a workflow's own input is strict, as `mcp-servers` is).
 */
function settingsInputOf(raw: string, errors: InputIssue[]): Record<string, unknown> | undefined {
  if (!raw) return undefined;
  const fail = (why: string) => {
    errors.push({ input: 'settings', source: 'input', message: `input 'settings' ${why}` });
    return undefined;
  };
  const parsed = parseSettingsText(raw);
  if ('error' in parsed) return fail(parsed.error.startsWith('not ') ? `is ${parsed.error}` : parsed.error);
  settingsServersOf(parsed.value, (why) => fail(`mcpServers: expected ${why}`));
  return parsed.value;
}

function settingsServersOf(
  value: Record<string, unknown>,
  fail: (why: string) => undefined,
  env?: Env,
): ParsedMcpServers {
  const none: ParsedMcpServers = { servers: [], problems: [], secrets: [] };
  if (value.mcpServers === undefined) return none;
  const parsed = parseMcpServers(value.mcpServers, {
    source: { label: "input 'settings'", origin: 'workflow' },
    ...(env && { env }),
  });
  if (parsed.problems.length > 0)
    return (
      fail(`valid MCP server settings: ${parsed.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`) ?? none
    );
  return parsed;
}

/** Inline TOML when it has a newline or a table header; otherwise paths separated by commas or newlines. */
export function parsePolicyInput(raw: string): PolicyInput | { error: string } {
  if (!raw) return { kind: 'none' };
  if (raw.includes('\n') && /^\s*\[/m.test(raw)) {
    try {
      parseToml(raw);
      return { kind: 'inline', toml: raw };
    } catch (e) {
      return { error: `TOML does not parse: ${messageOf(e).split('\n')[0]}` };
    }
  }
  if (/^\s*\[/.test(raw) || raw.includes('=')) {
    try {
      parseToml(raw);
      return { kind: 'inline', toml: raw };
    } catch (e) {
      return { error: `TOML does not parse: ${messageOf(e).split('\n')[0]}` };
    }
  }
  const paths = splitList(raw);
  const bad = paths.find((p) => !/\.toml$/i.test(p));
  return bad ? { error: `'${bad}' is not a .toml path` } : { kind: 'paths', paths };
}

/** "90m", "12h", "7d", "30s"; a bare number is minutes. */
export function parseDurationMs(raw: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)?$/.exec(raw);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'm') as 's' | 'm' | 'h' | 'd'];
  return n > 0 ? n * unit : undefined;
}

/** `[12, 15]` (a matrix entry through toJSON), `12,15` or `12 15`; undefined when malformed. Duplicates dropped. */
function parseIssueList(raw: string): number[] | undefined {
  if (!raw) return [];
  let items: unknown[];
  if (raw.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!Array.isArray(parsed)) return undefined;
      items = parsed;
    } catch {
      return undefined;
    }
  } else {
    items = raw.split(/[\s,]+/).filter(Boolean);
  }
  const numbers = items.map((x) =>
    typeof x === 'number' ? String(x) : typeof x === 'string' ? x.trim().replace(/^#/, '') : '',
  );
  if (numbers.some((n) => !/^[1-9]\d{0,9}$/.test(n))) return undefined;
  return [...new Set(numbers.map(Number))];
}

const splitList = (raw: string): string[] =>
  raw
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

function parseUrl(raw: string): string | undefined {
  if (!raw) return undefined;
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? raw.replace(/\/+$/, '') : undefined;
  } catch {
    return undefined;
  }
}

/** Per-command default: edits allowed for fix (and a workflow author's own prompt), read-only planning otherwise. */
export const defaultModeFor = (command: string): ApprovalMode =>
  command === 'fix' || command === 'prompt' ? 'autoEdit' : 'plan';
