/**
 * The triage plan against a loopback GitHub holding 500 issues (real Octokit, real pagination with
 * `link` headers): which issues it shards, which it skips and why, the caps, the dry run, the write
 * budget each shard carries, and the API calls it makes. Plus the pure pieces: the split and the
 * marker check.
 */
import type { OwnLogins } from '../../../src/action/authorize.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAction } from '../../../src/action/main.js';
import { shareWriteBudget, splitIntoShards } from '../../../src/action/triage/plan.js';
import { findCoveringMarker, type MarkerComment } from '../../../src/action/triage/triage-marker.js';
import { startFakeGitHub, type FakeGitHub } from '../../support/fake-github.js';
import { makeTempDir } from '../../support/git-repo.js';
import { backlogKind, seedBacklog, triageFace, type BacklogKind } from '../../support/triage-fixtures.js';

let gh: FakeGitHub;
let kinds: Map<number, BacklogKind>;
beforeEach(async () => {
  gh = await startFakeGitHub();
  kinds = seedBacklog(
    gh,
    Array.from({ length: 500 }, (_, i) => backlogKind(i + 1)),
  );
});
afterEach(async () => {
  await gh.close();
});

const plan = async (inputs: Record<string, string>) => {
  const summary: string[] = [];
  const face = triageFace({
    gh,
    workspace: makeTempDir(),
    inputs: { mode: 'triage-plan', 'gemini-api-key': '', ...inputs },
    summary,
  });
  const outcome = await runAction(face);
  expect(outcome.errors, face.lines.join('\n')).toEqual([]);
  return {
    ...outcome.result,
    matrix: JSON.parse(outcome.result.shards ?? 'null') as {
      include: Array<{ shard: number; issues: number[]; 'writes-per-minute': number; 'writes-per-hour': number }>;
    },
    summary: summary.join('\n'),
  };
};

