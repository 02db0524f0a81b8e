/**
 * Issue 25's headline, end to end through the bundled dist/index.js on the runner model
 * (test/support/runner-model.ts): whatever a job checks out for the event (the default branch one
 * commit deep for a comment, the test-merge commit for a review comment), the agent works on the
 * pull request's head and what gets pushed is that head plus the agent's commit: fast-forward, no
 * merge commit, nothing of the base's later commits. A head that moves while the agent works gets
 * the commit rebased onto it (or a failure naming the conflicting file); a fork's pull request gets
 * suggestions or a branch and pull request of the base repository; what earlier steps of the job
 * left is never committed; a run that changed nothing pushes and opens nothing; a file over
 * max-file-size is left out with a note.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withCommandsAsked } from '../support/commands-asked.js';
import { startActionWorld, type ActionWorld, type WorldPull } from '../support/action-world.js';
import { assertBundle, asUser, examplePayload, readCommit, retarget, type ActionRun } from '../support/e2e-runner.js';
import { call, gated, reply, text } from '../support/fake-gemini.js';
import type { FakeGitHub } from '../support/fake-github.js';
import { jobFor, type CheckoutOptions } from '../support/runner-model.js';

const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n';
const FIXED = 'export function add(a, b) {\n  return a + b;\n}\n';
const FILES = { 'src/math.js': BUGGY, 'README.md': '# calc\n' };
/** The pull request: docs, and a second function under the buggy one (so `add`'s lines are in its diff). */
const PR_FILES = {
  'docs/usage.md': '# Usage\n\nadd(2, 2) is 4.\n',
  'src/math.js': `${BUGGY}\nexport const twice = (a) => add(a, a);\n`,
};
const API_KEY = 'AIza-e2e-pull-tree-0000';
const INPUTS = { 'gemini-api-key': API_KEY };

let world: ActionWorld | undefined;
beforeAll(() => assertBundle());
afterEach(() => world?.close());

const pullSpec = (o: Partial<WorldPull> = {}): WorldPull => ({
  number: 2,
  head: 'feature/docs',
  files: PR_FILES,
  title: 'Document add',
  body: 'Docs.',
  user: { login: 'contributor' },
  ...o,
});
const bare = (gitDir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' }).trim();
const fixCall = () =>
  call('replace', { file_path: 'src/math.js', old_string: '  return a - b;', new_string: '  return a + b;' });
const fixScript = () => [reply([text('The minus is the bug. '), fixCall()]), reply([text('`add` adds now.')])];
const logOf = (r: ActionRun) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

/** A real issue_comment.created payload: a maintainer's comment on thread `n` (a pull request unless told). */
function commentOn(gh: FakeGitHub, n: number, body: string, o: { isPullRequest?: boolean } = {}): Record<string, any> {
  const c = gh.addComment(n, body, { login: 'maintainer' });
  const p = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  p.issue.number = n;
  if (o.isPullRequest === false) delete p.issue.pull_request;
  else p.issue.pull_request = { url: `https://api.github.com/repos/octo/hello/pulls/${n}` };
  Object.assign(p.comment, { id: c.id, body: c.body, created_at: c.created_at, updated_at: c.updated_at });
  asUser(p.comment.user, 'maintainer');
  asUser(p.sender, 'maintainer');
  return p;
}

/** The last body of the run's progress comment on thread `n`. */
const progressOn = (gh: FakeGitHub, n: number) =>
  gh.state.comments.find((c) => c.issue_number === n && c.body.includes('<!-- agent-action:progress'))?.body ?? '';

/** Commits in `from..to` of the bare repository, newest first: subject and parents. */
const commitsIn = (gitDir: string, range: string) =>
  bare(gitDir, 'log', '--format=%s%x09%P', range)
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [subject, parents] = l.split('\t');
      return { subject, parents: parents.split(' ') };
    });

