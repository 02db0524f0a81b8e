/**
 * A broken event file through the bundled action: the runner wrote GITHUB_EVENT_PATH, but it is
 * empty, truncated, not JSON, or not an object. The run must end `failed` with every output set, one
 * `::error` naming the file and the problem, and no stack trace (`@actions/github` would print one
 * if it read the file first). And `/agent` alone is answered with the list of commands.
 */
import { existsSync, rmSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { type ActionRun, BUNDLE, issueCommentPayload, runAction } from '../support/e2e-runner.js';
import { createJob } from '../support/runner-model.js';

let gh: FakeGitHub;
let gemini: FakeGemini;
const dirs: string[] = [];
beforeAll(() => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first`);
});
afterEach(async () => {
  await gh?.close();
  await gemini?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const OUTPUTS = [
  'status',
  'summary',
  'session-id',
  'branch',
  'pull-request',
  'review-id',
  'labels',
  'turns',
  'tokens',
  'cost-usd',
  'shards',
  'shard-count',
  'api-calls',
  'error',
  'structured-output',
];
const track = (r: ActionRun) => (dirs.push(r.env.RUNNER_TEMP), r);

async function start(body = '/agent fix') {
  const job = createJob({ 'a.txt': 'a\n' });
  gh = await startFakeGitHub();
  gh.addIssue({ number: 1, title: 'a bug' });
  const trigger = gh.addComment(1, body, { login: 'maintainer' });
  gemini = await startFakeGemini([reply([text('never asked')])]);
  const payload = issueCommentPayload(1, { id: trigger.id, body: body });
  return { job, payload };
}

describe('the bundled action, on a broken event file', () => {
  it.each([
    ['empty', '', 'is empty: expected the webhook event as a JSON object'],
    [
      'truncated',
      '{\n  "action": "created",\n  "issue": {\n    "number": 1,\n    "title": "a b',
      'is not valid JSON, truncated or corrupt (',
    ],
    ['not JSON', 'action=created&issue=1', 'is not valid JSON, truncated or corrupt ('],
    ['a JSON array', '[{"action": "created"}]', 'holds a JSON array: expected the webhook event as a JSON object'],
  ])(
    '%s: exit 1, status failed, all outputs, one ::error naming the file, no stack trace',
    async (_label, eventText, problem) => {
      const { job } = await start();
      const r = track(
        await runAction({
          eventName: 'issue_comment',
          payload: null,
          eventText,
          job,
          inputs: { 'gemini-api-key': 'AIza-e2e-0000', 'gemini-base-url': gemini.baseUrl },
          env: { GITHUB_API_URL: gh.url },
        }),
      );

      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(Object.keys(r.outputs).sort()).toEqual([...OUTPUTS].sort());
      expect(r.outputs).toMatchObject({
        status: 'failed',
        'session-id': '',
        branch: '',
        'pull-request': '',
        'review-id': '',
        labels: '',
        turns: '0',
        tokens: '0',
        'cost-usd': '0',
      });
      const file = r.env.GITHUB_EVENT_PATH;
      expect(r.outputs.summary).toBe(r.annotations[0]?.message);
      expect(r.annotations).toEqual([
        {
          level: 'error',
          message: expect.stringContaining(`the event payload file ${file} (GITHUB_EVENT_PATH) ${problem}`),
          properties: { title: 'event payload' },
        },
      ]);
      expect(r.stdout.match(/^::error/gm)).toHaveLength(1);
      expect(r.stdout + r.stderr).not.toMatch(/\n\s+at |SyntaxError|node:internal/);
      expect(gh.requests).toEqual([]);
      expect(gemini.requests).toEqual([]);
    },
  );
});

describe('the bundled action, /agent alone', () => {
  it('replies once with the list of commands; success; no model, no progress comment, no reaction', async () => {
    const { job, payload } = await start('/agent');
    const r = track(
      await runAction({
        eventName: 'issue_comment',
        payload,
        job,
        inputs: { 'gemini-api-key': 'AIza-e2e-0000', 'gemini-base-url': gemini.baseUrl },
        env: { GITHUB_API_URL: gh.url },
      }),
    );

    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('success');
    const posted = gh.state.comments.filter((c) => c.body !== '/agent');
    expect(posted).toHaveLength(1);
    expect(posted[0].body).toContain('### agent-action commands');
    expect(posted[0].body).toContain('`/agent fix [instructions]`');
    expect(posted[0].body).toContain('Labelling an issue `agent-fix` also starts `/agent fix`.');
    expect(gh.state.reactions).toEqual([]);
    expect(gemini.requests).toEqual([]);
    expect(r.annotations.filter((a) => a.level === 'error')).toEqual([]);
  });
});
