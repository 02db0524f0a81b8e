/**
 * What the bundled action must not do: act for a reader-only commenter, or start at all with a bad
 * input. Both checked on what the fakes recorded and on the origin's refs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { asUser, BUNDLE, createWorkspace, examplePayload, refsOf, retarget, runAction } from '../support/e2e-runner.js';

let gh: FakeGitHub;
let gemini: FakeGemini;
beforeAll(() => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first`);
});
afterEach(async () => {
  await gh?.close();
  await gemini?.close();
});

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
    const r = await runAction({ eventName: 'issue_comment', payload, workspace: ws.dir, inputs: { 'gemini-api-key': 'AIza-e2e-0000', 'gemini-base-url': gemini.baseUrl }, env: { GITHUB_API_URL: gh.url } });

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
    ['approval-mode', 'reckless'],
    ['max-turns', 'many'],
    ['policy', '[[rule]\ntoolName = "x"'],
  ])('a bad input (%s=%j): exit non-zero, an annotation naming it, no request to GitHub or Gemini', async (input, value) => {
    const { ws, payload, before } = await setup('maintainer', '/agent fix');
    const r = await runAction({
      eventName: 'issue_comment',
      payload,
      workspace: ws.dir,
      inputs: { 'gemini-api-key': 'AIza-e2e-0000', 'gemini-base-url': gemini.baseUrl, [input]: value },
      env: { GITHUB_API_URL: gh.url },
    });

    expect(r.code).not.toBe(0);
    expect(r.outputs.status).toBe('failed');
    const errors = r.annotations.filter((a) => a.level === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.some((a) => a.properties.title === `input ${input}` && a.message.includes(`'${input}'`))).toBe(true);
    expect(gh.requests).toEqual([]);
    expect(gemini.requests).toEqual([]);
    expect(refsIn(ws.origin)).toBe(before);
  });
});