describe('triage-plan on 500 issues', () => {
  it('shards every issue that needs triage, oldest first, and only those; reads every page', async () => {
    const r = await plan({ 'max-shards': '20', 'shard-size': '20' });

    const planned = r.matrix.include.flatMap((s) => s.issues);
    expect(planned).toHaveLength(385);
    expect(planned).toEqual([...planned].sort((a, b) => a - b));
    const kindsPlanned = new Set(planned.map((n) => kinds.get(n)));
    expect([...kindsPlanned].sort()).toEqual(['forged-marker', 'marker-no-label', 'todo', 'updated-since']);
    expect(planned.filter((n) => kinds.get(n) === 'triaged')).toEqual([]);
    // 385 over 20 shards: sizes 20 x5 then 19 x15, contiguous.
    expect(r.matrix.include.map((s) => s.issues.length)).toEqual([20, 20, 20, 20, 20, ...Array(15).fill(19)]);
    expect(r.matrix.include[0].issues.slice(0, 10)).toEqual([1, 2, 3, 4, 6, 7, 8, 9, 12, 14]);
    expect(r.matrix.include.map((s) => s.shard)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(r.shardCount).toBe(20);
    // 490 labelled open items (PRs included) in pages of 100, one marker lookup per issue carrying
    // agent:triaged (100 triaged + 20 updated since + 10 forged), and once who the token is: 5 + 130 + 1.
    expect(gh.calls('GET', /\/issues$/)).toHaveLength(5);
    expect(gh.calls('GET', /\/issues\/\d+\/comments$/)).toHaveLength(130);
    expect(gh.calls('POST', /^\/graphql$/)).toHaveLength(1);
    expect(r.apiCalls).toBe(136);
    expect(gh.requests).toHaveLength(136);
    expect(gh.requests.filter((q) => q.method !== 'GET' && q.path !== '/graphql')).toEqual([]);
    expect(r.summary).toContain(
      '485 open issue(s) carry `needs-triage`: 385 to triage in 20 shard(s) (at most 20 of 20), 100 triaged since their last update, 0 not examined (beyond the shards), left for the next run.',
    );
    expect(r.summary).toContain('GitHub API calls: 136.');
  });

  it('at most max-shards of shard-size: the oldest first, the rest left for the next run and not examined', async () => {
    const r = await plan({ 'max-shards': '3', 'shard-size': '10', 'max-parallel': '4' });

    expect(r.matrix.include).toEqual([
      { shard: 1, issues: [1, 2, 3, 4, 6, 7, 8, 9, 12, 14], 'writes-per-minute': 26, 'writes-per-hour': 166 },
      { shard: 2, issues: [16, 18, 19, 21, 22, 23, 24, 26, 27, 28], 'writes-per-minute': 26, 'writes-per-hour': 166 },
      { shard: 3, issues: [29, 31, 32, 33, 34, 36, 37, 38, 39, 41], 'writes-per-minute': 26, 'writes-per-hour': 166 },
    ]);
    // Markers looked up only up to #41: #5..#40 triaged (8), #3 and #28 updated since, #7 forged.
    expect(gh.calls('GET', /\/issues\/\d+\/comments$/).map((q) => Number(/issues\/(\d+)/.exec(q.path)![1]))).toEqual([
      3, 5, 7, 10, 15, 20, 25, 28, 30, 35, 40,
    ]);
    expect(r.apiCalls).toBe(17); // and once who the token is
    expect(r.summary).toContain(
      '485 open issue(s) carry `needs-triage`: 30 to triage in 3 shard(s) (at most 3 of 10), 8 triaged since their last update, 447 not examined (beyond the shards), left for the next run.',
    );
    expect(r.summary).toContain(
      'Not examined, left for the next run (447, beyond max-shards x shard-size): #42, #43, #44,',
    );
  });

  it('a dry run outputs no shards, lists them in the summary, writes nothing', async () => {
    const r = await plan({ 'max-shards': '2', 'shard-size': '5', 'dry-run': 'true' });

    expect(r.matrix).toEqual({ include: [] });
    expect(r.shardCount).toBe(0);
    expect(r.summary).toContain('Dry run: nothing was triaged and no shard starts');
    expect(r.summary).toContain('| 1 | #1, #2, #3, #4, #6 | 40 / 250 |');
    expect(r.summary).toContain('| 2 | #7, #8, #9, #12, #14 | 40 / 250 |');
    expect(gh.requests.filter((q) => q.method !== 'GET' && q.path !== '/graphql')).toEqual([]);
    expect(gh.state.comments.filter((c) => c.user.type === 'Bot')).toHaveLength(130);
  });

  it('needs no Gemini API key and no checkout', async () => {
    const r = await plan({ 'max-shards': '1', 'shard-size': '1' });
    expect([r.status, r.matrix.include[0].issues]).toEqual(['success', [1]]);
  });
});

describe('splitIntoShards', () => {
  it.each([
    [[], 4, 3, []],
    [
      [1, 2, 3, 4, 5, 6, 7],
      4,
      3,
      [
        [1, 2, 3],
        [4, 5],
        [6, 7],
      ],
    ],
    [
      [1, 2, 3, 4, 5, 6],
      4,
      3,
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    ],
    [
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      2,
      3,
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    ],
    [[9, 3, 5], 10, 1, [[9], [3], [5]]],
  ])('%j into at most %i of %i', (issues, maxShards, size, expected) => {
    expect(splitIntoShards(issues, maxShards, size)).toEqual(expected);
  });

  it('a 500-issue backlog fits a matrix: never more than max-shards (GitHub allows 256 jobs)', () => {
    const shards = splitIntoShards(
      Array.from({ length: 500 }, (_, i) => i + 1),
      256,
      1,
    );
    expect(shards).toHaveLength(256);
  });
});

describe('shareWriteBudget', () => {
  it.each([
    [1, { perMinute: 80, perHour: 500 }],
    [4, { perMinute: 20, perHour: 125 }],
    [3, { perMinute: 26, perHour: 166 }],
    [200, { perMinute: 1, perHour: 2 }],
  ])('%i at once', (parallel, share) => {
    expect(shareWriteBudget({ perMinute: 80, perHour: 500 }, parallel)).toEqual(share);
  });
});

describe('findCoveringMarker', () => {
  const UPDATED = '2026-03-01T12:00:00Z';
  const OWN: OwnLogins = new Set(['github-actions[bot]', 'agent-app[bot]']);
  const marker = (over: Partial<MarkerComment>): MarkerComment => ({
    body: 'done\n<!-- agent-action:triaged seen=2026-03-01T11:59:58Z -->',
    updated_at: UPDATED,
    user: { login: 'github-actions[bot]', type: 'Bot' },
    ...over,
  });
  it.each([
    ["the action's marker as new as the issue", marker({}), true],
    ["the action's App account, any case", marker({ user: { login: 'Agent-App[bot]', type: 'Bot' } }), true],
    ['within the 10 s tolerance', marker({ updated_at: '2026-03-01T11:59:51Z' }), true],
    ['an update 11 s after the marker', marker({ updated_at: '2026-03-01T11:59:49Z' }), false],
    [
      "a collaborator pasting the marker (only the action's own account counts)",
      marker({ user: { login: 'maint', type: 'User' } }),
      false,
    ],
    ['an outsider pasting the marker', marker({ user: { login: 'reporter', type: 'User' } }), false],
    ['another bot quoting the marker', marker({ user: { login: 'quote-bot[bot]', type: 'Bot' } }), false],
    ['a deleted account', marker({ user: null }), false],
    ['an own comment without the marker', marker({ body: 'Thanks for the report!' }), false],
    ['another marker kind', marker({ body: '<!-- agent-action:progress run=1 -->' }), false],
  ])('%s: %s', (_name, comment, covered) => {
    expect(findCoveringMarker(UPDATED, [comment], OWN) !== undefined).toBe(covered);
  });
});
