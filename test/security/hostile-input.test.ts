/**
 * Bounded work on hostile input, end to end through the bundled dist/index.js. Each script used to
 * block the action's event loop: a model-chosen regex (`^(a|a)*$`, about 2^40 backtracking steps
 * per 40-character line once git grep's PCRE gave up and the JavaScript engine took over) and a
 * crafted issue body (`![` repeated: every start position rescanned the rest of the text). Each run
 * gets 50 s before the child is killed; the linear versions need a small fraction of it, the
 * backtracking ones hours and minutes.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { assertBundle, asUser, closeAll, examplePayload, retarget, runAction } from '../support/e2e-runner.js';
import { createJob } from '../support/runner-model.js';

let gh: FakeGitHub;
let gemini: FakeGemini;
beforeAll(() => assertBundle());
afterEach(() => closeAll(gh, gemini));

const INPUTS = { 'gemini-api-key': 'AIza-e2e-hostile-0000' };

function openedIssue(number: number) {
  const payload = retarget(examplePayload('issues', 'opened'), 'octo/hello');
  payload.issue.number = number;
  asUser(payload.issue.user, 'stranger');
  asUser(payload.sender, 'stranger');
  return payload;
}

describe('hostile input, through the bundle', () => {
  it('a catastrophic regex from the model: grep_search answers, correctly', async () => {
    const evil = `${Array.from({ length: 200 }, () => `${'a'.repeat(40)}b`).join('\n')}\nmatch me\n`;
    const job = createJob({ 'evil.txt': evil }, { name: 'issues' });
    gh = await startFakeGitHub();
    gh.addIssue({ number: 3, title: 'Where is the marker?', body: 'Find it.', user: { login: 'stranger' } });
    gemini = await startFakeGemini([
      reply([call('grep_search', { pattern: '^(a|a)*$|^match me$', case_sensitive: true })]),
      reply([text('Found it on line 201.')]),
    ]);

    const r = await runAction({
      eventName: 'issues',
      payload: openedIssue(3),
      job,
      inputs: { ...INPUTS, 'gemini-base-url': gemini.baseUrl },
      env: { GITHUB_API_URL: gh.url },
      timeoutMs: 50_000,
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('success');
    const result = JSON.stringify(gemini.requests[1].body.contents.at(-1));
    expect(result).toContain('Found 1 match in 1 file');
    expect(result).toContain('L201: match me');
  });

  it('a crafted 256 KB issue body: sanitized and cut, and the run goes on', async () => {
    const job = createJob({ 'README.md': '# hello\n' }, { name: 'issues' });
    gh = await startFakeGitHub();
    gh.addIssue({
      number: 4,
      title: 'Images',
      body: `VISIBLE-START ${'!['.repeat(128 * 1024)}`,
      user: { login: 'stranger' },
    });
    gemini = await startFakeGemini([reply([text('Nothing to triage.')])]);

    const r = await runAction({
      eventName: 'issues',
      payload: openedIssue(4),
      job,
      inputs: { ...INPUTS, 'gemini-base-url': gemini.baseUrl },
      env: { GITHUB_API_URL: gh.url },
      timeoutMs: 50_000,
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('success');
    const first = JSON.stringify(gemini.requests[0].body.contents);
    expect(first).toContain('VISIBLE-START');
    expect(first).toMatch(/\[\.\.\. \d+ characters cut \.\.\.\]/);
  });
});
