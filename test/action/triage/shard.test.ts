/**
 * `mode: triage` (one shard) in-process through runAction: real Octokit against the loopback
 * GitHub, the real Gemini SDK against the loopback model (each issue's conversation scripted on
 * its own), a real git checkout for the trusted configuration.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAction } from '../../../src/action/main.js';
import { call, fault, gated, reply, startFakeGemini, text, usage, type FakeGemini } from '../../support/fake-gemini.js';
import { createFakeGitHubState, startFakeGitHub, type FakeGitHub } from '../../support/fake-github.js';
import { closeAll } from '../../support/e2e-runner.js';
import { createJob, type Job } from '../../support/runner-model.js';
import { makeTempDir } from '../../support/git-repo.js';
import {
  createSteppedClock,
  markerBody,
  scriptIssues,
  triageFace,
  triageKeyOf,
  triageReplies,
} from '../../support/triage-fixtures.js';

const GUIDE = 'Crashes are `bug`. Requests for new behaviour are `enhancement`. Never close issues.';

let gh: FakeGitHub;
let gemini: FakeGemini;
let ws: Job['checkout'];
beforeEach(async () => {
  ws = createJob(
    { 'README.md': '# hello\n', 'src/a.js': 'export const a = 1;\n', '.gemini/triage.md': `${GUIDE}\n` },
    { name: 'workflow_dispatch' },
  ).checkout;
  gh = await startFakeGitHub(
    createFakeGitHubState({
      labels: ['bug', 'enhancement', 'docs', 'needs-triage', 'agent-fix'].map((name) => ({
        name,
        color: 'ededed',
        description: null,
      })),
    }),
  );
  for (const n of [1, 2, 3, 4, 5, 6])
    gh.addIssue({
      number: n,
      title: `Issue ${n}`,
      body: n === 2 ? 'It crashes when the input is empty.' : `Report ${n}.`,
      labels: ['needs-triage'],
      user: { login: 'reporter' },
    });
  gemini = await startFakeGemini();
});
afterEach(() => closeAll(gh, gemini));

async function shard(issues: number[], inputs: Record<string, string> = {}, clock = createSteppedClock()) {
  const summary: string[] = [];
  const face = triageFace({
    gh,
    gemini,
    workspace: ws.dir,
    inputs: { mode: 'triage', issues: JSON.stringify(issues), 'triage-concurrency': '1', ...inputs },
    summary,
    clock,
  });
  const outcome = await runAction(face);
  return { ...outcome, summary: summary.join('\n'), lines: face.lines, clock };
}

const bot = () => gh.state.comments.filter((c) => c.user.type === 'Bot');
const firstRequestOf = (n: number) => gemini.requests.find((r) => triageKeyOf(r) === `#${n}`)!;

describe('a triage shard', () => {
  it('triages each issue in its own conversation: allowed labels plus the triaged label, one marker comment, a summary row each', async () => {
    const seen = gh.state.issues.get(2)!.updated_at;
    scriptIssues(gemini, {
      1: triageReplies(['docs']),
      2: triageReplies(['bug', 'agent-fix', 'made-up'], { reply: 'Which version do you run?' }),
      3: triageReplies([]),
    });

    const r = await shard([1, 2, 3]);

    expect(r.errors, r.lines.join('\n')).toEqual([]);
    expect(r.result).toMatchObject({
      status: 'success',
      summary: 'triaged 3 of 3 issue(s); 0 skipped; 0 failed',
      labels: ['docs', 'bug'],
    });
    expect([1, 2, 3].map((n) => gh.state.issues.get(n)!.labels)).toEqual([
      ['needs-triage', 'docs', 'agent:triaged'],
      ['needs-triage', 'bug', 'agent:triaged'],
      ['needs-triage', 'agent:triaged'],
    ]);
    // agent-fix would start a fix run: never applied by triage; an unknown label is never created.
    expect(gh.state.labels.map((l) => l.name)).toEqual([
      'bug',
      'enhancement',
      'docs',
      'needs-triage',
      'agent-fix',
      'agent:triaged',
    ]);
    expect(bot().map((c) => c.issue_number)).toEqual([1, 2, 3]);
    const two = bot()[1].body;
    expect(two).toContain('**Triage** (agent-action): labelled `bug`.');
    expect(two).toContain('Which version do you run?');
    expect(two).toContain(`<!-- agent-action:triaged seen=${seen} run=77 -->`);
    // Labels in one request, then the comment: two writes per issue.
    expect(
      gh.requests.filter((q) => q.method !== 'GET' && q.path !== '/graphql').map((q) => `${q.method} ${q.path}`),
    ).toEqual([
      'POST /repos/octo/hello/issues/1/labels',
      'POST /repos/octo/hello/issues/1/comments',
      'POST /repos/octo/hello/issues/2/labels',
      'POST /repos/octo/hello/issues/2/comments',
      'POST /repos/octo/hello/issues/3/labels',
      'POST /repos/octo/hello/issues/3/comments',
    ]);
    expect(r.result.apiCalls).toBe(gh.requests.length);
    // Each conversation is about its issue alone, with read-only tools, the labels it may apply and the guide.
    const bodies: Record<number, string> = { 1: 'Report 1.', 2: 'It crashes when the input is empty.', 3: 'Report 3.' };
    for (const n of [1, 2, 3]) {
      const first = JSON.stringify(firstRequestOf(n).body.contents);
      expect(
        Object.entries(bodies)
          .filter(([, b]) => first.includes(b))
          .map(([k]) => Number(k)),
      ).toEqual([n]);
    }
    const req = firstRequestOf(2).body;
    expect(req.tools?.flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name)).toEqual([
      'list_directory',
      'read_file',
      'glob',
      'grep_search',
      'write_todos',
      'set_labels',
      'reply',
      'search_issues',
      'mark_duplicate',
    ]);
    const firstMessage = JSON.stringify(req.contents[0]);
    expect(firstMessage.split(GUIDE.slice(0, 30)).length - 1).toBe(1);
    expect(firstMessage).toContain('docs');
    expect(firstMessage).not.toMatch(/agent-fix|agent:triaged/);
    // The summary: one row per issue, with labels, the comment link, tokens and cost.
    expect(r.summary).toContain('Triaged 3, skipped 0, failed 0.');
    expect(r.summary).toMatch(
      /\| #2 Issue 2 \| triaged \| `bug` \| \[comment\]\(https:\/\/github\.test\/octo\/hello\/issues\/2#issuecomment-\d+\) \| 6120 \| \$0\.0021 \|/,
    );
    expect(r.result.stats).toMatchObject({ totalTokens: 14_280, turns: 7 });
  });

  it("one issue's model call fails: the others are triaged, the failed one is left untouched for the next run", async () => {
    scriptIssues(gemini, {
      1: triageReplies(['bug']),
      2: [fault.status(400, { message: 'Request contains an invalid argument.' })],
      3: triageReplies(['enhancement']),
    });

    const r = await shard([1, 2, 3]);

    expect(r.result.status).toBe('success');
    expect(r.result.summary).toBe('triaged 2 of 3 issue(s); 0 skipped; 1 failed');
    expect(gh.state.issues.get(2)!.labels).toEqual(['needs-triage']);
    expect(bot().map((c) => c.issue_number)).toEqual([1, 3]);
    expect(r.summary).toMatch(/\| #2 Issue 2 \| failed: .*invalid argument.* \| {2}\| {2}\| 0 \| \$0 \|/);
    expect(r.lines).toContainEqual(expect.stringMatching(/^warning: #2: triage failed: .*invalid argument/));
  });

  it('fails only when every issue it attempted failed', async () => {
    scriptIssues(gemini, { 1: [fault.status(400)], 2: [fault.status(400)] });
    const r = await shard([1, 2]);
    expect([r.result.status, r.result.summary]).toEqual(['failed', 'triaged 0 of 2 issue(s); 0 skipped; 2 failed']);
  });

  it('re-running the same shard applies nothing twice and asks the model nothing', async () => {
    scriptIssues(gemini, { 1: triageReplies(['bug'], { reply: 'Thanks.' }), 2: triageReplies(['docs']) });
    await shard([1, 2]);
    const writes = gh.requests.filter((q) => q.method !== 'GET' && q.path !== '/graphql').length;
    const asked = gemini.requests.length;

    const again = await shard([1, 2]);

    expect(gh.requests.filter((q) => q.method !== 'GET' && q.path !== '/graphql')).toHaveLength(writes);
    expect(gemini.requests).toHaveLength(asked);
    expect(bot()).toHaveLength(2);
    expect(again.result.summary).toBe('triaged 0 of 2 issue(s); 2 skipped; 0 failed');
    expect(again.summary).toMatch(
      /\| #1 Issue 1 \| skipped: already triaged \(https:\/\/github\.test\/octo\/hello\/issues\/1#issuecomment-\d+\), not updated since \|/,
    );
  });

  it('an issue updated after its triage is triaged again: one new comment, no label sent twice', async () => {
    scriptIssues(gemini, { 1: [...triageReplies(['bug']), ...triageReplies(['bug', 'docs'])] });
    await shard([1]);
    gh.addComment(1, 'Also the docs are wrong.', { login: 'reporter' }, new Date(Date.now() + 3_600_000).toISOString());

    await shard([1]);

    expect(bot()).toHaveLength(2);
    expect(gh.calls('POST', /\/issues\/1\/labels$/).map((q) => q.body)).toEqual([
      { labels: ['bug', 'agent:triaged'] },
      { labels: ['docs'] },
    ]);
  });

  it('a secondary rate limit (403 with retry-after) is waited out, not a failure; the retries are counted', async () => {
    scriptIssues(gemini, { 1: triageReplies(['bug']), 2: triageReplies(['docs']) });
    gh.fail({ method: 'POST', path: /\/issues\/2\/labels$/, status: 403, retryAfter: 1, times: 2 });
    gh.fail({ method: 'POST', path: /\/issues\/1\/comments$/, status: 403, retryAfter: 2, times: 1 });

    const r = await shard([1, 2]);

    expect(r.result.summary).toBe('triaged 2 of 2 issue(s); 0 skipped; 0 failed');
    expect(gh.state.issues.get(2)!.labels).toEqual(['needs-triage', 'docs', 'agent:triaged']);
    expect(bot().map((c) => c.issue_number)).toEqual([1, 2]);
    expect(gh.calls('POST', /\/issues\/2\/labels$/)).toHaveLength(3);
    expect(r.result.apiCalls).toBe(gh.requests.length);
    expect(r.lines.filter((l) => l.startsWith('secondary rate limit'))).toHaveLength(3);
  });

  it('paces writes to its share on the injected clock: a slot frees a minute after the oldest write', async () => {
    scriptIssues(gemini, { 1: triageReplies(['bug']), 2: triageReplies(['docs']), 3: triageReplies(['bug']) });
    const clock = createSteppedClock();

    const r = await shard([1, 2, 3], { 'writes-per-minute': '2' }, clock);

    expect(r.result.summary).toBe('triaged 3 of 3 issue(s); 0 skipped; 0 failed');
    // Six writes, two a minute: the 3rd and the 5th wait a full minute each (the clock only moves when slept).
    expect(clock.sleeps).toEqual([60_000, 60_000]);
    expect(r.summary).toContain('6 of them writes, 120 s spent pacing them');
  });

  it('issues run side by side with triage-concurrency: #1 waits for #3 to ask (a sequential shard would hang here)', async () => {
    scriptIssues(gemini, {
      1: [
        gated(
          gemini.until((q) => triageKeyOf(q) === '#3'),
          reply([call('set_labels', { labels: ['bug'] })]),
        ),
        reply([text('done')]),
      ],
      2: triageReplies(['docs']),
      3: triageReplies(['enhancement']),
      4: triageReplies(['bug']),
    });

    const r = await shard([1, 2, 3, 4], { 'triage-concurrency': '3' });

    expect(r.result.summary).toBe('triaged 4 of 4 issue(s); 0 skipped; 0 failed');
    expect([1, 2, 3, 4].map((n) => gh.state.issues.get(n)!.labels[1])).toEqual(['bug', 'docs', 'enhancement', 'bug']);
    // Results keep the shard's order, whatever order the issues finished in.
    expect(r.summary.indexOf('| #1 ')).toBeLessThan(r.summary.indexOf('| #4 '));
  });

  it('finds a duplicate with the search API (this repository only) and links it', async () => {
    gh.addIssue({
      number: 40,
      title: 'Crash on empty input',
      body: 'add() crashes when the input is empty',
      state: 'closed',
    });
    scriptIssues(gemini, {
      2: [
        reply([call('mark_duplicate', { issue_number: 40, reason: 'guessing' })]),
        reply([call('search_issues', { query: 'repo:other/secret crashes empty' })]),
        reply([
          call('mark_duplicate', { issue_number: 40, reason: 'Same crash on empty input.' }),
          call('set_labels', { labels: ['bug'] }),
        ]),
        reply([text('A duplicate of #40.')]),
      ],
    });

    const r = await shard([2]);

    expect(r.result.summary).toBe('triaged 1 of 1 issue(s); 0 skipped; 0 failed');
    expect(gh.calls('GET', /^\/search\/issues$/).map((q) => q.query.q)).toEqual([
      'repo:octo/hello is:issue crashes empty',
    ]);
    const results = JSON.stringify(gemini.requests.map((q) => q.body.contents));
    expect(results).toContain('was not among the search results');
    expect(results).toMatch(/#40 \(closed\) Crash on empty input/);
    expect(bot()[0].body).toContain('Possible duplicate of #40: Same crash on empty input.');
    expect(r.summary).toContain('| `bug`; duplicate of #40 |');
  });

  it("stops starting issues once the shard's budget (max-cost-usd) is spent; a per-issue budget ends that issue's run with what it recorded", async () => {
    scriptIssues(gemini, {
      1: [
        reply([call('set_labels', { labels: ['bug'] })], { usage: usage(100_000, 100) }),
        reply([text('never asked')]),
      ],
      2: triageReplies(['docs']),
    });

    const r = await shard([1, 2], { 'max-cost-usd': '0.02', 'max-cost-usd-per-issue': '0.01' });

    expect(gh.state.issues.get(1)!.labels).toEqual(['needs-triage', 'bug', 'agent:triaged']);
    expect(bot()[0].body).toContain('The triage stopped early (reached the cost limit');
    expect(gh.state.issues.get(2)!.labels).toEqual(['needs-triage']);
    expect(r.summary).toContain("| #2 | skipped: the shard's budget (max-cost-usd) is spent; left for the next run |");
    expect(gemini.requests.filter((q) => triageKeyOf(q) === '#2')).toEqual([]);
  });

  it('a dry run asks the model and writes nothing', async () => {
    scriptIssues(gemini, { 1: triageReplies(['bug'], { reply: 'More detail?' }) });
    const r = await shard([1], { 'dry-run': 'true' });
    expect(gh.requests.filter((q) => q.method !== 'GET' && q.path !== '/graphql')).toEqual([]);
    expect(r.summary).toContain('(dry run: nothing written)');
    expect(r.summary).toMatch(/\| #1 Issue 1 \| would triage \| `bug` \| {2}\|/);
  });

  it('skips closed issues, pull requests and issues triaged since their last update without asking the model', async () => {
    gh.state.issues.get(4)!.state = 'closed';
    gh.addPull({
      number: 9,
      title: 'A PR',
      labels: ['needs-triage'],
      pull: {
        head: { ref: 'x', sha: 'a'.repeat(40), repoFullName: 'octo/hello' },
        base: { ref: 'main', sha: 'b'.repeat(40) },
        files: [],
      },
    });
    gh.state.issues.get(5)!.labels.push('agent:triaged');
    gh.addComment(5, markerBody(gh.state.issues.get(5)!.updated_at), { login: 'github-actions[bot]', type: 'Bot' });

    const r = await shard([4, 9, 5]);

    expect(r.summary).toContain('| #4 Issue 4 | skipped: closed |');
    expect(r.summary).toContain('| #9 A PR | skipped: a pull request |');
    expect(r.summary).toMatch(/\| #5 Issue 5 \| skipped: already triaged/);
    expect(gemini.requests).toEqual([]);
  });
});

describe('a shard without a checkout', () => {
  it('fails once, saying to check out the repository, before any model call or write', async () => {
    const face = triageFace({ gh, gemini, workspace: makeTempDir(), inputs: { mode: 'triage', issues: '1' } });
    const { result, errors } = await runAction(face);
    expect(result.status).toBe('failed');
    expect(errors).toEqual([
      {
        title: 'agent-action: config',
        message: expect.stringMatching(
          /^triage reads the repository's trusted configuration from the checked-out commit, .* add actions\/checkout before this step/,
        ),
      },
    ]);
    expect([gemini.requests, gh.requests.filter((q) => q.method !== 'GET' && q.path !== '/graphql')]).toEqual([[], []]);
  });
});

describe('triage without a matrix (schedule, no mode)', () => {
  it('triages every labelled issue that needs it, in one job, with the same markers', async () => {
    for (const n of [3, 4, 5, 6]) gh.state.issues.get(n)!.labels = [];
    scriptIssues(gemini, { 1: triageReplies(['bug']), 2: triageReplies(['docs']) });
    gh.state.issues.get(2)!.labels.push('agent:triaged');
    gh.addComment(2, markerBody('x'), { login: 'github-actions[bot]', type: 'Bot' });
    gh.addComment(2, 'any news?', { login: 'reporter' }, new Date(Date.now() + 60_000).toISOString());
    const face = triageFace({ gh, gemini, workspace: ws.dir, inputs: {} });

    const { result } = await runAction(face);

    expect(result.summary).toBe('triaged 2 of 2 issue(s); 0 skipped; 0 failed');
    // Two issues at once (triage-concurrency 2): which marker lands first is not fixed.
    expect(
      bot()
        .map((c) => c.issue_number)
        .sort(),
    ).toEqual([1, 2, 2]);
  });
});
