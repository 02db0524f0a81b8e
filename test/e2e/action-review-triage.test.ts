/**
 * Review and triage end to end through the bundled dist/index.js: a real pull_request.opened and a
 * real issues.opened payload, the fake GitHub and the fake Gemini over loopback, a real clone.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { call, reply, text } from '../support/fake-gemini.js';
import { diffLines, type FakeGitHub } from '../support/fake-github.js';
import { assertBundle, asUser, examplePayload, retarget } from '../support/e2e-runner.js';

const MATH = 'export function add(a, b) {\n  return a + b;\n}\n';
const WITH_MUL = `${MATH}\nexport function mul(a, b) {\n  return a * b + 0;\n}\n`;
const FILES = {
  'src/math.js': MATH,
  'test/math.test.js':
    "import { add } from '../src/math.js';\nif (add(2, 2) !== 4) throw new Error('add is broken');\n",
};
const INPUTS = { 'gemini-api-key': 'AIza-e2e-review-key-0000' };

let world: ActionWorld | undefined;
beforeAll(() => assertBundle());
afterEach(() => world?.close());

/** The last body of the run's progress comment on issue `n`. */
const markedBy = (gh: FakeGitHub, n: number) =>
  gh.state.comments.find((c) => c.issue_number === n && c.body.includes('<!-- agent-action:progress'))?.body;

/** The file's patch as GitHub's pulls/files gives it: the hunks of `git diff base head -- file`. */
function patchOf(gitDir: string, base: string, head: string, file: string): string {
  const diff = execFileSync('git', ['--git-dir', gitDir, 'diff', '--no-color', base, head, '--', file], {
    encoding: 'utf8',
  });
  return diff.slice(diff.indexOf('@@')).replace(/\n$/, '');
}

describe('the bundled action: review', () => {
  it('pull_request.opened: one COMMENT review, inline comments on diff lines, the rest in the body', async () => {
    world = await startActionWorld({
      files: FILES,
      pulls: [
        {
          number: 3,
          head: 'feature/mul',
          files: { 'src/math.js': WITH_MUL },
          title: 'Add mul',
          body: 'Multiplication.',
          user: { login: 'contributor' },
        },
      ],
      event: { name: 'pull_request', pull: 3 },
      script: [
        reply([call('read_file', { file_path: 'src/math.js' })]),
        reply([
          call('add_review_comment', {
            path: 'src/math.js',
            line: 6,
            severity: 'low',
            body: '`+ 0` does nothing.',
            suggestion: '  return a * b;',
          }),
          call('add_review_comment', {
            path: 'test/math.test.js',
            line: 2,
            severity: 'medium',
            body: 'There is no test for mul.',
          }),
        ]),
        reply([text('mul works; two small findings.')]),
      ],
    });
    const { ws, gh, gemini } = world;
    const head = ws.shas['feature/mul'];
    const patch = patchOf(ws.origin, ws.mainSha, head, 'src/math.js');
    expect(gh.state.issues.get(3)!.pull!.files).toEqual([
      { filename: 'src/math.js', status: 'modified', patch, additions: 4, deletions: 0 },
    ]);
    // Line 6 of the new math.js (`return a * b + 0;`) is in the diff; test/math.test.js is not.
    expect(diffLines(patch, 'RIGHT').has(6)).toBe(true);
    const payload = retarget(examplePayload('pull_request', 'opened'), 'octo/hello');
    payload.number = 3;
    payload.pull_request.number = 3;
    asUser(payload.sender, 'contributor');

    const r = await world.run({ eventName: 'pull_request', payload, inputs: INPUTS });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(gh.state.reviews).toHaveLength(1);
    const [review] = gh.state.reviews;
    expect(r.outputs).toMatchObject({ status: 'success', 'review-id': String(review.id), branch: '' });
    expect(review).toMatchObject({ pull_number: 3, event: 'COMMENT', commit_id: head });
    expect(review.comments).toHaveLength(1);
    expect(review.comments[0]).toMatchObject({ path: 'src/math.js', line: 6, side: 'RIGHT' });
    expect(review.comments[0].body).toContain(
      '**Severity: low**\n\n`+ 0` does nothing.\n\n```suggestion\n  return a * b;\n```',
    );
    for (const c of review.comments) expect(diffLines(patch, 'RIGHT').has(c.line!)).toBe(true);
    expect(review.body).toContain('mul works; two small findings.');
    expect(review.body).toContain('test/math.test.js:2');
    expect(review.body).toContain('There is no test for mul.');
    // A review never pushes or approves.
    expect(execFileSync('git', ['--git-dir', ws.origin, 'rev-parse', 'feature/mul'], { encoding: 'utf8' }).trim()).toBe(
      head,
    );
    expect(gh.requests.filter((q) => (q.body as { event?: string } | undefined)?.event === 'APPROVE')).toEqual([]);
    // The tools the model called were allowed in plan mode and reached the model as results.
    const results = JSON.stringify(gemini.requests[2].body.contents);
    expect(results).toContain('Recorded low review comment 1 on src/math.js:6 with a suggestion');
  });
});

describe('the bundled action: triage', () => {
  it('issues.opened: applies only labels the repository has; an invented one is dropped', async () => {
    world = await startActionWorld({
      files: FILES,
      event: { name: 'issues' },
      script: [reply([call('set_labels', { labels: ['bug', 'crash'] })]), reply([text('A bug report: labelled bug.')])],
    });
    const { gh, gemini } = world;
    gh.addIssue({
      number: 7,
      title: 'Crash when the input is empty',
      body: 'add() throws on empty input.',
      user: { login: 'reporter' },
    });
    const known = gh.state.labels.map((l) => l.name);
    const payload = retarget(examplePayload('issues', 'opened'), 'octo/hello');
    payload.issue.number = 7;
    asUser(payload.issue.user, 'reporter');
    asUser(payload.sender, 'reporter');

    const r = await world.run({ eventName: 'issues', payload, inputs: INPUTS });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'success', labels: 'bug' });
    // With the action's own triaged label: the durable marker the nightly plan skips the issue by.
    expect(gh.state.issues.get(7)!.labels).toEqual(['bug', 'agent:triaged']);
    // The fake, like GitHub, would create an unknown label on the fly: the model's invented one is never sent.
    expect(gh.state.labels.map((l) => l.name)).toEqual([...known, 'agent:triaged']);
    expect(gh.calls('POST', /\/issues\/7\/labels$/).map((q) => q.body)).toEqual([{ labels: ['bug', 'agent:triaged'] }]);
    expect(markedBy(gh, 7)).toMatch(/\n<!-- agent-action:triaged seen=\S+ run=4242 -->$/);
    // The model was shown the repository's labels to choose from.
    expect(JSON.stringify(gemini.requests[0].body)).toContain('enhancement');
    expect(r.annotations).toContainEqual(
      expect.objectContaining({ level: 'notice', message: expect.stringContaining('not applied: crash') }),
    );
  });
});
