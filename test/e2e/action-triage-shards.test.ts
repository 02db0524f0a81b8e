/**
 * Nightly triage through the bundled dist/index.js, as agent-triage.yml runs it: the plan job, then
 * each shard of its matrix as its own process (inputs exactly as the workflow passes them, the
 * issues through toJSON), against the loopback GitHub and Gemini. And a shard killed midway (when
 * the model receives the 4th issue's request), then re-run: it resumes from the markers.
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fault, startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { createFakeGitHubState, startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { BUNDLE, closeAll, runAction } from '../support/e2e-runner.js';
import { createJob, type Job } from '../support/runner-model.js';
import { makeTempDir } from '../support/git-repo.js';
import { BOT, markerBody, scriptIssues, triageKeyOf, triageReplies } from '../support/triage-fixtures.js';

const KEY = { 'gemini-api-key': 'AIza-e2e-triage-0000' };
const GEMINI_MD = '# hello\n\nA tiny library.\n\n## Triage\n\nCrashes are `bug`; questions about usage are `docs`.\n';
const SCHEDULE = { schedule: '17 3 * * *' };

let gh: FakeGitHub;
let gemini: FakeGemini;
let job: Job;
beforeAll(() => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first`);
});
beforeEach(async () => {
  job = createJob({ 'README.md': '# hello\n', 'GEMINI.md': GEMINI_MD }, { name: 'schedule' });
  gh = await startFakeGitHub(
    createFakeGitHubState({
      labels: ['bug', 'docs', 'enhancement', 'needs-triage'].map((name) => ({
        name,
        color: 'ededed',
        description: null,
      })),
    }),
  );
  for (let n = 1; n <= 8; n++)
    gh.addIssue({
      number: n,
      title: `Issue ${n}`,
      body: `Report ${n}.`,
      labels: ['needs-triage'],
      created_at: new Date(Date.UTC(2026, 0, n)).toISOString(),
    });
  gemini = await startFakeGemini();
});
afterEach(() => closeAll(gh, gemini));

// A killed runner leaves its temporary files behind (a hosted runner's VM goes with them): the child's
// TMPDIR is a test directory, removed after the file.
const run = (inputs: Record<string, string>, kill?: AbortSignal) =>
  runAction({
    eventName: 'schedule',
    payload: SCHEDULE,
    job,
    inputs: { 'gemini-base-url': gemini.baseUrl, model: 'gemini-2.5-flash', ...inputs },
    env: { GITHUB_API_URL: gh.url, TMPDIR: makeTempDir('agent-action-runner-tmp-') },
    kill,
  });
const bot = () => gh.state.comments.filter((c) => c.user.type === 'Bot');

describe('the bundled action: triage plan, then its shards', () => {
  it('plans 7 of 8 issues into two shards of at most 3, runs both, and the next plan has only the one left', async () => {
    // #5 was triaged and not updated since.
    gh.state.issues.get(5)!.labels.push('agent:triaged');
    gh.addComment(5, markerBody(gh.state.issues.get(5)!.updated_at), BOT, new Date(Date.UTC(2026, 1, 1)).toISOString());

    const plan = await run({ mode: 'triage-plan', 'shard-size': '3', 'max-shards': '2', 'max-parallel': '2' });

    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const matrix = JSON.parse(plan.outputs.shards) as {
      include: Array<{ shard: number; issues: number[]; 'writes-per-minute': number; 'writes-per-hour': number }>;
    };
    expect(matrix).toEqual({
      include: [
        { shard: 1, issues: [1, 2, 3], 'writes-per-minute': 40, 'writes-per-hour': 250 },
        { shard: 2, issues: [4, 6, 7], 'writes-per-minute': 40, 'writes-per-hour': 250 },
      ],
    });
    expect(plan.outputs).toMatchObject({ status: 'success', 'shard-count': '2', 'api-calls': '3' }); // and once who the token is
    expect(plan.summary).toContain('8 open issue(s) carry `needs-triage`: 6 to triage in 2 shard(s)');
    expect(gemini.requests).toEqual([]);

    scriptIssues(gemini, {
      1: triageReplies(['bug']),
      2: triageReplies(['docs'], { reply: 'Which version?' }),
      3: triageReplies([]),
      4: triageReplies(['bug']),
      6: triageReplies(['enhancement']),
      7: triageReplies(['docs']),
    });
    for (const entry of matrix.include) {
      const shard = await run({
        ...KEY,
        mode: 'triage',
        // What `${{ toJSON(matrix.issues) }}` renders: pretty-printed JSON.
        issues: JSON.stringify(entry.issues, null, 2),
        'writes-per-minute': String(entry['writes-per-minute']),
        'writes-per-hour': String(entry['writes-per-hour']),
        'triage-concurrency': '2',
      });
      expect(shard.code, shard.stdout + shard.stderr).toBe(0);
      expect(shard.outputs.status).toBe('success');
      expect(shard.outputs.summary).toBe('triaged 3 of 3 issue(s); 0 skipped; 0 failed');
      expect(Number(shard.outputs['api-calls'])).toBeGreaterThan(0);
      expect(Number(shard.outputs.tokens)).toBe(entry.shard === 1 ? 7 * 2040 : 6 * 2040);
      for (const n of entry.issues)
        expect(shard.summary).toMatch(
          new RegExp(
            `\\| #${n} Issue ${n} \\| triaged \\| .* \\| \\[comment\\]\\(https://github\\.test/octo/hello/issues/${n}#issuecomment-\\d+\\) \\| \\d+ \\| \\$0\\.\\d+ \\|`,
          ),
        );
    }
    expect([1, 2, 3, 4, 6, 7].map((n) => gh.state.issues.get(n)!.labels)).toEqual([
      ['needs-triage', 'bug', 'agent:triaged'],
      ['needs-triage', 'docs', 'agent:triaged'],
      ['needs-triage', 'agent:triaged'],
      ['needs-triage', 'bug', 'agent:triaged'],
      ['needs-triage', 'enhancement', 'agent:triaged'],
      ['needs-triage', 'docs', 'agent:triaged'],
    ]);
    expect(
      bot()
        .map((c) => c.issue_number)
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // The guide is the GEMINI.md section, which is in the project memory: the message points to it.
    const first = gemini.requests.find((q) => triageKeyOf(q) === '#1')!.body;
    expect(JSON.stringify(first.systemInstruction)).toContain('questions about usage are `docs`');
    expect(JSON.stringify(first.contents[0])).toContain('the section \\"Triage\\" of the project memory (GEMINI.md)');

    const next = await run({ mode: 'triage-plan', 'shard-size': '3', 'max-shards': '2', 'max-parallel': '2' });
    expect(JSON.parse(next.outputs.shards)).toEqual({
      include: [{ shard: 1, issues: [8], 'writes-per-minute': 80, 'writes-per-hour': 500 }],
    });
  });

  it('a shard killed while the model works on its 4th issue resumes on re-run: the first three skipped, nothing written twice', async () => {
    scriptIssues(gemini, {
      1: triageReplies(['bug']),
      2: triageReplies(['docs']),
      3: triageReplies(['bug'], { reply: 'Steps to reproduce?' }),
      4: [fault.hang()],
    });
    const kill = new AbortController();
    void gemini.until((q) => triageKeyOf(q) === '#4').then(() => kill.abort());

    const killed = await run(
      { ...KEY, mode: 'triage', issues: '[1, 2, 3, 4, 5]', 'triage-concurrency': '1' },
      kill.signal,
    );

    expect(killed.code).toBeNull(); // SIGKILL: the runner died
    expect(bot().map((c) => c.issue_number)).toEqual([1, 2, 3]);
    expect([4, 5].map((n) => gh.state.issues.get(n)!.labels)).toEqual([['needs-triage'], ['needs-triage']]);
    const writesBefore = gh.requests.filter((q) => q.method !== 'GET' && q.path !== '/graphql').length;
    const askedBefore = gemini.requests.length;

    scriptIssues(gemini, { 4: triageReplies(['docs']), 5: triageReplies(['enhancement']) });
    const rerun = await run({ ...KEY, mode: 'triage', issues: '[1, 2, 3, 4, 5]', 'triage-concurrency': '1' });

    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(rerun.outputs.summary).toBe('triaged 2 of 5 issue(s); 3 skipped; 0 failed');
    expect(bot().map((c) => c.issue_number)).toEqual([1, 2, 3, 4, 5]);
    // Only #4 and #5 were written (labels, then the comment) and only they reached the model.
    expect(
      gh.requests
        .filter((q) => q.method !== 'GET' && q.path !== '/graphql')
        .slice(writesBefore)
        .map((q) => `${q.method} ${q.path}`),
    ).toEqual([
      'POST /repos/octo/hello/issues/4/labels',
      'POST /repos/octo/hello/issues/4/comments',
      'POST /repos/octo/hello/issues/5/labels',
      'POST /repos/octo/hello/issues/5/comments',
    ]);
    expect(new Set(gemini.requests.slice(askedBefore).map(triageKeyOf))).toEqual(new Set(['#4', '#5']));
    for (const n of [1, 2, 3])
      expect(rerun.summary).toMatch(new RegExp(`\\| #${n} Issue ${n} \\| skipped: already triaged`));
  });
});
