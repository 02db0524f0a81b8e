/**
 * The only reader of `INPUT_*`. `parseInputs` is a pure function of an environment record: it builds
 * the whole settings object as one literal and collects every input error at once, each naming the
 * input, quoting the value and saying what is expected. `readInputs` masks the secrets first.
 */
import { parse as parseToml } from 'smol-toml';
import { AgentError, messageOf } from '../common/errors.js';
import type { ApprovalMode } from '../policy/types.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** A policy input: paths to TOML files, or TOML written inline in the workflow. */
export type PolicyInput = { kind: 'paths'; paths: string[] } | { kind: 'inline'; toml: string } | { kind: 'none' };

export interface ActionSettings {
  geminiApiKey: string;
  model: string;
  geminiBaseUrl?: string;
  githubToken: string;
  prompt?: string;
  trigger: string;
  /** undefined: per command (auto_edit for fix, plan otherwise). */
  approvalMode?: ApprovalMode;
  policy: PolicyInput;
  adminPolicy: PolicyInput;
  maxTurns: number;
  timeoutMs: number;
  maxCostUsd?: number;
  triageLabel: string;
  fixLabel: string;
  allowedBots: string[];
  approvalTimeoutMs: number;
  contextFileNames: string[];
  /** workflow_dispatch/schedule: triage or prompt about this one issue (a matrix fan-out). */
  issueNumber?: number;
  /** How model-run commands are isolated (issue #11): required refuses to run commands without the OS sandbox. */
  sandbox: SandboxRequirement;
  /** Sandboxed commands may reach the network. */
  sandboxNetwork: boolean;
  /** Signs session documents; undefined: derived from the Gemini API key. */
  sessionKey?: string;
  /** Labels triage may apply; empty: every repository label except the ones that trigger agent workflows. */
  triageLabels: string[];
}

export type SandboxRequirement = 'required' | 'auto' | 'off';

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
}

export interface InputIssue {
  input: string;
  message: string;
}

export type ParsedInputs = { ok: true; settings: ActionSettings; runner: RunnerEnv } | { ok: false; errors: InputIssue[] };

const MODES: Record<string, ApprovalMode> = { default: 'default', auto_edit: 'autoEdit', autoEdit: 'autoEdit', yolo: 'yolo', plan: 'plan' };
const SECRET_INPUTS = ['gemini-api-key', 'github-token', 'session-key'] as const;
const SANDBOX: Record<string, SandboxRequirement> = { required: 'required', auto: 'auto', off: 'off' };

/** `getInput` semantics: INPUT_<NAME upper-cased, spaces to _>, trimmed. Dashes stay dashes. */
export const inputOf = (env: Env, name: string): string => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();

