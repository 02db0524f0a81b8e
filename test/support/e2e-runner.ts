/**
 * Runs the bundled action (dist/index.js) the way a GitHub runner does: a child process with the
 * event payload in a file, the runner's GITHUB_* variables, and an INPUT_<NAME> for every input of
 * action.yml as the `yaml` package parses it (its default where the caller gives none, with
 * `${{ github.token }}` evaluated as the runner would), so a new input's default is tested without
 * editing this file. Returns the exit code, the output streams,
 * the parsed GITHUB_OUTPUT file, the step summary and the workflow-command annotations.
 *
 *   const remote = createRemote({ files: { 'src/a.ts': '...' } });  // the repository on "GitHub"
 *   const job = jobFor(remote, jobEventOf('issue_comment', payload));  // what the runner checks out
 *   const r = await runAction({ eventName: 'issue_comment', payload, job,
 *     inputs: { 'gemini-base-url': gemini.baseUrl }, env: { GITHUB_API_URL: gh.url } });
 *   r.outputs.status   // 'success'
 *
 * The workspace and GITHUB_REF, GITHUB_SHA, GITHUB_HEAD_REF and GITHUB_REPOSITORY come from the job
 * (test/support/runner-model.ts): what GitHub and actions/checkout give that event. No test prepares
 * a checkout by hand.
 *
 * Also here, shared by the end-to-end tests and `npm run demo`: real webhook payloads from
 * @octokit/webhooks-examples pointed at the fake's repository, and a resolver that lets the fake
 * GitHub see the branches pushed to the bare origin (it has no git of its own).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readActionInputs } from './action-yml.js';
import { GIT_IDENTITY, makeTempDir } from './git-repo.js';
import { RUNNER_TOKEN, type Job } from './runner-model.js';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** dist/index.js; E2E_ACTION_BUNDLE points at a copy instead (to test one build while dist/ is rebuilt). */
export const BUNDLE = process.env.E2E_ACTION_BUNDLE || join(REPO_ROOT, 'dist/index.js');

export interface RunActionOptions {
  /** The node binary that runs the bundle (default: this process's; node 24 is what action.yml declares). */
  node?: string;
  eventName: string;
  payload: unknown;
  /** The event file's exact text instead of the payload as JSON (a broken file, say). */
  eventText?: string;
  /** Inputs by their action.yml names (`approval-mode`); the rest take action.yml's defaults. */
  inputs?: Record<string, string>;
  /** The job the step runs in: its workspace (GITHUB_WORKSPACE, the child's working directory) and variables. */
  job: Job;
  /** Extra or overriding environment (GITHUB_API_URL for the fake GitHub, say). */
  env?: Record<string, string | undefined>;
  /** The script to run; default dist/index.js. */
  bundle?: string;
  /** Kill the child after this long (default 180 s): a hung action fails its test, not the suite. */
  timeoutMs?: number;
  /** SIGKILL the child when this aborts: a runner that dies at a moment the test chooses. */
  kill?: AbortSignal;
}

interface Annotation {
  level: 'error' | 'warning' | 'notice';
  message: string;
  properties: Record<string, string>;
}

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** GITHUB_OUTPUT, parsed (`name=value` and `name<<DELIM` blocks). */
  outputs: Record<string, string>;
  /** GITHUB_STEP_SUMMARY's content. */
  summary: string;
  /** `::error ...::msg` (and warning, notice) lines from stdout. */
  annotations: Annotation[];
  /** The environment the child ran with (for a demo to show, or a test to reuse). */
  env: Record<string, string>;
}

/** `${{ github.token }}` and friends, as the runner evaluates them before the action starts. */
function evaluateDefault(value: string, ctx: Record<string, string>): string {
  return value.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_m, expr: string) => ctx[expr] ?? '');
}

/** What `core.setOutput` wrote: `name<<DELIM\nvalue\nDELIM` blocks (and plain `name=value`). */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line) continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delim] = heredoc;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delim; i++) value.push(lines[i]);
      out[name] = value.join('\n');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** `::error title=input approval-mode::message` -> { level, message, properties }. */
