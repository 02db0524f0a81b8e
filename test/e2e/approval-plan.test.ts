/**
 * The model's plan (write_todos) across a suspension, end to end through the bundled dist/index.js:
 * a `/agent fix` writes a plan, then meets an ask rule and suspends; the run that `/agent approve`,
 * `/agent deny why` or `/agent continue` starts on a new runner must show the plan from before in its
 * progress comment from its first body on, take a later write_todos, and keep the last list in the
 * final comment. The comment's pacing is off (AGENT_ACTION_PROGRESS_SECONDS=0) so every edit lands.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, fault, reply, text } from '../support/fake-gemini.js';
import { runAction } from '../support/e2e-runner.js';
import { makeTempDir } from '../support/git-repo.js';
import {
  ALLOW_PREP,
  API_KEY,
  ISSUE,
  assertBundle,
  bundlePath,
  commentPayload,
  logOf,
  openThread,
  readSessionDoc,
  runFix,
  runReply,
  type Thread,
} from './approval-support.js';

let t: Thread | undefined;
beforeAll(() => {
  assertBundle();
  // Every run of the file (the helpers pass this process's environment on): every edit lands.
  vi.stubEnv('AGENT_ACTION_PROGRESS_SECONDS', '0');
});
afterAll(() => vi.unstubAllEnvs());
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const plan = (...statuses: string[]) => ({
  todos: ['Find the bug', 'Fix add', 'Check the test'].map((description, i) => ({ description, status: statuses[i] })),
});
const shell = (command: string) => call('run_shell_command', { command, description: 'check the work tree' });
const ASKED = 'node scripts/fingerprint.js';

const BEFORE_LIST = '- [x] Find the bug\n- [ ] → **Fix add**\n- [ ] Check the test';
const AFTER_LIST = '- [x] Find the bug\n- [x] Fix add\n- [ ] → **Check the test**';

/**
 * Each progress body the fake GitHub received after `from` requests, from the first the run wrote
 * after reading its session: the "starting" post before the session is read (and trusted) is left out.
 */
function progressBodiesSince(th: Thread, from: number): string[] {
  return th.gh.requests
    .slice(from)
    .filter(
      (r) =>
        (r.method === 'POST' && /\/issues\/\d+\/comments$/.test(r.path)) ||
        (r.method === 'PATCH' && /\/issues\/comments\/\d+$/.test(r.path)),
    )
    .map((r) => (r.body as { body?: string }).body ?? '')
    .filter((b) => b.includes('<!-- agent-action:progress'))
    .filter((b, i) => i > 0 || !b.includes('Current step: starting'));
}

/** The progress comment as it stands now: the last one agent-action posted in the thread. */
const lastProgress = (th: Thread) =>
  th.gh.state.comments.filter((c) => c.body.includes('<!-- agent-action:progress')).at(-1)!.body;

/** Run 1: a plan, then a command the shipped rules ask about; the run suspends with the plan saved. */
async function suspendWithPlan(th: Thread) {
  const first = await runFix(th);
  expect(first.code, logOf(first)).toBe(0);
  expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
  const id = first.outputs['session-id'];
  expect(readSessionDoc(th.ws.origin, id).state.todos).toEqual(plan('completed', 'in_progress', 'pending').todos);
  expect(lastProgress(th)).toContain(BEFORE_LIST);
  return id;
}

describe('the bundled action: the plan across a suspension', () => {
  it('approve: the resumed run shows the plan from its first body, updates it, and keeps the last list', async () => {
    t = await openThread([
      reply([text('A plan first. '), call('write_todos', plan('completed', 'in_progress', 'pending'))]),
      reply([shell(ASKED)]),
      // Run 2 (approved): a first edit with the old plan, then a new list, then done.
      reply([call('replace', { file_path: 'src/math.js', old_string: 'a - b', new_string: 'a + b' })]),
      reply([call('write_todos', plan('completed', 'completed', 'in_progress'))]),
      reply([text('Fixed add.')]),
    ]);
    await suspendWithPlan(t);
    const mark = t.gh.requests.length;

    const second = await runReply(t, '/agent approve');
    expect(second.code, logOf(second)).toBe(0);
    expect(second.outputs.status, logOf(second)).toBe('success');

    const bodies = progressBodiesSince(t, mark);
    expect(bodies.length).toBeGreaterThan(1);
    // The resumed run's first body after the session is read has the plan from before the suspension.
    expect(bodies[0]).toContain('**Plan** (1 of 3 done)');
    expect(bodies[0]).toContain(BEFORE_LIST);
    const updated = bodies.findIndex((b) => b.includes(AFTER_LIST));
    expect(updated).toBeGreaterThan(0);
    expect(bodies[updated]).toContain('**Plan** (2 of 3 done)');
    const final = lastProgress(t);
    expect(final).toContain('agent-action approve: done');
    expect(final).toContain(`**Plan** (2 of 3 done)\n\n${AFTER_LIST}`);
    expect(second.summary).toContain(AFTER_LIST);
  });

  it('deny with a reason: the run that tells the model keeps the plan from before to the end', async () => {
    t = await openThread([
      reply([call('write_todos', plan('completed', 'in_progress', 'pending'))]),
      reply([shell(ASKED)]),
      reply([text('Understood, I will not run scripts.')]),
    ]);
    await suspendWithPlan(t);
    const mark = t.gh.requests.length;

    const second = await runReply(t, '/agent deny we never run repository scripts in CI');
    expect(second.outputs.status, logOf(second)).toBe('success');
    const bodies = progressBodiesSince(t, mark);
    expect(bodies.length).toBeGreaterThan(0);
    for (const b of bodies) expect(b).toContain(BEFORE_LIST);
    expect(lastProgress(t)).toContain(`**Plan** (1 of 3 done)\n\n${BEFORE_LIST}`);
    expect(second.summary).toContain(BEFORE_LIST);
  });

  it('continue after a killed run: the plan from the checkpoint is shown, updated and kept', async () => {
    t = await openThread([
      reply([
        call('write_todos', plan('completed', 'in_progress', 'pending')),
        call('run_shell_command', { command: 'node scripts/prep.js', description: 'prepare assets' }),
      ]),
      fault.hang(),
      reply([call('write_todos', plan('completed', 'completed', 'in_progress'))]),
      reply([text('Done after the interruption.')]),
    ]);
    const trigger = t.gh.addComment(ISSUE, '/agent fix', { login: 'maintainer' });
    const death = new AbortController();
    void t.gemini.untilRequests(2).then(() => death.abort());
    const first = await runAction({
      eventName: 'issue_comment',
      payload: commentPayload(trigger),
      job: t.job,
      bundle: bundlePath(),
      inputs: { 'gemini-api-key': API_KEY, 'gemini-base-url': t.gemini.baseUrl, policy: ALLOW_PREP },
      env: {
        GITHUB_API_URL: t.gh.url,
        AGENT_ACTION_CHECKPOINT_SECONDS: '0',
        TMPDIR: makeTempDir('agent-action-killed-tmp-'),
      },
      kill: death.signal,
    });
    expect(first.code, logOf(first)).toBeNull();
    const mark = t.gh.requests.length;

    const second = await runReply(t, '/agent continue');
    expect(second.outputs.status, logOf(second)).toBe('success');
    const bodies = progressBodiesSince(t, mark);
    expect(bodies[0]).toContain(BEFORE_LIST);
    expect(bodies.findIndex((b) => b.includes(AFTER_LIST))).toBeGreaterThan(0);
    expect(lastProgress(t)).toContain(`**Plan** (2 of 3 done)\n\n${AFTER_LIST}`);
  });
});
