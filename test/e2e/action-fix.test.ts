/**
 * `/agent fix` end to end: the bundled dist/index.js as a child process with a runner's
 * environment, against the fake GitHub and the fake Gemini over loopback, pushing to a real bare
 * origin. Assertions are on what the fakes recorded and on the origin's git state.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { call, reply, text, usage } from '../support/fake-gemini.js';
import { assertBundle, asUser, examplePayload, readCommit, retarget } from '../support/e2e-runner.js';

const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n';
const FIXED = 'export function add(a, b) {\n  return a + b;\n}\n';
const FILES = {
  'src/math.js': BUGGY,
  'test/math.test.js':
    "import { add } from '../src/math.js';\nif (add(2, 2) !== 4) throw new Error('add is broken');\n",
  'README.md': '# calc\n',
};
const API_KEY = 'AIza-e2e-fix-key-000000';

let world: ActionWorld | undefined;
beforeAll(() => assertBundle());
afterEach(() => world?.close());

/** A real issue_comment.created payload, pointed at the fake's thread, comment and commenter. */
function commentPayload(thread: number, commentId: number, body: string, login: string, isPullRequest: boolean) {
  const p = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  p.issue.number = thread;
  if (isPullRequest)
    p.issue.pull_request = {
      url: `https://api.github.test/repos/octo/hello/pulls/${thread}`,
      html_url: `https://github.test/octo/hello/pull/${thread}`,
    };
  else delete p.issue.pull_request;
  p.comment.id = commentId;
  p.comment.body = body;
  asUser(p.comment.user, login);
  asUser(p.sender, login);
  return p;
}

const fixScript = () => [
  reply(
    [
      text('The bug is a minus sign. '),
      call('replace', { file_path: 'src/math.js', old_string: '  return a - b;', new_string: '  return a + b;' }),
    ],
    { usage: usage(1200, 40) },
  ),
  reply([text('Changed `add` to use addition instead of subtraction.')], { usage: usage(1300, 12) }),
];

const gitShow = (gitDir: string, spec: string) =>
  execFileSync('git', ['--git-dir', gitDir, 'show', spec], { encoding: 'utf8' });

describe('the bundled action: /agent fix', () => {
  it('on a same-repository pull request: commits to its head branch, edits the progress comment, sets outputs', async () => {
    world = await startActionWorld({
      files: FILES,
      pulls: [
        {
          number: 2,
          head: 'feature/calc',
          files: { 'README.md': '# calc\n\nAdds numbers.\n' },
          title: 'Document the calculator',
          body: 'Docs only.',
          user: { login: 'contributor' },
        },
      ],
      event: { name: 'issue_comment', pull: 2 },
      script: fixScript(),
    });
    const { ws, gh, gemini } = world;
    const trigger = gh.addComment(2, '/agent fix the add function too', { login: 'maintainer' });

    const r = await world.run({
      eventName: 'issue_comment',
      payload: commentPayload(2, trigger.id, trigger.body, 'maintainer', true),
      inputs: { 'gemini-api-key': API_KEY, model: 'gemini-2.5-flash' },
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs).toMatchObject({
      status: 'success',
      branch: 'feature/calc',
      turns: '2',
      tokens: String(1240 + 1312),
    });
    expect(r.outputs.summary).toContain('addition');

    // The commit on the pull request's head branch, on top of what was there (no force push).
    const head = readCommit(ws.origin, 'refs/heads/feature/calc');
    expect(head.parents).toEqual([ws.shas['feature/calc']]);
    expect(head.author).toBe('github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>');
    expect(head.committer).toBe(head.author);
    expect(head.message).toMatch(/^agent-action: fix \(#2\)/);
    expect(head.message).toContain('Co-authored-by: maintainer <maintainer@users.noreply.github.com>');
    expect(gitShow(ws.origin, 'feature/calc:src/math.js')).toBe(FIXED);
    expect(gitShow(ws.origin, 'main:src/math.js')).toBe(BUGGY);

    // Eyes on the trigger, one progress comment edited to the outcome, no pull request opened.
    expect(gh.state.reactions).toMatchObject([{ subject: 'issues', id: trigger.id, content: 'eyes' }]);
    const progress = gh.state.comments.filter((c) => c.body.includes('<!-- agent-action:progress'));
    expect(progress).toHaveLength(1);
    expect(progress[0].issue_number).toBe(2);
    expect(progress[0].body).toMatch(/agent-action fix: done/);
    expect(progress[0].body).toContain('| Turns | 2 |');
    expect(progress[0].body).toContain('actions/runs/4242');
    expect(gh.calls('PATCH', new RegExp(`/issues/comments/${progress[0].id}$`)).length).toBeGreaterThanOrEqual(1);
    expect(gh.calls('POST', /\/pulls$/)).toEqual([]);
    expect(r.summary).toContain('| Turns | 2 |');

    // The model got the key and the task; the secret appears nowhere the action posted.
    expect(gemini.requests).toHaveLength(2);
    expect(gemini.requests[0].apiKey).toBe(API_KEY);
    expect(JSON.stringify(gemini.requests[0].body.contents)).toContain('the add function too');
    expect(JSON.stringify(gh.requests.map((q) => q.body))).not.toContain(API_KEY);
  });

  it('on an issue: pushes a new branch and opens a pull request that says Fixes #N', async () => {
    world = await startActionWorld({ files: FILES, event: { name: 'issue_comment' }, script: fixScript() });
    const { ws, gh } = world;
    gh.addIssue({ number: 5, title: 'add() subtracts', body: 'add(2, 2) returns 0.', user: { login: 'reporter' } });
    const trigger = gh.addComment(5, '/agent fix', { login: 'maintainer' });

    const r = await world.run({
      eventName: 'issue_comment',
      payload: commentPayload(5, trigger.id, trigger.body, 'maintainer', false),
      inputs: { 'gemini-api-key': API_KEY },
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    const branch = 'agent-action/issue-5-add-subtracts';
    expect(r.outputs).toMatchObject({ status: 'success', branch });
    const pr = [...gh.state.issues.values()].find((i) => i.pull);
    expect(pr).toBeDefined();
    expect(r.outputs['pull-request']).toBe(String(pr!.number));
    expect(pr!.title).toBe('Fix #5: add() subtracts');
    expect(pr!.body).toContain('Fixes #5');
    expect(pr!.pull).toMatchObject({ head: { ref: branch }, base: { ref: 'main', sha: ws.mainSha } });

    // The branch is in the origin with the fix on top of main; main is untouched.
    const head = readCommit(ws.origin, `refs/heads/${branch}`);
    expect(pr!.pull!.head.sha).toBe(
      execFileSync('git', ['--git-dir', ws.origin, 'rev-parse', branch], { encoding: 'utf8' }).trim(),
    );
    expect(head.parents).toEqual([ws.mainSha]);
    expect(head.message).toContain('Co-authored-by: maintainer <maintainer@users.noreply.github.com>');
    expect(gitShow(ws.origin, `${branch}:src/math.js`)).toBe(FIXED);
    expect(gitShow(ws.origin, 'main:src/math.js')).toBe(BUGGY);

    // The progress comment on the issue links the pull request and ends done.
    const progress = gh.state.comments.filter((c) => c.body.includes('<!-- agent-action:progress'));
    expect(progress).toHaveLength(1);
    expect(progress[0].issue_number).toBe(5);
    expect(progress[0].body).toMatch(/agent-action fix: done/);
  });
});