function parseAnnotations(stdout: string): Annotation[] {
  const out: Annotation[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    const m = /^::(error|warning|notice)(?: ([^:]*))?::(.*)$/.exec(line);
    if (!m) continue;
    const properties: Record<string, string> = {};
    for (const kv of (m[2] ?? '').split(',').filter(Boolean)) {
      const eq = kv.indexOf('=');
      if (eq > 0) properties[kv.slice(0, eq)] = decodeCommand(kv.slice(eq + 1));
    }
    out.push({ level: m[1] as Annotation['level'], message: decodeCommand(m[3]), properties });
  }
  return out;
}

const decodeCommand = (s: string) =>
  s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');

/** Variables of the test process a runner would not have: they must not leak into the child. */
const LEAKY = /^(INPUT_|GITHUB_|RUNNER_|ACTIONS_|GEMINI_|GOOGLE_|GIT_|VITEST|NODE_OPTIONS$)/;

/** The environment of a runner's step running this action (no git identity, as on GitHub). */
export function createRunnerEnv(
  o: RunActionOptions,
  files: { eventPath: string; outputPath: string; summaryPath: string; temp: string; home: string },
): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !LEAKY.test(k)) base[k] = v;
  const token = RUNNER_TOKEN;
  const env: Record<string, string> = {
    ...base,
    // A fresh HOME and no system config: git finds no identity, as on a hosted runner.
    HOME: files.home,
    GIT_CONFIG_NOSYSTEM: '1',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTION: '__run',
    GITHUB_ACTOR: 'octocat',
    GITHUB_EVENT_NAME: o.eventName,
    GITHUB_EVENT_PATH: files.eventPath,
    GITHUB_WORKSPACE: o.job.checkout.dir,
    GITHUB_API_URL: 'https://api.github.com',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_GRAPHQL_URL: 'https://api.github.com/graphql',
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_NUMBER: '7',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: 'agent',
    GITHUB_WORKFLOW: 'agent',
    // GITHUB_REF, GITHUB_SHA, GITHUB_REPOSITORY (and GITHUB_HEAD_REF...) as GitHub sets them for the event.
    ...o.job.env,
    GITHUB_OUTPUT: files.outputPath,
    GITHUB_STEP_SUMMARY: files.summaryPath,
    GITHUB_ENV: join(files.temp, 'env'),
    GITHUB_PATH: join(files.temp, 'path'),
    GITHUB_STATE: join(files.temp, 'state'),
    RUNNER_TEMP: files.temp,
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    RUNNER_NAME: 'e2e-runner',
    // The fake GitHub needs no 1 s pacing between writes.
    AGENT_ACTION_GITHUB_PACING: 'none',
  };
  Object.assign(env, definedOnly(o.env ?? {}));
  const ctx = { 'github.token': token };
  for (const input of readActionInputs()) {
    const given = o.inputs?.[input.name];
    if (given === undefined && input.default === undefined) continue; // the runner sets no variable then
    env[`INPUT_${input.name.replace(/ /g, '_').toUpperCase()}`] = given ?? evaluateDefault(input.default ?? '', ctx);
  }
  for (const [name, value] of Object.entries(o.inputs ?? {}))
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  return env;
}

const definedOnly = (r: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(r).filter((e): e is [string, string] => e[1] !== undefined));

export async function runAction(o: RunActionOptions): Promise<ActionRun> {
  const temp = makeTempDir('agent-action-runner-');
  const files = {
    eventPath: join(temp, 'event.json'),
    outputPath: join(temp, 'output'),
    summaryPath: join(temp, 'step_summary'),
    temp,
    home: join(temp, 'home'),
  };
  mkdirSync(files.home);
  writeFileSync(files.eventPath, o.eventText ?? JSON.stringify(o.payload, null, 2));
  for (const f of [files.outputPath, files.summaryPath, join(temp, 'env'), join(temp, 'path'), join(temp, 'state')])
    writeFileSync(f, '');
  const env = createRunnerEnv(o, files);
  const { code, stdout, stderr } = await spawnNode(
    o.bundle ?? BUNDLE,
    o.job.checkout.dir,
    env,
    o.timeoutMs ?? 180_000,
    o.node,
    o.kill,
  );
  return {
    code,
    stdout,
    stderr,
    outputs: parseOutputFile(readFileSync(files.outputPath, 'utf8')),
    summary: readFileSync(files.summaryPath, 'utf8'),
    annotations: parseAnnotations(stdout),
    env,
  };
}

