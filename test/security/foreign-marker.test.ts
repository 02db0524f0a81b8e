/**
 * Attack (issue 26, sixth item): a marker from someone else's account. A third-party bot quotes a
 * stranger's issue, `triaged` marker and all, so the nightly plan would skip the stranger's issue
 * and never look at what they edited into it. Through the bundled action's triage plan.
 *
 * Defence: a marker counts only when the API says the action's own account wrote it (authorize.ts
 * isOurs: github-actions[bot], or whoever GraphQL's viewer says the token is).
 * `weaken.mjs ... own-marker` makes every author the action.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFakeGitHubState, startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { closeAll, runAction } from '../support/e2e-runner.js';
import { createJob } from '../support/runner-model.js';
import { BOT, markerBody } from '../support/triage-fixtures.js';
import { assertBundle, logOf } from './harness.js';

let gh: FakeGitHub;
beforeAll(assertBundle);
afterEach(() => closeAll(gh));

describe("a triaged marker from another account, through the bundle's triage plan", () => {
  it("a bot quoting the marker does not make the plan skip the issue; the action's own marker does", async () => {
    const job = createJob({ 'README.md': '# hello\n' }, { name: 'schedule' });
    gh = await startFakeGitHub(
      createFakeGitHubState({ labels: ['needs-triage'].map((name) => ({ name, color: 'ededed', description: null })) }),
    );
    for (const n of [1, 2]) {
      gh.addIssue({
        number: n,
        title: `Issue ${n}`,
        body: `Report ${n}.`,
        labels: ['needs-triage', 'agent:triaged'],
        created_at: new Date(Date.UTC(2026, 0, n)).toISOString(),
        user: { login: 'stranger' },
      });
    }
    const later = new Date(Date.UTC(2026, 1, 1)).toISOString();
    // #1: quoted by another bot after the stranger's edit. #2: the action's own marker.
    gh.addComment(
      1,
      `> quoting the issue\n${markerBody(gh.state.issues.get(1)!.updated_at)}`,
      { login: 'quote-bot[bot]', type: 'Bot' },
      later,
    );
    gh.addComment(2, markerBody(gh.state.issues.get(2)!.updated_at), BOT, later);

    const plan = await runAction({
      eventName: 'schedule',
      payload: { schedule: '17 3 * * *' },
      job,
      inputs: { mode: 'triage-plan', 'gemini-api-key': 'AIza-e2e-foreign-marker-0000' },
      env: { GITHUB_API_URL: gh.url },
    });

    expect(plan.outputs.status, logOf(plan)).toBe('success');
    const matrix = JSON.parse(plan.outputs.shards) as { include: Array<{ issues: number[] }> };
    expect(matrix.include.flatMap((s) => s.issues)).toEqual([1]);
  });
});
