/**
 * What the bundled action must not do: act for a reader-only commenter, or start at all with a bad
 * input. Both checked on what the fakes recorded and on the origin's refs.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { assertBundle, asUser, examplePayload, retarget } from '../support/e2e-runner.js';
import { reply, text } from '../support/fake-gemini.js';

let world: ActionWorld | undefined;
beforeAll(() => assertBundle());
afterEach(() => world?.close());

const refsIn = (gitDir: string) =>
  execFileSync('git', ['--git-dir', gitDir, 'for-each-ref', '--format=%(refname) %(objectname)'], { encoding: 'utf8' });

async function setup(login: string, body: string) {
  world = await startActionWorld({
    files: { 'src/a.js': 'export const a = 1;\n' },
    event: { name: 'issue_comment' },
    script: [reply([text('should never be asked')])],
  });
  const { ws, gh, gemini } = world;
  gh.addIssue({ number: 1, title: 'a is wrong' });
  const trigger = gh.addComment(1, body, { login });
  const payload = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  payload.issue.number = 1;
  payload.comment.id = trigger.id;
  payload.comment.body = body;
  asUser(payload.comment.user, login);
  asUser(payload.sender, login);
  return { run: world.run, ws, gh, gemini, payload, before: refsIn(ws.origin) };
}

describe('the bundled action refuses', () => {
  it('a /agent fix from a reader-only user: skipped, exit 0, no comment, no reaction, no push, no model call', async () => {
    const { run, ws, gh, gemini, payload, before } = await setup('reader', '/agent fix');
    const r = await run({ eventName: 'issue_comment', payload, inputs: { 'gemini-api-key': 'AIza-e2e-0000' } });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(r.outputs.summary).toMatch(/reader.*'read' permission/);
    // It asked who the commenter is, and wrote nothing.
    expect(gh.calls('GET', /\/collaborators\/reader\/permission$/)).toHaveLength(1);
    expect(gh.requests.filter((q) => q.method !== 'GET')).toEqual([]);
    expect(gh.state.comments.map((c) => c.body)).toEqual(['/agent fix']);
    expect(gh.state.reactions).toEqual([]);
    expect(refsIn(ws.origin)).toBe(before);
    expect(gemini.requests).toEqual([]);
    expect(r.annotations.filter((a) => a.level === 'error')).toEqual([]);
  });

  it.each([
    ['approval-mode', 'reckless', 'one of default, auto_edit, yolo, plan'],
    ['max-turns', 'many', 'a whole number from 1 to 1000'],
    ['policy', '[[rule]\ntoolName = "x"', 'TOML does not parse'],
    ['sandbox', 'sometimes', 'one of required, auto, off'],
  ])(
    'a bad input (%s=%j): exit 1, status failed, exactly one annotation titled with it, no stack; answered in the thread, nothing else',
    async (input, value, expected) => {
      const { run, ws, gh, gemini, payload, before } = await setup('maintainer', '/agent fix');
      const r = await run({
        eventName: 'issue_comment',
        payload,
        inputs: { 'gemini-api-key': 'AIza-e2e-0000', [input]: value },
      });

      expect(r.code).toBe(1);
      expect(r.outputs).toMatchObject({ status: 'failed', 'session-id': '', branch: '', turns: '0', tokens: '0' });
      expect(r.outputs.summary).toMatch(new RegExp(`^input '${input}' is `));
      const errors = r.annotations.filter((a) => a.level === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0].properties.title).toBe(`input ${input}`);
      expect(errors[0].message).toContain(`input '${input}' is ${JSON.stringify(value)}: expected `);
      expect(errors[0].message).toContain(expected);
      expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
      // The commenter may command the action, so the error is answered where they asked: one comment.
      expect(gh.requests.map((q) => `${q.method} ${q.path.replace(/\/\d+\//g, '/N/')}`)).toEqual([
        'GET /repos/octo/hello/collaborators/maintainer/permission',
        'POST /repos/octo/hello/issues/N/comments',
      ]);
      expect(gh.state.comments.at(-1)!.body).toContain(`input '${input}' is `);
      expect(gemini.requests).toEqual([]);
      expect(refsIn(ws.origin)).toBe(before);
    },
  );

  it('three bad inputs: three annotations, each titled with its own input, each printed once', async () => {
    const { run, payload } = await setup('maintainer', '/agent fix');
    const r = await run({
      eventName: 'issue_comment',
      payload,
      inputs: {
        'gemini-api-key': 'AIza-e2e-0000',
        'approval-mode': 'reckless',
        'max-turns': 'many',
        'approval-timeout': 'soon',
      },
    });
    expect(r.code).toBe(1);
    expect(r.annotations.map((a) => [a.level, a.properties.title])).toEqual([
      ['error', 'input approval-mode'],
      ['error', 'input max-turns'],
      ['error', 'input approval-timeout'],
    ]);
    expect(new Set(r.annotations.map((a) => a.message)).size).toBe(3);
  });
});