describe('the bundled action on a pull request: the head, whatever was checked out', () => {
  it.each<[string, CheckoutOptions]>([
    ["checkout's defaults: the default branch, one commit deep, the token persisted", {}],
    ["the README's checkout: fetch-depth 0, persist-credentials false", { fetchDepth: 0, persistCredentials: false }],
  ])(
    '/agent fix in the conversation (%s): one fast-forward commit on the head, nothing of main',
    async (_name, checkout) => {
      world = await startActionWorld({
        files: FILES,
        pulls: [pullSpec()],
        event: { name: 'issue_comment', pull: 2 },
        script: fixScript(),
      });
      const { remote, gh, ws } = world;
      const head = remote.pull(2).headSha;
      // main moves on after the pull request was opened; the comment's job checks out the new main.
      const laterMain = remote.push('main', { 'CHANGELOG.md': 'main, later\n' });
      const job = jobFor(remote, { name: 'issue_comment', pull: 2 }, checkout);
      expect(job.checkout.sha).toBe(laterMain);

      const r = await world.run({
        eventName: 'issue_comment',
        payload: commentOn(gh, 2, '/agent fix'),
        inputs: INPUTS,
        job,
      });

      expect(r.code, logOf(r)).toBe(0);
      expect(r.outputs).toMatchObject({ status: 'success', branch: 'feature/docs' });
      const pushed = readCommit(remote.dir, 'refs/heads/feature/docs');
      expect(pushed.parents).toEqual([head]);
      expect(pushed.message).toMatch(/^agent-action: fix \(#2\)/);
      // main..head: the pull request's commit and the agent's, each with one parent; main's later commit is not in it.
      expect(commitsIn(remote.dir, 'main..feature/docs')).toEqual([
        { subject: 'agent-action: fix (#2)', parents: [head] },
        { subject: 'work on feature/docs', parents: [ws.mainSha] },
      ]);
      expect(() => bare(remote.dir, 'merge-base', '--is-ancestor', laterMain, 'feature/docs')).toThrow();
      expect(bare(remote.dir, 'show', 'feature/docs:src/math.js')).toBe(
        `${FIXED}\nexport const twice = (a) => add(a, a);`,
      );
      expect(bare(remote.dir, 'show', 'feature/docs:docs/usage.md')).toContain('add(2, 2) is 4.');
      expect(bare(remote.dir, 'ls-tree', '--name-only', 'feature/docs')).not.toContain('CHANGELOG.md');
      // The model read and edited the head's file, and the log says which tree the agent worked on.
      expect(JSON.stringify(world.gemini.requests[1].body.contents)).not.toContain('old_string not found');
      expect(r.stdout).toContain(
        `work tree: pull request #2's head ${head} (refs/pull/2/head); the workflow had checked out ${laterMain}`,
      );
      expect(gh.calls('POST', /\/pulls$/)).toEqual([]);
    },
  );

  it('/agent fix in a review comment (the merge ref, detached): the head plus the agent commit, never the test-merge commit', async () => {
    world = await startActionWorld({
      files: FILES,
      pulls: [pullSpec()],
      event: { name: 'pull_request_review_comment', pull: 2 },
      script: fixScript(),
    });
    const { remote } = world;
    // main moves on: GitHub remakes the test merge, which now carries main's later commit.
    const laterMain = remote.push('main', { 'CHANGELOG.md': 'main, later\n' });
    const pr = remote.pull(2);
    const job = jobFor(remote, { name: 'pull_request_review_comment', pull: 2 });
    expect(job.checkout.sha).toBe(pr.mergeSha);
    expect(bare(remote.dir, 'log', '-1', '--format=%P', pr.mergeSha!)).toBe(`${laterMain} ${pr.headSha}`);
    const p = retarget(examplePayload('pull_request_review_comment', 'created'), 'octo/hello');
    p.pull_request.number = 2;
    Object.assign(p.comment, {
      id: 7001,
      body: '/agent fix',
      path: 'src/math.js',
      line: 2,
      created_at: new Date().toISOString(),
    });
    asUser(p.comment.user, 'maintainer');
    asUser(p.sender, 'maintainer');

    const r = await world.run({ eventName: 'pull_request_review_comment', payload: p, inputs: INPUTS, job });

    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'success', branch: 'feature/docs' });
    expect(readCommit(remote.dir, 'refs/heads/feature/docs').parents).toEqual([pr.headSha]);
    expect(bare(remote.dir, 'rev-list', '--merges', 'main..feature/docs')).toBe('');
    expect(() => bare(remote.dir, 'merge-base', '--is-ancestor', pr.mergeSha!, 'feature/docs')).toThrow();
    expect(() => bare(remote.dir, 'merge-base', '--is-ancestor', laterMain, 'feature/docs')).toThrow();
    expect(bare(remote.dir, 'ls-tree', '--name-only', 'feature/docs')).not.toContain('CHANGELOG.md');
    expect(bare(remote.dir, 'show', 'feature/docs:src/math.js')).toContain('return a + b;');
    // The agent worked on the head itself: its commit needed no replay onto the branch.
    expect(r.stdout).toContain(
      `work tree: pull request #2's head ${pr.headSha} (refs/pull/2/head); the workflow had checked out ${pr.mergeSha}`,
    );
    expect(progressOn(world.gh, 2)).toContain('<!-- agent-action:progress');
    expect(progressOn(world.gh, 2)).not.toContain('moved while the agent worked');
  });

  it("/agent review in the conversation: read_file gives the model the pull request's file, and the review is on the head", async () => {
    world = await startActionWorld({
      files: FILES,
      pulls: [pullSpec()],
      event: { name: 'issue_comment', pull: 2 },
      script: [
        reply([call('read_file', { file_path: 'src/math.js' })]),
        reply([text('`twice` relies on `add`, which subtracts.')]),
      ],
    });
    const { remote, gh, gemini } = world;

    const r = await world.run({
      eventName: 'issue_comment',
      payload: commentOn(gh, 2, '/agent review'),
      inputs: INPUTS,
    });

    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs.status, logOf(r)).toBe('success');
    const result = JSON.stringify(gemini.requests[1].body.contents.at(-1));
    expect(result).toContain('export const twice = (a) => add(a, a);');
    expect(gh.state.reviews).toMatchObject([{ pull_number: 2, event: 'COMMENT', commit_id: remote.pull(2).headSha }]);
    expect(bare(remote.dir, 'rev-parse', 'feature/docs')).toBe(remote.pull(2).headSha);
  });
});

