/**
 * What a resume does once a reply has passed every guard and claimed the session: which task it
 * prepares (the command the session started with, never a default), the branch and base commit it
 * restores, what it logs, the stats it reports, and what it says when a write or a post fails.
 * Real clones of a bare origin, the real Octokit against the loopback GitHub server, and the
 * in-memory session store (our SessionStore interface, real signing) so a write can be made to fail.
 */
import { describe, expect, it } from 'vitest';
import { createCheckpointer, suspendSession, type AwaitingRun } from '../../src/action/approval/suspend.js';
import type { TaskKind } from '../../src/common/task-kinds.js';
import type { AgentTask } from '../../src/action/run-context.js';
import { createRunState } from '../../src/core/run-state.js';
import type { SessionStore } from '../../src/session/store.js';
import { git, makeTempDir, writeFiles } from '../support/git-repo.js';
import { answerReply, replyFrom, SHELL_CALL, type Runner, type RunnerOptions } from './harness.js';
import { useMemoryWorld } from './memory-world.js';

const T0 = '2026-03-01T12:00:00.000Z';

const world = useMemoryWorld({ now: T0, nonce: 'nonce-1' });
const deps = world.deps;

/** Run 1: the scripted agent edits and asks; the run suspends on the memory store. */
async function suspendFirst(command: string = 'fix', opts: RunnerOptions = {}): Promise<Runner> {
  const first = world.runner(opts);
  const prepared = await first.prepare({ command: command as TaskKind, instructions: 'do it' });
  const run = await prepared.agent.start(prepared.prompt, prepared.emit);
  await suspendSession(first.ctx, { run: run as AwaitingRun, prepared }, deps());
  return first;
}

const lastComment = () => world.gh.state.comments[world.gh.state.comments.length - 1].body;

describe('the resumed task', () => {
  it.each(['review', 'triage', 'question', 'prompt', 'fix'])(
    'a session started by %s resumes as that task, on the commit it started with',
    async (command) => {
      const first = await suspendFirst(command);
      const startCommit = git(first.root, 'rev-parse', 'HEAD');
      const tasks: AgentTask[] = [];
      const second = world.runner({ tasks });
      const result = await answerReply(second, replyFrom(world.gh, '/agent approve'), deps());
      expect(result.status).toBe('success');
      expect(tasks).toEqual([{ command, instructions: 'do it', trustedCommit: startCommit }]);
    },
  );

  it('a session started by a command this action does not know: the run fails, says so, runs nothing', async () => {
    await suspendFirst('deploy');
    const second = world.runner();
    const result = await answerReply(second, replyFrom(world.gh, '/agent approve'), deps());
    const text = 'Session `sess-1` was started by an unknown command `deploy`.';
    expect(result).toEqual({ status: 'failed', summary: text, sessionId: 'sess-1' });
    expect(lastComment()).toBe(
      `${text}\n\nThe session is kept on its ref for inspection; nothing was run.\n\n<!-- agent-action:approval-reply -->`,
    );
    expect(second.resumes).toEqual([]);
  });

  it('when the thread cannot be told why the run failed, the log says so and the run still fails cleanly', async () => {
    await suspendFirst('deploy');
    const second = world.runner();
    const reply = replyFrom(world.gh, '/agent approve');
    world.gh.fail({ method: 'POST', path: /\/issues\/7\/comments$/, status: 500 });
    const result = await answerReply(second, reply, deps());
    expect(result.status).toBe('failed');
    expect(second.logs.find((l) => l.startsWith('could not tell the thread: '))).toMatch(
      /^could not tell the thread: .*injected 500/,
    );
  });
});

