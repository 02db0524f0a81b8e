/**
 * Pull requests as their events really arrive, through the bundled dist/index.js, each workspace
 * from the runner model (what GitHub and actions/checkout give that event): a command in a review
 * thread (its place, hunk and earlier comments reach the model fenced; the eyes go on that comment;
 * the answer goes into that thread), a command in a submitted review's body, a fork's
 * `pull_request` run without secrets (skipped, green, saying what works), a write the token's
 * `permissions:` refuse (failed, naming the line), and input errors answered in the thread.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { createFakeGitHubState, startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import type { JobPermissions } from '../support/github-permissions.js';
import {
  assertBundle,
  asUser,
  closeAll,
  examplePayload,
  issueCommentPayload,
  refsOf,
  retarget,
  runAction,
  type ActionRun,
} from '../support/e2e-runner.js';
import { createRemote, jobFor, pullFiles, type JobEvent, type Remote } from '../support/runner-model.js';

type PullSpec = NonNullable<Parameters<typeof createRemote>[0]['pulls']>[number];

const MATH = 'export function add(a, b) {\n  return a + b;\n}\n';
const WITH_MUL = `${MATH}\nexport function mul(a, b) {\n  return a * b + 0;\n}\n`;
const FILES = { 'src/math.js': MATH, 'README.md': '# calc\n' };
const KEY = 'AIza-e2e-threads-key-0000';
const FEATURE: PullSpec = { number: 2, head: 'feature/mul', files: { 'src/math.js': WITH_MUL } };

let gh: FakeGitHub | undefined;
let gemini: FakeGemini | undefined;
beforeAll(() => assertBundle());
afterEach(async () => {
  await closeAll(gh, gemini);
  gh = gemini = undefined;
});

/** The remote, the fake GitHub holding its pull requests as GET /pulls/{n} and /files give them, the fake Gemini. */
async function startWorld(
  pulls: PullSpec[],
  script: Parameters<typeof startFakeGemini>[0],
  jobPermissions?: JobPermissions,
): Promise<{ remote: Remote; gh: FakeGitHub; gemini: FakeGemini }> {
  const remote = createRemote({ files: FILES, pulls });
  gh = await startFakeGitHub(createFakeGitHubState({ jobPermissions }));
  gh.state.resolveRef = refsOf(remote.dir);
  for (const p of pulls) {
    const pr = remote.pull(p.number);
    gh.addPull({
      number: p.number,
      title: 'Add mul',
      body: 'Multiplication.',
      user: { login: 'contributor' },
      pull: {
        head: { ref: pr.headRef, sha: pr.headSha, repoFullName: pr.headRepository },
        base: { ref: pr.baseRef, sha: pr.baseSha },
        files: pullFiles(remote, p.number),
      },
    });
  }
  gemini = await startFakeGemini(script);
  return { remote, gh, gemini };
}

/** The bundle run in the job the runner model gives `event`: its checkout as the workspace, its GITHUB_REF and GITHUB_SHA. */
function runJob(remote: Remote, event: JobEvent, payload: unknown, inputs: Record<string, string>): Promise<ActionRun> {
  const job = jobFor(remote, event);
  return runAction({
    eventName: event.name,
    payload,
    job,
    inputs: { 'gemini-base-url': gemini!.baseUrl, ...inputs },
    env: { GITHUB_API_URL: gh!.url },
  });
}

/** A real payload's pull request pointed at pull request `n` of octo/hello, its head in `headRepo`. */
function pullRequestOf(
  payload: Record<string, any>,
  n: number,
  headRepo = 'octo/hello',
  headRef = 'feature/mul',
): Record<string, any> {
  retarget(payload, 'octo/hello');
  payload.pull_request.number = n;
  payload.pull_request.head.ref = headRef;
  payload.pull_request.head.repo.full_name = headRepo;
  payload.pull_request.base.repo.full_name = 'octo/hello';
  return payload;
}

const progressOf = (g: FakeGitHub, n: number) =>
  g.state.comments.filter((c) => c.issue_number === n && c.body.includes('<!-- agent-action:progress'));
const requestText = (g: FakeGemini, i: number) => JSON.stringify(g.requests[i].body.contents);