describe('the bundled action on a pull request: a head that moves while the agent works', () => {
  /** The fix, with the model's closing turn held until the test has pushed to the head. */
  async function fixWhileHeadMoves(moved: Record<string, string>) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    world = await startActionWorld({
      files: FILES,
      pulls: [pullSpec()],
      event: { name: 'issue_comment', pull: 2 },
      script: [reply([fixCall()]), gated(gate, reply([text('Fixed.')]))],
    });
    const running = world.run({
      eventName: 'issue_comment',
      payload: commentOn(world.gh, 2, '/agent fix'),
      inputs: INPUTS,
    });
    await world.gemini.untilRequests(2); // the edit is made; the model's last answer waits
    const tip = world.remote.push('feature/docs', moved, { message: 'pushed while the agent worked' });
    release();
    return { r: await running, tip };
  }

  it('is rebased onto: the agent commit goes on the new tip, one parent, both changes kept', async () => {
    const { r, tip } = await fixWhileHeadMoves({ 'docs/usage.md': '# Usage\n\nadd(2, 2) is 4, at last.\n' });
    const { remote, gh } = world!;

    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'success', branch: 'feature/docs' });
    expect(readCommit(remote.dir, 'refs/heads/feature/docs').parents).toEqual([tip]);
    expect(bare(remote.dir, 'rev-list', '--merges', 'main..feature/docs')).toBe('');
    expect(bare(remote.dir, 'show', 'feature/docs:src/math.js')).toContain('return a + b;');
    expect(bare(remote.dir, 'show', 'feature/docs:docs/usage.md')).toContain('at last');
    expect(progressOn(gh, 2)).toContain(
      '`feature/docs` moved while the agent worked: its commit was rebased onto the new head and pushed.',
    );
  });

  it('conflicts: nothing is pushed, and the run fails naming the file', async () => {
    const { r, tip } = await fixWhileHeadMoves({ 'src/math.js': 'export function add(a, b) {\n  return b - a;\n}\n' });
    const { remote, gh } = world!;

    expect(r.code, logOf(r)).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(r.outputs.summary).toMatch(
      /feature\/docs moved while the agent worked \(to [0-9a-f]{12}\), and the agent's changes conflict with it in `src\/math\.js`; nothing was pushed/,
    );
    expect(bare(remote.dir, 'rev-parse', 'feature/docs')).toBe(tip);
    expect(progressOn(gh, 2)).toContain('conflict with it in `src/math.js`');
  });
});

