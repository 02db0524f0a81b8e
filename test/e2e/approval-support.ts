/**
 * Shared by the approval end-to-end tests (issue 6): a thread on the runner model's remote
 * (test/support/runner-model.ts), the fake GitHub and the fake Gemini; a first `/agent fix` run in
 * the job its comment starts; reply runs, each in a job of its own (a later workflow run gets a new
 * runner and a new checkout); and readers of the session ref in the origin.
 * Wraps test/support/e2e-runner.ts rather than extending it.
 */
import { execFileSync } from 'node:child_process';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { shippedAsksText } from '../support/commands-asked.js';
import { startFakeGemini, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { startFakeGitHub, type FakeComment, type FakeGitHub } from '../support/fake-github.js';
import { GIT_IDENTITY, makeTempDir } from '../support/git-repo.js';
import {
  asUser,
  BUNDLE,
  closeAll,
  commitsBetweenOf,
  examplePayload,
  refsOf,
  retarget,
  runAction,
  type ActionRun,
} from '../support/e2e-runner.js';
import type { WorldRepo } from '../support/action-world.js';
import { createRemote, jobFor, type Job, type Remote } from '../support/runner-model.js';

/**
 * The bundle under test: dist/index.js, or AGENT_ACTION_E2E_BUNDLE (a copy of a build, with the
 * repository's package.json and policies/ beside its folder) while dist/ is being rebuilt.
 */
export const bundlePath = () => process.env.AGENT_ACTION_E2E_BUNDLE || BUNDLE;

export function assertBundle(): void {
  if (!existsSync(bundlePath())) throw new Error(`${bundlePath()} is missing: run \`npm run build\` first`);
}

export const API_KEY = 'AIza-e2e-approval-key-0000';
export const ISSUE = 7;
const SESSION_PREFIX = 'refs/agent-action/sessions/';

/**
 * A script the approved command runs: prints one `sha256 path` line per file of the work tree
 * (not .git), sorted, then records that it ran. What the model receives is the work tree's exact
 * state at the moment the resumed run executed the call.
 */
const FINGERPRINT_JS = `const { createHash } = require('node:crypto');
const { readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const out = [];
const walk = (d) => { for (const e of readdirSync(d, { withFileTypes: true })) { if (e.name === '.git') continue; const p = join(d, e.name); if (e.isDirectory()) walk(p); else out.push(p.replace(/\\\\/g, '/')); } };
walk('.');
const lines = out.sort().map((p) => createHash('sha256').update(readFileSync(p)).digest('hex') + ' ' + p.replace(/^\\.\\//, ''));
console.log('FINGERPRINT-BEGIN\\n' + lines.join('\\n') + '\\nFINGERPRINT-END');
writeFileSync('ran.txt', 'the approved command ran\\n');
`;

/** Allowed by the User-tier policy below: a binary file appears, a tracked file disappears. */
const PREP_JS = `const { mkdirSync, writeFileSync, rmSync } = require('node:fs');
mkdirSync('assets', { recursive: true });
writeFileSync('assets/logo.bin', Buffer.from([0, 159, 146, 150, 255, 0, 10, 13, 0, 1, 2, 128]));
rmSync('old.txt');
console.log('prepared');
`;

export const BINARY = Buffer.from([0, 159, 146, 150, 255, 0, 10, 13, 0, 1, 2, 128]);
const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n';
export const FIXED = 'export function add(a, b) {\n  return a + b;\n}\n';
export const FILES: Record<string, string> = {
  'src/math.js': BUGGY,
  'old.txt': 'to be deleted before the question\n',
  'README.md': '# calc\n',
  'scripts/fingerprint.js': FINGERPRINT_JS,
  'scripts/prep.js': PREP_JS,
  // Commands are asked about here even when sandboxed: these tests are about the question. The
  // shipped shell rules without their sandboxed allow, in the repository's own policy folder
  // (Workspace tier): an "always" approval (Workspace tier, priority 950) still outranks them.
  '.gemini/policies/shell.toml': shippedAsksText(),
};

/** User-tier rule (the `policy` input): prep is allowed; everything else keeps the shipped rules. */
export const ALLOW_PREP =
  '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "node scripts/prep.js"\ndecision = "allow"\npriority = 100\n';

export interface Thread {
  remote: Remote;
  /** The first run's job (an issue_comment: the default branch, one commit deep). */
  job: Job;
  ws: WorldRepo;
  gh: FakeGitHub;
  gemini: FakeGemini;
  close(): Promise<void>;
}

/** An issue on the remote, the fake GitHub reading its refs, and a scripted fake Gemini. */
export async function openThread(script: FakeReply[]): Promise<Thread> {
  const remote = createRemote({ files: FILES });
  const job = jobFor(remote, { name: 'issue_comment' });
  const ws = { dir: job.checkout.dir, origin: remote.dir, mainSha: remote.branches().main, shas: remote.branches() };
  const gh = await startFakeGitHub();
  gh.state.resolveRef = refsOf(remote.dir);
  gh.state.commitsBetween = commitsBetweenOf(remote.dir);
  gh.addIssue({ number: ISSUE, title: 'add() subtracts', body: 'add(2, 2) returns 0.', user: { login: 'reporter' } });
  const gemini = await startFakeGemini(script);
  return {
    remote,
    job,
    ws,
    gh,
    gemini,
    close: () => closeAll(gh, gemini),
  };
}

/** A real issue_comment.created payload for a comment the fake GitHub holds. */
export function commentPayload(c: FakeComment, type: 'User' | 'Bot' = 'User') {
  const p = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  p.issue.number = c.issue_number;
  delete p.issue.pull_request;
  p.comment.id = c.id;
  p.comment.body = c.body;
  p.comment.created_at = c.created_at;
  p.comment.updated_at = c.updated_at;
  asUser(p.comment.user, c.user.login, type);
  asUser(p.sender, c.user.login, type);
  return p;
}

function run(
  t: Thread,
  comment: FakeComment,
  job: Job,
  inputs: Record<string, string>,
  type: 'User' | 'Bot' = 'User',
): Promise<ActionRun> {
  return runAction({
    eventName: 'issue_comment',
    payload: commentPayload(comment, type),
    job,
    bundle: bundlePath(),
    inputs: { 'gemini-api-key': API_KEY, 'gemini-base-url': t.gemini.baseUrl, ...inputs },
    env: { GITHUB_API_URL: t.gh.url },
  });
}

/** The first run: `/agent fix` by a maintainer, in the workspace the thread was created with. */
export function runFix(t: Thread, inputs: Record<string, string> = {}): Promise<ActionRun> {
  const trigger = t.gh.addComment(ISSUE, '/agent fix', { login: 'maintainer' });
  return run(t, trigger, t.job, inputs);
}

/** The job a later comment starts: a new runner, whose checkout is the default branch as it is now. */
export const replyJob = (t: Thread): Job => jobFor(t.remote, { name: 'issue_comment' });

/** A later workflow run for a reply comment, on a new runner (replyJob, or the job given). */
export function runReply(
  t: Thread,
  body: string,
  o: { login?: string; type?: 'User' | 'Bot'; inputs?: Record<string, string>; comment?: FakeComment; job?: Job } = {},
): Promise<ActionRun> {
  const comment =
    o.comment ?? t.gh.addComment(ISSUE, body, { login: o.login ?? 'maintainer', ...(o.type ? { type: o.type } : {}) });
  return run(t, comment, o.job ?? replyJob(t), o.inputs ?? {}, o.type);
}

/** A clone on a developer's machine (not a runner's): all of the origin, as `git clone` makes it. */
export function developerClone(origin: string): string {
  const dir = makeTempDir('agent-action-clone-');
  execFileSync('git', ['clone', '-q', origin, dir], {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: 'ignore',
  });
  return dir;
}

export const bareGit = (origin: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', origin, ...args], { encoding: 'utf8' }).trim();

/** `refs/agent-action/sessions/<id>` -> commit, as the origin holds them. */
export function sessionRefs(origin: string): Record<string, string> {
  const out = bareGit(origin, 'for-each-ref', '--format=%(refname) %(objectname)', SESSION_PREFIX);
  return Object.fromEntries(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [ref, sha] = l.split(' ');
        return [ref.slice(SESSION_PREFIX.length), sha];
      }),
  );
}