describe('a command in a review thread', () => {
  it("the model gets the thread's place, hunk and earlier comments, fenced; eyes on the comment; the answer in the thread; progress links it", async () => {
    const w = await startWorld([FEATURE], [reply([text('No: `a * b` is already a number, so `+ 0` can go.')])]);
    const at = (day: number) => `2024-05-0${day}T10:00:00Z`;
    const place = { path: 'src/math.js', line: 6, side: 'RIGHT' as const };
    const top = w.gh.addReviewComment(2, {
      ...place,
      body: 'Why the `+ 0`?',
      user: { login: 'reviewer' },
      createdAt: at(1),
    });
    w.gh.addReviewComment(2, {
      ...place,
      body: 'It keeps the type, I think.',
      user: { login: 'contributor' },
      in_reply_to_id: top.id,
      createdAt: at(2),
    });
    w.gh.addReviewComment(2, {
      path: 'README.md',
      line: 1,
      side: 'RIGHT',
      body: 'Another thread entirely.',
      user: { login: 'reviewer' },
      createdAt: at(2),
    });
    const trigger = w.gh.addReviewComment(2, {
      ...place,
      body: '/agent is the + 0 needed?',
      user: { login: 'maintainer' },
      in_reply_to_id: top.id,
      createdAt: at(3),
    });
    w.gh.addReviewComment(2, {
      ...place,
      body: 'Written after the request.',
      user: { login: 'contributor' },
      in_reply_to_id: top.id,
      createdAt: at(4),
    });
    // The hunk GitHub shows above line 6 of the head version: from the hunk's header to that line.
    const hunk = trigger.diff_hunk;
    expect(hunk).toMatch(/^@@ [^\n]+@@[^]*\n\+  return a \* b \+ 0;$/);
    const payload = pullRequestOf(examplePayload('pull_request_review_comment', 'created'), 2);
    Object.assign(payload.comment, {
      ...place,
      id: trigger.id,
      body: trigger.body,
      diff_hunk: hunk,
      in_reply_to_id: top.id,
      created_at: at(3),
      html_url: `https://github.com/octo/hello/pull/2#discussion_r${trigger.id}`,
    });
    asUser(payload.comment.user, 'maintainer');
    asUser(payload.sender, 'maintainer');

    const r = await runJob(w.remote, { name: 'pull_request_review_comment', pull: 2 }, payload, {
      'gemini-api-key': KEY,
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('success');
    // What the model was told, each stranger's piece inside a fence; nothing of another thread or of later.
    const asked = requestText(w.gemini, 0);
    expect(asked).toContain('The request was made in a review thread on line 6 of the head version of this file:');
    expect(asked).toMatch(/<untrusted-review-thread-file-[a-z0-9]+>\\nsrc\/math.js\\n<\/untrusted-review-thread-file-/);
    expect(asked).toContain(JSON.stringify(hunk).slice(1, -1));
    expect(asked).toMatch(
      /Thread comment 1 by @reviewer at 2024-05-01T10:00:00.000Z:\\n<untrusted-thread-comment-1-[a-z0-9]+>\\nWhy the `\+ 0`\?\\n/,
    );
    expect(asked).toMatch(
      /Thread comment 2 by @contributor at 2024-05-02T10:00:00.000Z:\\n<untrusted-thread-comment-2-[a-z0-9]+>\\nIt keeps the type, I think.\\n/,
    );
    expect(asked).not.toContain('Another thread entirely.');
    expect(asked).not.toContain('Written after the request.');
    // Eyes on the review comment (the pull-request reactions route), not on an issue comment of that id.
    expect(w.gh.state.reactions.map(({ subject, id, content, user }) => ({ subject, id, content, user }))).toEqual([
      { subject: 'pulls', id: trigger.id, content: 'eyes', user: w.gh.state.self },
    ]);
    // The answer: one reply into the thread, through its first comment, none in the conversation.
    expect(w.gh.calls('POST', /\/pulls\/2\/comments\/\d+\/replies$/).map((q) => q.path)).toEqual([
      `/repos/octo/hello/pulls/2/comments/${top.id}/replies`,
    ]);
    const answer = w.gh.state.reviewComments.at(-1)!;
    expect(answer).toMatchObject({ in_reply_to_id: top.id, path: 'src/math.js', user: w.gh.state.self });
    expect(answer.body).toMatch(
      /^No: `a \* b` is already a number, so `\+ 0` can go\.\n\n<!-- agent-action:reply -->$/,
    );
    expect(w.gh.state.comments.filter((c) => c.body.includes('agent-action:reply'))).toEqual([]);
    // The progress comment lives in the conversation and links the thread.
    const progress = progressOf(w.gh, 2);
    expect(progress).toHaveLength(1);
    expect(progress[0].body).toContain(
      `Asked in [a review thread](https://github.com/octo/hello/pull/2#discussion_r${trigger.id}).`,
    );
    expect(progress[0].body).toContain('agent-action question: done');
  });
});

describe('a command in a submitted review', () => {
  it('pull_request_review.submitted whose body starts with the trigger: answered in the conversation, no reaction (GitHub has none for reviews), progress links the review', async () => {
    const w = await startWorld([FEATURE], [reply([text('`mul` multiplies two numbers.')])]);
    const payload = pullRequestOf(examplePayload('pull_request_review', 'submitted'), 2);
    Object.assign(payload.review, {
      id: 5151,
      body: '/agent what does mul do?',
      submitted_at: '2024-05-03T10:00:00Z',
      html_url: 'https://github.com/octo/hello/pull/2#pullrequestreview-5151',
    });
    asUser(payload.review.user, 'maintainer');
    asUser(payload.sender, 'maintainer');

    const r = await runJob(w.remote, { name: 'pull_request_review', pull: 2 }, payload, { 'gemini-api-key': KEY });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('success');
    expect(requestText(w.gemini, 0)).toContain('what does mul do?');
    expect(w.gh.requests.filter((q) => q.path.endsWith('/reactions'))).toEqual([]);
    const answers = w.gh.state.comments.filter(
      (c) => c.issue_number === 2 && c.body.includes('<!-- agent-action:reply'),
    );
    expect(answers.map((c) => c.body)).toEqual(['`mul` multiplies two numbers.\n\n<!-- agent-action:reply -->']);
    expect(progressOf(w.gh, 2)[0].body).toContain(
      'Asked in [a review](https://github.com/octo/hello/pull/2#pullrequestreview-5151).',
    );
  });
});

describe('a fork pull request on pull_request, without secrets', () => {
  it('ends skipped and green, with a notice that says why and names what works; it asks neither GitHub nor the model', async () => {
    const w = await startWorld(
      [{ number: 3, head: 'patch-1', fork: 'contributor/hello', files: { 'src/math.js': WITH_MUL } }],
      [],
    );
    const job = jobFor(w.remote, { name: 'pull_request', pull: 3 });
    expect(job.refs.restricted).toBe(true); // GitHub gives this job no secrets: the key input arrives empty
    const payload = pullRequestOf(examplePayload('pull_request', 'opened'), 3, 'contributor/hello', 'patch-1');
    payload.number = 3;
    asUser(payload.sender, 'contributor');

    const r = await runAction({
      eventName: 'pull_request',
      payload,
      job,
      inputs: { 'gemini-api-key': '', 'gemini-base-url': w.gemini.baseUrl },
      env: { GITHUB_API_URL: w.gh.url },
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(r.annotations.filter((a) => a.level === 'error')).toEqual([]);
    const notices = r.annotations.filter((a) => a.level === 'notice').map((a) => a.message);
    expect(notices).toEqual([expect.stringContaining('this pull request comes from the fork contributor/hello')]);
    expect(notices[0]).toContain("without the repository's secrets (input 'gemini-api-key' is empty)");
    expect(notices[0]).toContain('a maintainer comments `/agent review` in the pull request');
    expect(notices[0]).toContain(
      'labels it `agent-review` for a workflow on pull_request_target (types: [labeled]) that checks out the base branch only',
    );
    expect(r.outputs.summary).toBe(notices[0].replace(/^agent-action: skipped: /, ''));
    expect(w.gh.requests).toEqual([]);
    expect(w.gemini.requests).toEqual([]);
  });
});

describe('a write the workflow did not permit', () => {
  it('a job with `pull-requests: read` whose fix opens a pull request: GitHub refuses 403, the run fails naming `pull-requests: write`, the pushed branch kept', async () => {
    const w = await startWorld(
      [],
      [
        reply([
          call('replace', {
            file_path: 'src/math.js',
            old_string: '  return a + b;',
            new_string: '  return a + b; // checked',
          }),
        ]),
        reply([text('Marked the addition as checked.')]),
      ],
      { contents: 'write', issues: 'write', 'pull-requests': 'read' },
    );
    w.gh.addIssue({ number: 1, title: 'Check add', body: 'Please.', user: { login: 'reporter' } });
    const trigger = w.gh.addComment(1, '/agent fix', { login: 'maintainer' });

    const r = await runJob(w.remote, { name: 'issue_comment' }, issueCommentPayload(1, trigger), {
      'gemini-api-key': KEY,
    });

    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(r.outputs.branch).toBe('agent-action/issue-1-check-add');
    expect(w.remote.branches()['agent-action/issue-1-check-add']).toMatch(/^[0-9a-f]{40}$/);
    const errors = r.annotations.filter((a) => a.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(
      /could not be opened: Resource not accessible by integration.*the workflow's token lacks `pull-requests: write`: add `pull-requests: write` to the job's `permissions:`/,
    );
    const progress = progressOf(w.gh, 1)[0].body;
    expect(progress).toContain('agent-action fix: failed');
    expect(progress).toContain('`pull-requests: write`');
  });
});

describe('input errors, answered in the thread', () => {
  it("a maintainer's command with a bad input: failed as before, and one comment in the thread says what is wrong; a reader's gets none", async () => {
    const w = await startWorld([], []);
    w.gh.addIssue({ number: 1, title: 'Check add', user: { login: 'reporter' } });
    const asked = w.gh.addComment(1, '/agent fix', { login: 'maintainer' });

    const r = await runJob(w.remote, { name: 'issue_comment' }, issueCommentPayload(1, asked), {
      'gemini-api-key': KEY,
      'max-turns': 'lots',
      sandbox: 'sometimes',
    });

    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(r.annotations.filter((a) => a.level === 'error').map((a) => a.properties.title)).toEqual([
      'input max-turns',
      'input sandbox',
    ]);
    const answers = w.gh.state.comments.filter((c) => c.body.includes('<!-- agent-action:input-error -->'));
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ issue_number: 1, user: w.gh.state.self });
    expect(answers[0].body).toContain('### agent-action did not run');
    expect(answers[0].body).toContain('- input \'max-turns\' is "lots": expected a whole number from 1 to 1000');
    expect(answers[0].body).toContain('- input \'sandbox\' is "sometimes": expected one of required, auto, off');
    expect(answers[0].body).toContain('([workflow run](https://github.com/octo/hello/actions/runs/4242))');
    expect(w.gemini.requests).toEqual([]);

    const fromReader = w.gh.addComment(1, '/agent fix', { login: 'reader' });
    const refused = await runJob(w.remote, { name: 'issue_comment' }, issueCommentPayload(1, fromReader, 'reader'), {
      'gemini-api-key': KEY,
      'max-turns': 'lots',
    });
    expect(refused.code).toBe(1);
    expect(w.gh.state.comments.filter((c) => c.body.includes('<!-- agent-action:input-error -->'))).toHaveLength(1);
  });

  it('an empty model key on a same-repository command is answered in the thread too', async () => {
    const w = await startWorld([], []);
    w.gh.addIssue({ number: 1, title: 'Check add', user: { login: 'reporter' } });
    const asked = w.gh.addComment(1, '/agent what does add do?', { login: 'maintainer' });

    const r = await runJob(w.remote, { name: 'issue_comment' }, issueCommentPayload(1, asked), {
      'gemini-api-key': '',
    });

    expect(r.code).toBe(1);
    const answers = w.gh.state.comments.filter((c) => c.body.includes('<!-- agent-action:input-error -->'));
    expect(answers.map((c) => c.body)).toEqual([
      expect.stringContaining("- input 'gemini-api-key' is empty: expected a Gemini API key"),
    ]);
  });
});