describe("the bundled action on a fork's pull request", () => {
  const forkPull = () => pullSpec({ number: 4, head: 'patch-1', fork: 'contributor/hello', title: 'Document add' });

  it('a small change inside the diff: one review of suggestions on the head; nothing pushed anywhere', async () => {
    world = await startActionWorld({
      files: FILES,
      pulls: [forkPull()],
      event: { name: 'issue_comment', pull: 4 },
      script: fixScript(),
    });
    const { remote, gh } = world;
    const branchesBefore = remote.branches();
    const forkBefore = bare(remote.forks['contributor/hello'], 'rev-parse', 'patch-1');

    const r = await world.run({ eventName: 'issue_comment', payload: commentOn(gh, 4, '/agent fix'), inputs: INPUTS });

    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'success', branch: '', 'pull-request': '' });
    expect(gh.state.reviews).toHaveLength(1);
    const [review] = gh.state.reviews;
    expect(r.outputs['review-id']).toBe(String(review.id));
    expect(review).toMatchObject({ pull_number: 4, event: 'COMMENT', commit_id: remote.pull(4).headSha });
    expect(review.comments).toEqual([expect.objectContaining({ path: 'src/math.js', line: 2, side: 'RIGHT' })]);
    expect(review.comments[0].body).toContain('```suggestion\n  return a + b;\n```');
    expect(remote.branches()).toEqual(branchesBefore);
    expect(bare(remote.forks['contributor/hello'], 'rev-parse', 'patch-1')).toBe(forkBefore);
    expect(progressOn(gh, 4)).toContain('the change is in a review, as a suggestion to commit');
  });

  it("a larger change: a branch of the base repository on the fork's head, and a pull request from it", async () => {
    world = await startActionWorld({
      files: FILES,
      pulls: [forkPull()],
      event: { name: 'issue_comment', pull: 4 },
      script: [
        reply([
          fixCall(),
          call('write_file', {
            file_path: 'test/add.test.js',
            content: "import { add } from '../src/math.js';\nif (add(2, 2) !== 4) throw new Error('add');\n",
          }),
        ]),
        reply([text('Fixed add and tested it.')]),
      ],
    });
    const { remote, gh } = world;
    const forkHead = remote.pull(4).headSha;

    const r = await world.run({ eventName: 'issue_comment', payload: commentOn(gh, 4, '/agent fix'), inputs: INPUTS });

    expect(r.code, logOf(r)).toBe(0);
    const branch = 'agent-action/pr-4-document-add';
    expect(r.outputs).toMatchObject({ status: 'success', branch });
    expect(readCommit(remote.dir, `refs/heads/${branch}`).parents).toEqual([forkHead]);
    expect(commitsIn(remote.dir, `main..${branch}`).map((c) => c.subject)).toEqual([
      'agent-action: fix (#4)',
      'work on patch-1',
    ]);
    expect(bare(remote.dir, 'show', `${branch}:test/add.test.js`)).toContain('add(2, 2)');
    const opened = gh.state.issues.get(Number(r.outputs['pull-request']))!;
    expect(opened.pull).toMatchObject({ head: { ref: branch, repoFullName: 'octo/hello' }, base: { ref: 'main' } });
    expect(opened.body).toContain(`This is #4 (its head, ${forkHead.slice(0, 12)}) with agent-action's change on top`);
    expect(opened.body).toContain('Requested by @maintainer.');
    expect(gh.state.reviews).toEqual([]);
    expect(progressOn(gh, 4)).toContain(`the change is in #${opened.number} (branch \`${branch}\` of this repository`);
  });
});

