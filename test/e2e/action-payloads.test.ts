/**
 * Every payload of @octokit/webhooks-examples through `runAction()` (in-process: a child process per
 * payload would take minutes on a loaded machine) ends exactly as test/support/webhook-routes.ts
 * says: skipped with that exact reason and no model request, or the routed command really run (the
 * model asked, the result posted on that thread). Then one per event type through the bundled
 * dist/index.js. The fakes are seeded with the repository, issue and pull request each payload
 * names, so routed commands run against the fake GitHub and the fake Gemini.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction as runInProcess } from '../../src/action/main.js';
import { createTestFace } from '../support/action-face.js';
import { reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { createFakeGitHubState, startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { makeTempDir } from '../support/git-repo.js';
import { addPullFromRemote } from '../support/action-world.js';
import { BUNDLE, createRunnerEnv, readWebhookExamples, refsOf, runAction } from '../support/e2e-runner.js';
import { createRemote, hasJobFacts, jobEventOf, jobFor, type Job, type Remote } from '../support/runner-model.js';
import { EXPECTED_ROUTES, exampleKey, HANDLED_EVENTS } from '../support/webhook-routes.js';
import type { Command } from '../../src/action/event-command.js';

/** Events a workflow using this action subscribes to (handled), and a few it may receive anyway. */
const BUNDLE_EVENTS = [
  'issue_comment',
  'pull_request_review_comment',
  'pull_request',
  'issues',
  'workflow_dispatch',
  'pull_request_review',
  'push',
  'discussion_comment',
];

let gemini: FakeGemini;
beforeAll(async () => {
  gemini = await startFakeGemini([]);
});
afterAll(() => gemini?.close());

type Payload = Record<string, any>;

/** The repository each payload names, on "GitHub" (the runner model), with the pull request it is about: one per repository and number. */
const remotes = new Map<string, Remote>();
function remoteFor(p: Payload): Remote {
  const repository = String(p.repository?.full_name ?? 'octo/hello');
  const issue = p.issue ?? p.pull_request;
  const pull =
    (p.pull_request || issue?.pull_request) && typeof issue?.number === 'number' ? (issue.number as number) : undefined;
  const key = `${repository}#${pull ?? ''}`;
  if (!remotes.has(key)) {
    const pulls =
      pull !== undefined ? [{ number: pull, head: 'changes', files: { 'src/a.js': 'export const a = 2;\n' } }] : [];
    remotes.set(
      key,
      createRemote({
        repository,
        files: { 'README.md': '# Hello-World\n', 'src/a.js': 'export const a = 1;\n' },
        pulls,
      }),
    );
  }
  return remotes.get(key)!;
}

/**
 * The job the event starts on that repository: what the runner model says for it, or, for the
 * events it places by their payload (push, release...: routed to a skip before the workspace is
 * read), a job on the default branch. One per repository and event: the payloads share it as
 * steps of one job would.
 */
const jobs = new Map<string, Job>();
function jobOf(event: string, p: Payload): Job {
  const remote = remoteFor(p);
  const key = `${remote.dir}:${event}`;
  if (!jobs.has(key)) jobs.set(key, jobFor(remote, hasJobFacts(event) ? jobEventOf(event, p) : { name: 'schedule' }));
  return jobs.get(key)!;
}

/** A fake GitHub holding what the payload points at: its repository, issue or pull request, and users. */
async function fakeFor(p: Payload): Promise<FakeGitHub> {
  const [owner, repo] = String(p.repository?.full_name ?? 'octo/hello').split('/');
  const users = [p.sender?.login, p.comment?.user?.login, p.review?.user?.login].filter(
    (l): l is string => typeof l === 'string',
  );
  const gh = await startFakeGitHub(
    createFakeGitHubState({
      owner,
      repo,
      permissions: { ...Object.fromEntries(users.map((u) => [u, 'admin' as const])), reader: 'read' },
    }),
  );
  const remote = remoteFor(p);
  gh.state.resolveRef = refsOf(remote.dir);
  const issue = p.issue ?? p.pull_request;
  if (issue && typeof issue.number === 'number') {
    const base = {
      number: issue.number,
      title: String(issue.title ?? 'example'),
      body: String(issue.body ?? ''),
      user: { login: String(issue.user?.login ?? 'someone') },
      labels: (issue.labels ?? []).map((l: { name: string }) => l.name),
    };
    if (p.pull_request || issue.pull_request) {
      addPullFromRemote(gh, remote, base).labels = base.labels;
    } else {
      gh.addIssue(base);
    }
  }
  // workflow_dispatch with no prompt triages open issues carrying the triage label.
  if (!issue) gh.addIssue({ number: 42, title: 'Needs a look', labels: ['needs-triage'] });
  return gh;
}