function spawnNode(
  script: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
  node = process.execPath,
  kill?: AbortSignal,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    kill?.addEventListener('abort', () => child.kill('SIGKILL'), { once: true });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

// ---- repositories -----------------------------------------------------------------------

/** A resolver for FakeGitHubState.resolveRef: the refs of a bare repository (`heads/x` -> sha). */
export function refsOf(gitDir: string): (name: string) => string | undefined {
  return (name) => {
    try {
      return (
        execFileSync('git', ['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', `refs/${name}^{commit}`], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim() || undefined
      );
    } catch {
      return undefined;
    }
  };
}

/** A resolver for FakeGitHubState.commitsBetween: how many commits `head` has that `base` lacks in a bare repository. */
export function commitsBetweenOf(gitDir: string): (base: string, head: string) => number | undefined {
  return (base, head) => {
    try {
      return Number(
        execFileSync('git', ['--git-dir', gitDir, 'rev-list', '--count', `${base}..${head}`], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim(),
      );
    } catch {
      return undefined;
    }
  };
}

/** A commit's author, committer and message in the bare origin, for assertions. */
export function readCommit(
  gitDir: string,
  ref: string,
): { author: string; committer: string; message: string; parents: string[] } {
  const out = execFileSync(
    'git',
    ['--git-dir', gitDir, 'log', '-1', '--format=%an <%ae>%x00%cn <%ce>%x00%P%x00%B', ref],
    { encoding: 'utf8', env: { ...process.env, ...GIT_IDENTITY } },
  );
  const [author, committer, parents, message] = out.split('\0');
  return { author, committer, parents: parents.split(' ').filter(Boolean), message: message.trim() };
}

// ---- payloads ---------------------------------------------------------------------------

export interface WebhookDefinition {
  name: string;
  actions: string[];
  examples: Array<Record<string, unknown>>;
}

/** Every example payload of @octokit/webhooks-examples (api.github.com), by event name. */
export function readWebhookExamples(): WebhookDefinition[] {
  const require = createRequire(import.meta.url);
  return require('@octokit/webhooks-examples') as WebhookDefinition[];
}

/** A copy of the first real example of `event` with `action` (or the first one when action is omitted). */
export function examplePayload(event: string, action?: string): Record<string, any> {
  const def = readWebhookExamples().find((d) => d.name === event);
  const found = def?.examples.find((p) => action === undefined || p.action === action);
  if (!found) throw new Error(`@octokit/webhooks-examples has no ${event}${action ? `.${action}` : ''} payload`);
  return structuredClone(found) as Record<string, any>;
}

/** Points a real payload's repository fields at `owner/repo` (the fake's state). */
export function retarget(payload: Record<string, any>, fullName: string): Record<string, any> {
  const [owner, name] = fullName.split('/');
  if (payload.repository) {
    payload.repository.full_name = fullName;
    payload.repository.name = name;
    if (payload.repository.owner) payload.repository.owner.login = owner;
  }
  return payload;
}

/** A real `issue_comment` payload for a maintainer's comment (`id`, `body`) on issue `issue`, in octo/hello. */
export function issueCommentPayload(
  issue: number,
  comment: { id: number; body: string },
  login = 'maintainer',
): Record<string, any> {
  const payload = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  payload.issue.number = issue;
  delete payload.issue.pull_request;
  payload.comment.id = comment.id;
  payload.comment.body = comment.body;
  asUser(payload.comment.user, login);
  asUser(payload.sender, login);
  return payload;
}

/** Sets the login of a payload's user object (comment.user, sender, ...) and keeps its type. */
export function asUser(user: Record<string, any> | undefined, login: string, type: 'User' | 'Bot' = 'User'): void {
  if (!user) return;
  user.login = login;
  user.type = type;
}

/** For an e2e file's beforeAll: fails at once, saying how to fix it, when the bundle under test is missing. */
export function assertBundle(bundle = BUNDLE): void {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` first`);
}

/** For an e2e file's afterEach: closes the fake servers the test opened (undefined: it opened none). */
export async function closeAll(...servers: Array<{ close(): Promise<void> } | undefined>): Promise<void> {
  // Every server stops even when one's close() throws (the fake GitHub's does on a spec violation).
  const results = await Promise.allSettled(servers.map((s) => (s ? s.close() : Promise.resolve())));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