/** The session document stored on the ref (parsed JSON). */
export function readSessionDoc(origin: string, id: string): any {
  return JSON.parse(bareGit(origin, 'show', `${SESSION_PREFIX}${id}:session.json`));
}

/** Comments agent-action posted whose body carries a marker of `kind`. */
export const markedComments = (gh: FakeGitHub, kind: string) =>
  gh.state.comments.filter((c) => c.body.includes(`<!-- agent-action:${kind}`));

/** The same listing FINGERPRINT_JS prints, computed by the test from a directory. */
export function fingerprint(dir: string): string {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (name === '.git') continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  const lines = files.sort().map(
    (p) =>
      `${createHash('sha256')
        .update(readFileSync(join(dir, p)))
        .digest('hex')} ${p}`,
  );
  return `FINGERPRINT-BEGIN\n${lines.join('\n')}\nFINGERPRINT-END`;
}

/** Every functionResponse the model received in one request, in order. */
export function functionResponses(body: {
  contents: Array<{ role: string; parts: Array<Record<string, any>> }>;
}): Array<{ name: string; id?: string; response: any }> {
  return body.contents.flatMap((c) => c.parts.filter((p) => p.functionResponse).map((p) => p.functionResponse));
}

/** What one run logged, for failure messages. */
export const logOf = (r: ActionRun) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

/** Replaces a session ref with a new commit holding `text` as session.json, as anyone with push access can. */
export function pushSessionText(origin: string, id: string, text: string): string {
  const blob = execFileSync('git', ['--git-dir', origin, 'hash-object', '-w', '--stdin'], { input: text })
    .toString()
    .trim();
  const tree = execFileSync('git', ['--git-dir', origin, 'mktree'], { input: `100644 blob ${blob}\tsession.json\n` })
    .toString()
    .trim();
  const parent = sessionRefs(origin)[id];
  const commit = execFileSync(
    'git',
    ['--git-dir', origin, 'commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', 'rewritten'],
    { env: { ...process.env, ...GIT_IDENTITY } },
  )
    .toString()
    .trim();
  bareGit(origin, 'update-ref', `${SESSION_PREFIX}${id}`, commit);
  return commit;
}

/** Sorted keys, no whitespace: the canonical JSON the README documents for session signatures. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Signs a session document the way the README documents it (HKDF-SHA256 of the secret, salt
 * "agent-action session v1", info "session-mac"; HMAC-SHA256 of the canonical JSON without the
 * signature), written here independently of src/session/sign.ts. What only a key holder can do:
 * the tests that need a document the action will accept, with one field changed, use it.
 */
export function signAsAction(doc: Record<string, unknown>, secret = API_KEY): string {
  const { signature: _old, ...body } = doc;
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret), 'agent-action session v1', 'session-mac', 32));
  const signature = {
    alg: 'HMAC-SHA256',
    keyId: createHmac('sha256', key).update('agent-action key id').digest('hex').slice(0, 16),
    mac: createHmac('sha256', key).update(canonical(body)).digest('hex'),
  };
  return JSON.stringify({ ...body, signature }, null, 2);
}