describe('restoring the work tree', () => {
  it('checks out the branch the session was on', async () => {
    // The first run works on a branch of its own, which only its clone has.
    const first = world.runner();
    git(first.root, 'checkout', '-q', '-b', 'agent/fix-sum');
    const prepared = await first.prepare({ command: 'fix' });
    await suspendSession(
      first.ctx,
      { run: (await prepared.agent.start(prepared.prompt, prepared.emit)) as AwaitingRun, prepared },
      deps(),
    );
    const second = world.runner();
    expect((await answerReply(second, replyFrom(world.gh, '/agent approve'), deps())).status).toBe('success');
    expect(git(second.root, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('agent/fix-sum');
  });

  it('a runner whose clone predates the base commit fetches it from the remote', async () => {
    const second = world.runner();
    // origin moves on after the second runner cloned; the first run starts from the new commit.
    const pusher = makeTempDir('agent-action-pusher-');
    git(pusher, 'clone', '-q', world.origin, '.');
    writeFiles(pusher, { 'later.txt': 'a later commit\n' });
    git(pusher, 'add', '-A');
    git(pusher, 'commit', '-q', '-m', 'later');
    git(pusher, 'push', '-q', 'origin', 'HEAD:main');
    const first = await suspendFirst();
    const base = git(first.root, 'rev-parse', 'HEAD');
    expect(() => git(second.root, 'cat-file', '-e', `${base}^{commit}`)).toThrow();
    expect((await answerReply(second, replyFrom(world.gh, '/agent approve'), deps())).status).toBe('success');
    expect(git(second.root, 'rev-parse', 'HEAD')).toBe(base);
  });
});

describe('the run after the claim', () => {
  it('logs the answers it resumes with, reports the run stats, and marks the session finished', async () => {
    await suspendFirst();
    const second = world.runner();
    const result = await answerReply(second, replyFrom(world.gh, '/agent deny not now'), deps());
    expect(second.logs).toContain('session sess-1: resuming with call-1=deny');
    // endRun's stats: the resumed RunState's counts (both runs' turns, tokens and cost), this run's time.
    expect(result).toEqual({
      status: 'success',
      summary: 'finished: success',
      sessionId: 'sess-1',
      stats: expect.objectContaining({ turns: 2, totalTokens: 500, costUsd: 0.002 }),
    });
    expect(world.store.doc('sess-1').request).toMatchObject({
      status: 'finished',
      claimedBy: 'maintainer',
      claimedAt: T0,
    });
  });

  it('logs every answer, comma-separated, when several calls wait', async () => {
    const first = world.runner();
    const prepared = await first.prepare({ command: 'fix' });
    const run = await prepared.agent.start(prepared.prompt, prepared.emit);
    const second = { ...SHELL_CALL, id: 'call-2', args: { command: 'npm test' }, title: 'run `npm test`' };
    await suspendSession(
      first.ctx,
      {
        run: { ...run, outcome: { status: 'awaiting_approval', pending: [SHELL_CALL, second] } } as AwaitingRun,
        prepared,
      },
      deps(),
    );
    const after = world.runner();
    await answerReply(after, replyFrom(world.gh, '/agent approve'), deps());
    expect(after.logs).toContain('session sess-1: resuming with call-1=approve, call-2=approve');
  });

  it('a finished session the store will not record is a warning, not a failure', async () => {
    await suspendFirst();
    const refusing: SessionStore = {
      ...world.store,
      update: (id, expected, doc) =>
        doc.request.status === 'finished'
          ? Promise.resolve({ ok: false, reason: 'conflict', message: 'someone else wrote it' })
          : world.store.update(id, expected, doc),
    };
    const second = world.runner();
    const result = await answerReply(second, replyFrom(world.gh, '/agent approve'), deps({ store: refusing }));
    expect(result.status).toBe('success');
    expect(second.logs).toContain('session sess-1: could not mark finished: someone else wrote it');
    expect(world.store.doc('sess-1').request.status).toBe('claimed');
  });

  it('/agent continue on a checkpoint taken with a batch open and no answers recorded resumes with no answers', async () => {
    const first = world.runner();
    const prepared = await first.prepare({ command: 'fix' });
    const state = createRunState('sess-1', 'gemini-test', 'autoEdit');
    state.history.push({ role: 'user', parts: [{ text: 'fix it' }] });
    state.open = { version: 1, calls: [{ status: 'awaiting_approval', id: 'call-1' }] };
    await createCheckpointer(first.ctx, { prepared }, deps()).save(state);
    const after = world.runner();
    const result = await answerReply(after, replyFrom(world.gh, '/agent continue'), deps());
    expect(result.status).toBe('success');
    expect(after.resumes.map((r) => r.answers)).toEqual([[]]);
    expect(after.logs).toContain('session sess-1: resuming with no answers');
  });
});