describe("the bundled action: only the agent's work is published", () => {
  it('what an earlier step wrote is not committed, and a run that changed nothing pushes and opens nothing', async () => {
    world = await startActionWorld({
      files: FILES,
      pulls: [pullSpec()],
      event: { name: 'issue_comment', pull: 2 },
      script: [reply([call('read_file', { file_path: 'README.md' })]), reply([text('Nothing needs fixing.')])],
    });
    const { remote, gh, job } = world;
    // An earlier step of the job (Gemini CLI's settings, say) writes into the workspace.
    mkdirSync(join(job.checkout.dir, '.gemini'), { recursive: true });
    writeFileSync(join(job.checkout.dir, '.gemini/context.json'), '{"fileName": "GEMINI.md"}\n');
    const before = remote.branches();

    const r = await world.run({ eventName: 'issue_comment', payload: commentOn(gh, 2, '/agent fix'), inputs: INPUTS });

    expect(r.code, logOf(r)).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'success', branch: '', 'pull-request': '' });
    expect(remote.branches()).toEqual(before);
    expect(gh.calls('POST', /\/pulls$/)).toEqual([]);
    const progress = progressOn(gh, 2);
    expect(progress).toContain('The agent changed no files: nothing was committed, pushed or opened.');
    expect(progress).toContain(
      "`.gemini/context.json`, left in the work tree by earlier steps of the job, is not the agent's work: never committed.",
    );
    expect(r.summary).toContain('The agent changed no files: nothing was committed, pushed or opened.');
    // The step's file is still there for what comes after.
    expect(readFileSync(join(job.checkout.dir, '.gemini/context.json'), 'utf8')).toContain('GEMINI.md');
  });

  it("an issue fix with an earlier step's file in the tree, and one over max-file-size: only the agent's small change is committed", async () => {
    world = await startActionWorld({
      files: FILES,
      event: { name: 'issue_comment' },
      script: [
        reply([fixCall(), call('write_file', { file_path: 'data/big.txt', content: 'x'.repeat(3000) })]),
        reply([text('Fixed; the data file is generated.')]),
      ],
    });
    const { remote, gh, job } = world;
    gh.addIssue({ number: 5, title: 'add subtracts', body: 'add(2, 2) is 0.' });
    writeFileSync(join(job.checkout.dir, 'gha-creds-1234.json'), '{"type": "external_account"}\n');

    const r = await world.run({
      eventName: 'issue_comment',
      payload: commentOn(gh, 5, '/agent fix', { isPullRequest: false }),
      inputs: { ...INPUTS, 'max-file-size': '2KB' },
    });

    expect(r.code, logOf(r)).toBe(0);
    const branch = 'agent-action/issue-5-add-subtracts';
    expect(r.outputs).toMatchObject({ status: 'success', branch });
    expect(bare(remote.dir, 'diff', '--name-only', `main..${branch}`)).toBe('src/math.js');
    const progress = progressOn(gh, 5);
    expect(progress).toContain(
      'Left out of the commit: `data/big.txt` (2.9 KiB) is over the max-file-size input (2 KiB); it stays in the work tree.',
    );
    expect(r.summary).toContain('`data/big.txt` (2.9 KiB) is over the max-file-size input (2 KiB)');
    expect(progress).toContain('`gha-creds-1234.json`, left in the work tree by earlier steps of the job');
  });
});

describe('the bundled action on a pull request: an approval in between', () => {
  it("the reply's run restores the session's tree on the head it recorded, not its own checkout, and pushes on top of it", async () => {
    world = await startActionWorld({
      files: FILES,
      pulls: [pullSpec()],
      event: { name: 'issue_comment', pull: 2 },
      script: [
        reply([call('run_shell_command', { command: 'node -e "console.log(2 + 2)"' })]),
        reply([fixCall()]),
        reply([text('Checked and fixed.')]),
      ],
    });
    const { remote, gh } = world;
    const head = remote.pull(2).headSha;

    const first = await world.run({
      eventName: 'issue_comment',
      payload: commentOn(gh, 2, '/agent fix'),
      // The command is asked about even in the sandbox: this test is about the reply's run.
      inputs: withCommandsAsked(INPUTS),
    });
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const id = first.outputs['session-id'];
    const doc = JSON.parse(bare(remote.dir, 'show', `refs/agent-action/sessions/${id}:session.json`));
    expect(doc.worktree.baseCommit).toBe(head);

    // A new runner: the reply's job checks out main, one commit deep.
    const job = jobFor(remote, { name: 'issue_comment', pull: 2 });
    expect(job.checkout.sha).toBe(remote.branches().main);
    const second = await world.run({
      eventName: 'issue_comment',
      payload: commentOn(gh, 2, '/agent approve'),
      inputs: withCommandsAsked(INPUTS),
      job,
    });

    expect(second.code, logOf(second)).toBe(0);
    expect(second.outputs).toMatchObject({ status: 'success', branch: 'feature/docs', 'session-id': id });
    expect(readCommit(remote.dir, 'refs/heads/feature/docs').parents).toEqual([head]);
    expect(bare(remote.dir, 'show', 'feature/docs:src/math.js')).toContain('return a + b;');
    expect(execFileSync('git', ['-C', job.checkout.dir, 'rev-parse', 'HEAD^'], { encoding: 'utf8' }).trim()).toBe(head);
  });
});