export function parseInputs(env: Env): ParsedInputs {
  const errors: InputIssue[] = [];
  const get = (name: string) => inputOf(env, name);
  const fail = (input: string, expected: string): undefined => {
    errors.push({ input, message: `input '${input}' is ${JSON.stringify(get(input))}: expected ${expected}` });
    return undefined;
  };
  const required = (name: string, what: string): string => get(name) || (fail(name, what), '') || '';
  const int = (name: string, min: number, max: number): number => {
    const raw = get(name);
    const n = Number(raw);
    return /^\d+$/.test(raw) && n >= min && n <= max ? n : (fail(name, `a whole number from ${min} to ${max}`) ?? min);
  };
  const optionalNumber = (name: string): number | undefined => {
    const raw = get(name);
    if (!raw) return undefined;
    const n = Number(raw);
    return Number.isFinite(n) && n > 0 ? n : fail(name, 'a positive number (US dollars), or empty for no limit');
  };
  const mode = (): ApprovalMode | undefined => {
    const raw = get('approval-mode');
    if (!raw) return undefined;
    return MODES[raw] ?? fail('approval-mode', 'one of default, auto_edit, yolo, plan, or empty for the per-command default');
  };
  const policy = (name: string): PolicyInput => {
    const parsed = parsePolicyInput(get(name));
    if ('error' in parsed) {
      fail(name, `paths to TOML policy files or inline TOML [[rule]] tables (${parsed.error})`);
      return { kind: 'none' };
    }
    return parsed;
  };
  const duration = (name: string): number => parseDurationMs(get(name)) ?? fail(name, 'a duration such as 90m, 12h or 7d') ?? 0;
  const bool = (name: string): boolean => {
    const raw = get(name).toLowerCase();
    if (raw === '' || raw === 'false') return false;
    if (raw === 'true') return true;
    return fail(name, 'true or false') ?? false;
  };
  const trigger = get('trigger');
  const apiUrl = env.GITHUB_API_URL || 'https://api.github.com';
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const issueRaw = get('issue-number');

  const settings: ActionSettings = {
    geminiApiKey: required('gemini-api-key', 'a Gemini API key (pass it from a secret: ${{ secrets.GEMINI_API_KEY }})'),
    model: get('model') || 'gemini-2.5-pro',
    geminiBaseUrl: parseUrl(get('gemini-base-url')) ?? (get('gemini-base-url') ? fail('gemini-base-url', 'an http(s) URL, or empty') : undefined),
    githubToken: required('github-token', 'a GitHub token (the default is the workflow token, ${{ github.token }})'),
    prompt: get('prompt') || undefined,
    trigger: /^\S+$/.test(trigger) ? trigger : (fail('trigger', 'one word without spaces, such as /agent') ?? ''),
    approvalMode: mode(),
    policy: policy('policy'),
    adminPolicy: policy('admin-policy'),
    maxTurns: int('max-turns', 1, 1000),
    timeoutMs: int('timeout-minutes', 1, 360) * 60_000,
    maxCostUsd: optionalNumber('max-cost-usd'),
    triageLabel: get('triage-label'),
    fixLabel: get('fix-label'),
    allowedBots: splitList(get('allowed-bots')).map((b) => b.toLowerCase()),
    approvalTimeoutMs: duration('approval-timeout'),
    contextFileNames: splitList(get('context-file-names')),
    sandbox: SANDBOX[get('sandbox') || 'required'] ?? fail('sandbox', 'one of required, auto, off') ?? 'required',
    sandboxNetwork: bool('sandbox-network'),
    sessionKey: get('session-key') || undefined,
    triageLabels: splitList(get('triage-labels')),
    issueNumber: !issueRaw ? undefined : /^[1-9]\d*$/.test(issueRaw) ? Number(issueRaw) : fail('issue-number', 'an issue number, or empty'),
  };
  if (settings.contextFileNames.length === 0) settings.contextFileNames = ['GEMINI.md'];
  if (!owner || !repo) errors.push({ input: 'GITHUB_REPOSITORY', message: `GITHUB_REPOSITORY is ${JSON.stringify(env.GITHUB_REPOSITORY ?? '')}: expected owner/name (set by the runner)` });
  if (!env.GITHUB_EVENT_NAME) errors.push({ input: 'GITHUB_EVENT_NAME', message: 'GITHUB_EVENT_NAME is not set: expected the runner to set it' });
  if (errors.length > 0) return { ok: false, errors };
  const runner: RunnerEnv = {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    eventPath: env.GITHUB_EVENT_PATH ?? '',
    workspace: env.GITHUB_WORKSPACE || process.cwd(),
    repository: { owner, repo },
    apiUrl: apiUrl.replace(/\/+$/, ''),
    serverUrl: (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, ''),
    runId: env.GITHUB_RUN_ID || undefined,
    pacing: env.AGENT_ACTION_GITHUB_PACING === 'none' ? 'none' : 'github',
    checkpointEveryMs: /^\d+$/.test(env.AGENT_ACTION_CHECKPOINT_SECONDS ?? '') ? Number(env.AGENT_ACTION_CHECKPOINT_SECONDS) * 1000 : 5 * 60_000,
  };
  return { ok: true, settings, runner };
}

/** The secret inputs' values, for masking before anything else reads them. */
export const secretInputsOf = (env: Env): string[] => SECRET_INPUTS.map((n) => inputOf(env, n)).filter((v) => v.length > 0);

/**
 * Masks every secret the moment it is read, then parses. Throws one AgentError('input') naming the
 * first input and listing every problem in `details`.
 */
export function readInputs(env: Env, mask: (secret: string) => void): { settings: ActionSettings; runner: RunnerEnv } {
  for (const secret of secretInputsOf(env)) mask(secret);
  const parsed = parseInputs(env);
  if (!parsed.ok) {
    const [first] = parsed.errors;
    throw new AgentError('input', first.message, { site: { input: first.input }, details: parsed.errors.map((e) => e.message) });
  }
  return { settings: parsed.settings, runner: parsed.runner };
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
export const defaultModeFor = (command: string): ApprovalMode => (command === 'fix' || command === 'prompt' ? 'autoEdit' : 'plan');