const inputs = () => ({ 'gemini-api-key': 'AIza-sweep-0000', 'gemini-base-url': gemini.baseUrl, 'max-turns': '3' });
/** Enough closing replies for any run: each routed run asks the model once and finishes. */
const feedModel = () => gemini.push(reply([text('Nothing to change here.')]), reply([text('Nothing to change here.')]));

const cases = readWebhookExamples().flatMap((d) =>
  d.examples.map((payload, i) => [exampleKey(d.name, i, payload), d.name, payload as Payload] as const),
);

const expectedRoute = (key: string, event: string): Command =>
  HANDLED_EVENTS.includes(event) ? EXPECTED_ROUTES[key] : { kind: 'skip', reason: `event '${event}' is not handled` };

/** The thread a routed command's result must be posted on: its own, or the labelled issue (42) that triage-all finds. */
const threadOf = (c: Command): number =>
  c.kind === 'skip' ? 0 : c.kind === 'triage-all' ? 42 : c.trigger.thread!.number;

describe('every @octokit/webhooks-examples payload through runAction()', () => {
  it.each(cases)('%s ends as routed', async (key, event, payload) => {
    const expected = expectedRoute(key, event);
    expect(expected, `${key} has no row in test/support/webhook-routes.ts`).toBeDefined();
    const gh = await fakeFor(payload);
    const before = gemini.requests.length;
    try {
      feedModel();
      const dir = makeTempDir('agent-action-event-');
      const eventPath = join(dir, 'event.json');
      writeFileSync(eventPath, JSON.stringify(payload));
      const env = createRunnerEnv(
        { eventName: event, payload, job: jobOf(event, payload), inputs: inputs(), env: { GITHUB_API_URL: gh.url } },
        { eventPath, outputPath: join(dir, 'out'), summaryPath: join(dir, 'summary'), temp: dir, home: dir },
      );
      const face = createTestFace(env);
      const outcome = await runInProcess(face);
      expect(outcome.errors, face.lines.join('\n')).toEqual([]);
      const result = outcome.result;
      const lines = face.lines;
      const asked = gemini.requests.length - before;
      if (expected.kind === 'skip') {
        expect(result).toEqual({ status: 'skipped', summary: expected.reason });
        expect(asked).toBe(0);
        expect(gh.state.comments).toEqual([]);
        return;
      }
      expect(result.status, lines.join('\n')).toBe('success');
      expect(asked).toBeGreaterThan(0);
      const thread = threadOf(expected);
      const posted = [...gh.state.comments.map((c) => c.issue_number), ...gh.state.reviews.map((r) => r.pull_number)];
      expect(posted.length).toBeGreaterThan(0);
      expect(new Set(posted)).toEqual(new Set([thread]));
    } finally {
      await gh.close();
    }
  });
});

describe('one payload per event type through the bundled dist/index.js', () => {
  beforeAll(() => {
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first`);
  });
  const defs = readWebhookExamples();
  const picks = BUNDLE_EVENTS.map((name) => {
    const d = defs.find((x) => x.name === name);
    // The first example whose action routes to work when there is one, else the first.
    const ex =
      d?.examples.find((p) => ['opened', 'created', undefined].includes(p.action as string | undefined)) ??
      d?.examples[0];
    return [name, ex as Payload | undefined] as const;
  }).filter((x): x is readonly [string, Payload] => x[1] !== undefined);

  it('has a payload for every handled event type', () => {
    expect(picks.map(([n]) => n)).toEqual(
      expect.arrayContaining([
        'issue_comment',
        'pull_request_review_comment',
        'pull_request',
        'issues',
        'workflow_dispatch',
      ]),
    );
  });

  it.each(picks)('%s: exit 0 with status success or skipped', async (event, payload) => {
    const gh = await fakeFor(payload);
    try {
      feedModel();
      const r = await runAction({
        eventName: event,
        payload,
        job: jobOf(event, payload),
        inputs: inputs(),
        env: { GITHUB_API_URL: gh.url },
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(['success', 'skipped']).toContain(r.outputs.status);
      expect(r.annotations.filter((a) => a.level === 'error')).toEqual([]);
    } finally {
      await gh.close();
    }
  });
});
