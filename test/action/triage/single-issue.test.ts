/**
 * A triage of one issue (a maintainer's `/agent triage`, or `issues: opened`) leaves the durable
 * marker the nightly shards leave: the triaged label and a marker comment (here the progress
 * comment's last edit), so the next plan skips the issue until it changes. In-process through
 * runAction: real webhook payloads, real Octokit against the loopback GitHub, the real Gemini SDK
 * against the loopback model, a real git checkout; then the real plan over the same GitHub.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAction } from '../../../src/action/main.js';
import { createTestFace } from '../../support/action-face.js';
import {
  call,
  fault,
  reply,
  startFakeGemini,
  text,
  type FakeGemini,
  type FakeReply,
} from '../../support/fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from '../../support/fake-github.js';
import { asUser, closeAll, examplePayload, retarget } from '../../support/e2e-runner.js';
import { createJob } from '../../support/runner-model.js';
import { makeTempDir } from '../../support/git-repo.js';
import { triageFace } from '../../support/triage-fixtures.js';

const ISSUE = 7;
let gh: FakeGitHub;
let gemini: FakeGemini;
beforeEach(async () => {
  gh = await startFakeGitHub();
  gh.addIssue({
    number: ISSUE,
    title: 'Crash when the input is empty',
    body: 'add() throws on empty input.',
    labels: ['needs-triage'],
    user: { login: 'reporter' },
  });
});
afterEach(() => closeAll(gh, gemini));

/** The real payload of `/agent triage` by a maintainer on the issue, or of the issue being opened. */
function payloadOf(event: 'comment' | 'opened'): { name: string; payload: Record<string, any> } {
  if (event === 'opened') {
    const p = retarget(examplePayload('issues', 'opened'), 'octo/hello');
    p.issue.number = ISSUE;
    asUser(p.issue.user, 'reporter');
    asUser(p.sender, 'reporter');
    return { name: 'issues', payload: p };
  }
  const c = gh.addComment(ISSUE, '/agent triage', { login: 'maintainer' });
  const p = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
  p.issue.number = ISSUE;
  delete p.issue.pull_request;
  Object.assign(p.comment, { id: c.id, body: c.body, created_at: c.created_at, updated_at: c.updated_at });
  asUser(p.comment.user, 'maintainer');
  asUser(p.sender, 'maintainer');
  return { name: 'issue_comment', payload: p };
}

async function triageOne(event: 'comment' | 'opened', script: FakeReply[]) {
  gemini = await startFakeGemini(script);
  const { name, payload } = payloadOf(event);
  const eventPath = join(makeTempDir('agent-action-single-triage-'), 'event.json');
  writeFileSync(eventPath, JSON.stringify(payload));
  const job = createJob({ 'README.md': '# hello\n' }, { name });
  const face = createTestFace({
    ...job.env,
    GITHUB_EVENT_NAME: name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_WORKSPACE: job.checkout.dir,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: '41',
    AGENT_ACTION_GITHUB_PACING: 'none',
    'INPUT_GITHUB-TOKEN': 'ghs_single_triage_0000',
    'INPUT_GEMINI-API-KEY': 'AIza-single-triage-0000',
    'INPUT_GEMINI-BASE-URL': gemini.baseUrl,
    INPUT_MODEL: 'gemini-2.5-flash',
  });
  return { ...(await runAction(face)), lines: face.lines };
}

/** The nightly plan over the same GitHub: which issues it shards, and why it skipped the rest. */
async function plan() {
  const summary: string[] = [];
  const face = triageFace({
    gh,
    workspace: makeTempDir(),
    inputs: { mode: 'triage-plan', 'gemini-api-key': '' },
    summary,
  });
  const { result, errors } = await runAction(face);
  expect(errors, face.lines.join('\n')).toEqual([]);
  const matrix = JSON.parse(result.shards ?? 'null') as { include: Array<{ issues: number[] }> };
  return { planned: matrix.include.flatMap((s) => s.issues), summary: summary.join('\n') };
}

const progressOf = () => gh.state.comments.filter((c) => c.body.includes('<!-- agent-action:progress'));

describe('a triage of one issue leaves the durable marker', () => {
  it.each(['comment', 'opened'] as const)(
    '%s: the triaged label and the marker in the progress comment; the next plan skips the issue until it changes',
    async (event) => {
      expect((await plan()).planned).toEqual([ISSUE]); // due before

      const r = await triageOne(event, [
        reply([call('set_labels', { labels: ['bug'] })]),
        reply([text('A crash report: labelled bug.')]),
      ]);

      expect(r.errors, r.lines.join('\n')).toEqual([]);
      expect(r.result).toMatchObject({ status: 'success', labels: ['bug'] });
      expect(gh.state.issues.get(ISSUE)!.labels).toEqual(['needs-triage', 'bug', 'agent:triaged']);
      // One request: the model's label and the action's own.
      expect(gh.calls('POST', /\/issues\/7\/labels$/).map((q) => q.body)).toEqual([
        { labels: ['bug', 'agent:triaged'] },
      ]);
      const [progress] = progressOf();
      expect(progress.body).toMatch(/\n<!-- agent-action:triaged seen=\d{4}-\d\d-\d\dT[\d:.]+Z run=41 -->$/);
      // The marker was the last write: nothing was created or edited after the progress comment's last edit.
      const writes = gh.requests.filter((q) => q.method !== 'GET');
      expect(writes.at(-1)).toMatchObject({
        method: 'PATCH',
        path: expect.stringContaining(`/issues/comments/${progress.id}`),
      });

      const after = await plan();
      expect(after.planned).toEqual([]);
      expect(after.summary).toContain('1 triaged since their last update');

      // The reporter writes again an hour later: the issue is due again.
      gh.addComment(
        ISSUE,
        'It also throws on null.',
        { login: 'reporter' },
        new Date(Date.now() + 3_600_000).toISOString(),
      );
      expect((await plan()).planned).toEqual([ISSUE]);
    },
  );

  it('a triage whose model call fails leaves no marker: the next plan triages the issue', async () => {
    const r = await triageOne('comment', [fault.status(400, { message: 'Request contains an invalid argument.' })]);

    expect(r.result.status).toBe('failed');
    expect(gh.state.issues.get(ISSUE)!.labels).toEqual(['needs-triage']);
    expect(gh.calls('POST', /\/issues\/7\/labels$/)).toEqual([]);
    expect(progressOf().map((c) => c.body)).not.toContainEqual(expect.stringContaining('agent-action:triaged'));
    expect((await plan()).planned).toEqual([ISSUE]);
  });
});
