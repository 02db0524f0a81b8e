/**
 * What the bundled action must not do: act for a reader-only commenter, or start at all with a bad
 * input. Both checked on what the fakes recorded and on the origin's refs.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { assertBundle, asUser, closeAll, createWorkspace, examplePayload, refsOf, retarget, runAction } from '../support/e2e-runner.js';

let gh: FakeGitHub;
let gemini: FakeGemini;
beforeAll(() => assertBundle());
afterEach(() => closeAll(gh, gemini));

const refsIn = (gitDir: string) => execFileSync('git', ['--git-dir', gitDir, 'for-each-ref', '--format=%(refname) %(objectname)'], { encoding: 'utf8' });

async function setup(login: string, body: string) {
  const ws = createWorkspace({ 'src/a.js': 'export const a = 1;\n' });
  gh = await startFakeGitHub();
  gh.state.resolveRef = refsOf(ws.origin);
  gh.addIssue({ number: 1, title: 'a is wrong' });
  const trigger = gh.addComment(1, body, { login });
  gemini = await startFakeGemini([reply([text('should never be asked')])]);
  const payload = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  payload.issue.number = 1;
  payload.comment.id = trigger.id;
  payload.comment.body = body;
  asUser(payload.comment.user, login);
  asUser(payload.sender, login);
  return { ws, payload, before: refsIn(ws.origin) };
}

describe('the bundled action refuses', () => {
  it('a /agent fix from a reader-only user: skipped, exit 0, no comment, no reaction, no push, no model call', async () => {
    const { ws, payload, before } = await setup('reader', '/agent fix');
    const r = await runAction({
      eventName: 'issue_comment',
      payload,
      workspace: ws.dir,
      inputs: { 'gemini-api-key': 'AIza-e2e-0000', 'gemini-base-url': gemini.baseUrl },
      env: { GITHUB_API_URL: gh.url },
    });

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
  ])('a bad input (%s=%j): exit 1, status failed, exactly one annotation titled with it, no stack, no request', async (input, value, expected) => {
    const { ws, payload, before } = await setup('maintainer', '/agent fix');
    const r = await runAction({
      eventName: 'issue_comment',
      payload,
      workspace: ws.dir,
      inputs: { 'gemini-api-key': 'AIza-e2e-0000', 'gemini-base-url': gemini.baseUrl, [input]: value },
      env: { GITHUB_API_URL: gh.url },
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
    expect(gh.requests).toEqual([]);
    expect(gemini.requests).toEqual([]);
    expect(refsIn(ws.origin)).toBe(before);
  });

  it('three bad inputs: three annotations, each titled with its own input, each printed once', async () => {
    const { ws, payload } = await setup('maintainer', '/agent fix');
    const r = await runAction({
      eventName: 'issue_comment',
      payload,
      workspace: ws.dir,
      inputs: { 'gemini-api-key': 'AIza-e2e-0000', 'approval-mode': 'reckless', 'max-turns': 'many', 'approval-timeout': 'soon' },
      env: { GITHUB_API_URL: gh.url },
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
