/**
 * `triage-query` end to end: the scheduled triage plan selects issues with GitHub's issue search
 * (run-gemini-cli's `is:open no:label`) instead of the label, through the bundled action against
 * the fake GitHub's search route; a query aimed at another repository fails naming the input.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { createFakeGitHubState, startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { assertBundle, closeAll, runAction } from '../support/e2e-runner.js';
import { createJob, type Job } from '../support/runner-model.js';

let gh: FakeGitHub;
let gemini: FakeGemini;
let job: Job;
beforeAll(() => assertBundle());
beforeEach(async () => {
  job = createJob({ 'README.md': '# hello\n' }, { name: 'schedule' });
  gh = await startFakeGitHub(
    createFakeGitHubState({
      labels: ['bug', 'needs-triage'].map((name) => ({ name, color: 'ededed', description: null })),
    }),
  );
  const day = (n: number) => new Date(Date.UTC(2026, 0, n)).toISOString();
  gh.addIssue({ number: 1, title: 'Labelled for triage', body: 'a', labels: ['needs-triage'], created_at: day(1) });
  gh.addIssue({ number: 2, title: 'No label yet', body: 'b', labels: [], created_at: day(2) });
  gh.addIssue({ number: 3, title: 'A known bug', body: 'c', labels: ['bug'], created_at: day(3) });
  gh.addIssue({ number: 4, title: 'Closed, unlabelled', body: 'd', labels: [], state: 'closed', created_at: day(4) });
  gh.addIssue({ number: 5, title: 'Also unlabelled', body: 'e', labels: [], created_at: day(5) });
  gemini = await startFakeGemini();
});
afterEach(() => closeAll(gh, gemini));

const plan = (inputs: Record<string, string>) =>
  runAction({
    eventName: 'schedule',
    payload: { schedule: '17 3 * * *' },
    job,
    inputs: {
      'gemini-api-key': 'AIza-e2e-triage-query',
      'gemini-base-url': gemini.baseUrl,
      mode: 'triage-plan',
      ...inputs,
    },
    env: { GITHUB_API_URL: gh.url },
  });

describe('the bundled action: triage-query', () => {
  it('selects the open unlabelled issues, oldest first, scoped to this repository', async () => {
    const r = await plan({ 'triage-query': 'is:open no:label' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.outputs.shards)).toMatchObject({ include: [{ shard: 1, issues: [2, 5] }] });
    const search = gh.requests.filter((q) => q.path.endsWith('/search/issues'));
    expect(search.map((q) => q.query.q)).toEqual(['repo:octo/hello is:issue is:open no:label']);
    expect(r.summary).toContain('issue(s) found by triage-query `is:open no:label`');
  });

  it('without it the label selects, as before', async () => {
    const r = await plan({});
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.outputs.shards)).toMatchObject({ include: [{ shard: 1, issues: [1] }] });
  });

  it('a repo: qualifier naming another repository fails naming the input, and searches nothing', async () => {
    const r = await plan({ 'triage-query': 'repo:someone/else is:open' });
    const log = r.stdout + r.stderr;
    expect(r.code, log).not.toBe(0);
    expect(log).toContain(
      'input \'triage-query\' is "repo:someone/else is:open": repo:someone/else searches outside this repository',
    );
    expect(gh.requests.filter((q) => q.path.endsWith('/search/issues'))).toEqual([]);
  });
});
