/**
 * Untrusted text has a size budget, end to end through the bundled dist/index.js: a 1 MB comment
 * by a stranger and a 1 MB `/agent` request used to make a 2.1 MB first request (the request went
 * into both the system prompt and the conversation). Measured at the fake Gemini server: the first
 * request is small, each cut piece carries a visible note, and the progress comment says so.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { assertBundle, asUser, closeAll, examplePayload, retarget, runAction } from '../support/e2e-runner.js';
import { createJob } from '../support/runner-model.js';

let gh: FakeGitHub;
let gemini: FakeGemini;
beforeAll(() => assertBundle());
afterEach(() => closeAll(gh, gemini));

const MB = 1_000_000;

describe('the untrusted-text budget', () => {
  it('a 1 MB comment and a 1 MB request: the first request stays under 32 KB, with cut notes, and the progress comment says so', async () => {
    const job = createJob({ 'README.md': '# hello\n' });
    gh = await startFakeGitHub();
    gh.addIssue({ number: 5, title: 'Crash on start', body: 'It crashes.', user: { login: 'reporter' } });
    gh.addComment(5, `STRANGER-START ${'spam '.repeat(MB / 5)}`, { login: 'stranger' }, '2024-01-01T00:00:00Z');
    const request = `/agent why does it crash? MAINTAINER-START ${'please '.repeat(MB / 7)}`;
    const trigger = gh.addComment(5, request, { login: 'maintainer' });
    gemini = await startFakeGemini([reply([text('It crashes because the config is missing.')])]);
    const payload = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
    payload.issue.number = 5;
    delete payload.issue.pull_request;
    payload.comment.id = trigger.id;
    payload.comment.body = trigger.body;
    payload.comment.created_at = trigger.created_at;
    asUser(payload.comment.user, 'maintainer');
    asUser(payload.sender, 'maintainer');

    const r = await runAction({
      eventName: 'issue_comment',
      payload,
      job,
      inputs: { 'gemini-api-key': 'AIza-e2e-budget-0000', 'gemini-base-url': gemini.baseUrl },
      env: { GITHUB_API_URL: gh.url },
    });

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('success');
    const first = gemini.requests[0].body;
    expect(Buffer.byteLength(JSON.stringify(first))).toBeLessThan(32_000);
    // Each piece appears once, in the conversation, and the system prompt carries neither.
    const system = JSON.stringify(first.systemInstruction);
    expect(system).not.toContain('MAINTAINER-START');
    expect(system).not.toContain('STRANGER-START');
    const conversation = first.contents
      .flatMap((c) => c.parts.map((p) => (typeof p.text === 'string' ? p.text : '')))
      .join('');
    expect(conversation.split('MAINTAINER-START')).toHaveLength(2);
    expect(conversation.split('STRANGER-START')).toHaveLength(2);
    // The stranger's comment: 4,000 characters shown; the request: 8,000.
    expect(conversation).toMatch(/STRANGER-START (spam )+[^\n]*\n\[\.\.\. 996\d{3} characters cut \.\.\.\]/);
    expect(conversation).toMatch(/MAINTAINER-START (please )+[^\n]*\n\[\.\.\. 99\d{4} characters cut \.\.\.\]/);
    // The progress comment's last edit tells the maintainers what the model did not see.
    const progress = gh.state.comments.find((c) => c.issue_number === 5 && c.body.includes('agent-action:progress'))!;
    // (The stranger's login is named, not mentioned: a note must not page them.)
    expect(progress.body).toContain(
      'Some text was too long for the model and was cut: comment 1 by @\u200Bstranger (996014 characters)',
    );
    expect(progress.body).toContain("the maintainer's request (992034 characters)");
  });
});
