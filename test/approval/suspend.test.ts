/**
 * suspendSession and the checkpointer, field by field: the session document each writes (with an
 * injected clock and nonce, so every value is a literal), the refusals when there is nothing to save
 * to or ask in, and what happens when the store refuses a write. A real clone of a bare origin (the
 * work tree snapshot and the branch come from git), the real Octokit against the loopback GitHub
 * server, and the in-memory store (our SessionStore interface, real signing).
 * suspend-resume.test.ts runs the same path end to end on the git ref store.
 */
import { describe, expect, it } from 'vitest';
import { tryParseApprovalMarker } from '../../src/action/approval/approval-comment.js';
import {
  createCheckpointer,
  postThreadReply,
  sessionKeyOf,
  suspendSession,
  type AwaitingRun,
} from '../../src/action/approval/suspend.js';
import type { RunContext, PreparedRun } from '../../src/action/run-context.js';
import { createRunState, type RunState } from '../../src/core/run-state.js';
import type { PendingApproval } from '../../src/scheduler/types.js';
import { createSessionKey } from '../../src/session/sign.js';
import type { SessionStore } from '../../src/session/store.js';
import { git } from '../support/git-repo.js';
import { SHELL_CALL, type Runner } from './harness.js';
import { useMemoryWorld } from './memory-world.js';

const NOW = '2026-03-01T10:00:00.000Z';
const WRITE_CALL: PendingApproval = {
  id: 'call-2',
  name: 'write_file',
  args: { file_path: 'notes.md', content: 'hello' },
  title: 'write `notes.md`',
  rule: { source: '.gemini/policies/files.toml', line: 9, tier: 'workspace', priority: 2, decision: 'ask_user' },
};

const world = useMemoryWorld({ now: NOW, nonce: 'nonce-0123456789abcdef' });
const deps = world.deps;

function stateOf(turns: number): RunState {
  const state = createRunState('sess-1', 'gemini-test', 'autoEdit');
  state.history.push({ role: 'user', parts: [{ text: 'fix the sum' }] });
  state.turns = turns;
  state.elapsedMsBefore = 4200;
  return state;
}

const awaiting = (pending: PendingApproval[], turns = 1): AwaitingRun => ({
  outcome: { status: 'awaiting_approval', pending },
  state: stateOf(turns),
});

async function prepare(runner: Runner, over: Partial<PreparedRun> = {}): Promise<PreparedRun> {
  return { ...(await runner.prepare({ command: 'fix', instructions: 'fix the sum' })), ...over };
}

const question = () => world.gh.state.comments.find((c) => tryParseApprovalMarker(c.body))!;

describe('suspendSession', () => {
  it('writes the session with the injected clock and nonce, then records the question comment on it', async () => {
    const runner = world.runner();
    const trustedCommit = git(world.origin, 'rev-parse', 'main');
    const result = await suspendSession(
      runner.ctx,
      { run: awaiting([SHELL_CALL]), prepared: await prepare(runner) },
      deps(),
    );
    const q = question();
    const url = `https://github.test/octo/hello/issues/7#issuecomment-${q.id}`;
    expect(result).toEqual({
      status: 'awaiting_approval',
      summary: `1 call waits for a maintainer's answer: ${url}`,
      sessionId: 'sess-1',
      stats: expect.objectContaining({ turns: 1, durationMs: 4200 }),
    });
    const doc = world.store.doc('sess-1');
    expect(doc.request).toEqual({
      nonce: 'nonce-0123456789abcdef',
      createdAt: NOW,
      expiresAt: '2026-03-08T10:00:00.000Z',
      status: 'open',
      commentId: q.id,
    });
    expect(doc.updatedAt).toBe(NOW);
    expect(doc.thread).toEqual({ number: 7, kind: 'issue' });
    expect(doc.repository).toEqual({ owner: 'octo', repo: 'hello' });
    expect(doc.trigger).toEqual({ command: 'fix', instructions: 'fix the sum' });
    expect(doc.requester).toBe('maintainer');
    expect(doc.branch).toBe('main');
    expect(doc.trustedCommit).toBe(trustedCommit);
    expect(doc.pending).toEqual([SHELL_CALL]);
    expect(tryParseApprovalMarker(q.body)).toMatchObject({ session: 'sess-1', nonce: 'nonce-0123456789abcdef' });
    // The first write created the session (v1), the second recorded the comment id (v2).
    expect((await world.store.read('sess-1'))?.version).toBe('v2');
    expect(runner.logs).toContain(`session sess-1 saved (v2); question posted: ${url}`);
    expect(runner.progress).toEqual([{ result, extra: `Waiting for approval: [the question](${url}).` }]);
  });

  it('counts several waiting calls in the plural', async () => {
    const runner = world.runner();
    const result = await suspendSession(
      runner.ctx,
      { run: awaiting([SHELL_CALL, WRITE_CALL]), prepared: await prepare(runner) },
      deps(),
    );
    expect(result.summary).toBe(
      `2 calls wait for a maintainer's answer: https://github.test/octo/hello/issues/7#issuecomment-${question().id}`,
    );
    expect(world.store.doc('sess-1').pending).toEqual([SHELL_CALL, WRITE_CALL]);
  });

  it('keeps the id of the comment that triggered the run, and the pull request kind of the thread', async () => {
    const runner = world.runner();
    const thread = { number: 7, isPullRequest: true };
    const ctx: RunContext = {
      ...runner.ctx,
      thread,
      trigger: {
        ...runner.ctx.trigger,
        thread,
        comment: { id: 4242, kind: 'issue', body: '/agent fix the sum', createdAt: NOW },
      },
    };
    await suspendSession(ctx, { run: awaiting([SHELL_CALL]), prepared: await prepare(runner) }, deps());
    const doc = world.store.doc('sess-1');
    expect(doc.trigger).toEqual({ command: 'fix', instructions: 'fix the sum', commentId: 4242 });
    expect(doc.thread).toEqual({ number: 7, kind: 'pull_request' });
  });

  it('a task without instructions saves none', async () => {
    const runner = world.runner();
    const prepared = await runner.prepare({ command: 'review' });
    await suspendSession(runner.ctx, { run: awaiting([SHELL_CALL]), prepared }, deps());
    expect(world.store.doc('sess-1').trigger).toEqual({ command: 'review' });
  });

  it('on a detached HEAD no branch is saved (a resume must not check out a branch named HEAD)', async () => {
    const runner = world.runner();
    git(runner.root, 'checkout', '-q', '--detach');
    await suspendSession(runner.ctx, { run: awaiting([SHELL_CALL]), prepared: await prepare(runner) }, deps());
    const doc = world.store.doc('sess-1');
    expect(doc.branch).toBeUndefined();
    expect('branch' in doc).toBe(false);
  });

  it('with no issue or pull request to ask in: refused before anything is saved or posted', async () => {
    const runner = world.runner();
    const ctx: RunContext = { ...runner.ctx, thread: undefined };
    await expect(
      suspendSession(ctx, { run: awaiting([SHELL_CALL]), prepared: await prepare(runner) }, deps()),
    ).rejects.toMatchObject({
      name: 'AgentError',
      kind: 'general',
      message: 'this run has no issue or pull request to ask in, so it cannot wait for approval',
    });
    expect(await world.store.list()).toEqual([]);
    expect(world.gh.state.comments).toEqual([]);
  });

  it('with no trusted commit: refused before anything is saved or posted', async () => {
    const runner = world.runner();
    await expect(
      suspendSession(
        runner.ctx,
        { run: awaiting([SHELL_CALL]), prepared: await prepare(runner, { trustedCommit: undefined }) },
        deps(),
      ),
    ).rejects.toMatchObject({
      name: 'AgentError',
      kind: 'general',
      message: 'this run read no trusted configuration from a commit, so it cannot be saved to resume',
    });
    expect(await world.store.list()).toEqual([]);
    expect(world.gh.state.comments).toEqual([]);
  });

  it('a session that exists already (another run created it) is not overwritten, and no question is posted', async () => {
    const runner = world.runner();
    const prepared = await prepare(runner);
    await createCheckpointer(runner.ctx, { prepared }, deps()).save(stateOf(1));
    await expect(suspendSession(runner.ctx, { run: awaiting([SHELL_CALL]), prepared }, deps())).rejects.toMatchObject({
      name: 'AgentError',
      kind: 'general',
      message: 'could not save session sess-1: session sess-1 changed since it was read',
    });
    expect(world.store.doc('sess-1').request.status).toBe('claimed');
    expect(world.gh.state.comments).toEqual([]);
  });

  it('a session changed while its question was posted: the run fails and says so', async () => {
    const runner = world.runner();
    // The store as another run sees it: it writes the session right after our question is posted.
    const racing: SessionStore = {
      ...world.store,
      async update(id, expected, doc) {
        await world.store.update(id, expected, { ...doc, updatedAt: '2026-03-01T10:00:01.000Z' });
        return world.store.update(id, expected, doc);
      },
    };
    await expect(
      suspendSession(
        runner.ctx,
        { run: awaiting([SHELL_CALL]), prepared: await prepare(runner) },
        deps({ store: racing }),
      ),
    ).rejects.toMatchObject({
      name: 'AgentError',
      kind: 'general',
      message: 'session sess-1 changed while its question was posted: session sess-1 changed since it was read',
    });
    expect(runner.progress).toEqual([]);
  });

  it('the default store is the git ref store keyed by the session key, and the default nonce is 32 fresh hex digits', async () => {
    const runner = world.runner();
    await suspendSession(runner.ctx, { run: awaiting([SHELL_CALL]), prepared: await prepare(runner) });
    // The log names the saved version by the first 12 hex digits of its commit.
    expect(
      runner.logs.filter((l) =>
        /^session sess-1 saved \([0-9a-f]{12}\); question posted: https:\/\/github\.test\//.test(l),
      ),
    ).toHaveLength(1);
    const ref = git(world.origin, 'cat-file', '-p', 'refs/agent-action/sessions/sess-1');
    expect(ref).toMatch(/agent-action session sess-1: request open/);
    const marker = tryParseApprovalMarker(question().body)!;
    expect(marker.nonce).toMatch(/^[0-9a-f]{32}$/);
    const again = world.runner();
    await suspendSession(
      { ...again.ctx, thread: { number: 7, isPullRequest: false } },
      { run: { ...awaiting([SHELL_CALL]), state: { ...stateOf(1), id: 'sess-2' } }, prepared: await prepare(again) },
    );
    const nonces = world.gh.state.comments.flatMap((c) => tryParseApprovalMarker(c.body)?.nonce ?? []);
    expect(new Set(nonces).size).toBe(2);
  });
});

describe('createCheckpointer', () => {
  it('saves a claimed session with no question: claimedBy the requester, claimedAt the clock, the placeholder nonce', async () => {
    const runner = world.runner();
    const checkpoint = createCheckpointer(runner.ctx, { prepared: await prepare(runner) }, deps());
    expect(checkpoint.held()).toBeUndefined();
    await checkpoint.save(stateOf(3));
    const doc = world.store.doc('sess-1');
    expect(doc.request).toEqual({
      nonce: 'checkpoint',
      createdAt: NOW,
      expiresAt: '2026-03-08T10:00:00.000Z',
      status: 'claimed',
      claimedBy: 'maintainer',
      claimedAt: NOW,
    });
    expect(doc.pending).toEqual([]);
    expect(doc.state.turns).toBe(3);
    expect(checkpoint.held()).toEqual({ doc, version: 'v1' });
    expect(world.gh.state.comments).toEqual([]);
  });

  it('later saves update the same session from the version it holds; a suspension after them replaces it with the question', async () => {
    const runner = world.runner();
    const prepared = await prepare(runner);
    let clock = NOW;
    const checkpoint = createCheckpointer(runner.ctx, { prepared }, deps({ now: () => new Date(clock) }));
    await checkpoint.save(stateOf(3));
    clock = '2026-03-01T11:00:00.000Z';
    await checkpoint.save(stateOf(4));
    expect(checkpoint.held()?.version).toBe('v2');
    expect(world.store.doc('sess-1').request).toMatchObject({
      status: 'claimed',
      claimedAt: '2026-03-01T11:00:00.000Z',
      nonce: 'checkpoint',
    });
    expect(world.store.doc('sess-1').state.turns).toBe(4);

    clock = '2026-03-01T12:00:00.000Z';
    await suspendSession(
      runner.ctx,
      { run: awaiting([SHELL_CALL], 5), prepared, held: checkpoint.held() },
      deps({ now: () => new Date(clock) }),
    );
    const doc = world.store.doc('sess-1');
    expect(doc.request).toEqual({
      nonce: 'nonce-0123456789abcdef',
      createdAt: clock,
      expiresAt: '2026-03-08T12:00:00.000Z',
      status: 'open',
      commentId: question().id,
    });
    expect(doc.state.turns).toBe(5);
  });

  it('a checkpoint after a resume keeps the nonce, trigger, requester, thread, branch and trusted commit of the held session', async () => {
    const first = world.runner();
    await suspendSession(first.ctx, { run: awaiting([SHELL_CALL]), prepared: await prepare(first) }, deps());
    const stored = (await world.store.read('sess-1'))!;
    if (!stored.parsed.ok) throw new Error('unreadable');
    const held = { doc: stored.parsed.doc, version: stored.version };
    // The resumed run: another requester, another thread, a detached HEAD, another commit.
    const second = world.runner({ requester: 'keeper', threadNumber: 9 });
    git(second.root, 'checkout', '-q', '--detach');
    const checkpoint = createCheckpointer(
      second.ctx,
      { prepared: await prepare(second, { trustedCommit: 'f'.repeat(40) }), held },
      deps(),
    );
    await checkpoint.save(stateOf(2));
    const doc = world.store.doc('sess-1');
    expect(doc.request).toMatchObject({ nonce: 'nonce-0123456789abcdef', status: 'claimed', claimedBy: 'keeper' });
    expect(doc.trigger).toEqual(held.doc.trigger);
    expect(doc.requester).toBe('maintainer');
    expect(doc.thread).toEqual({ number: 7, kind: 'issue' });
    expect(doc.branch).toBe('main');
    expect(doc.trustedCommit).toBe(held.doc.trustedCommit);
  });

  it('a checkpoint the store refuses fails the run with the reason', async () => {
    const runner = world.runner();
    const prepared = await prepare(runner);
    await createCheckpointer(runner.ctx, { prepared }, deps()).save(stateOf(1));
    await expect(createCheckpointer(runner.ctx, { prepared }, deps()).save(stateOf(2))).rejects.toMatchObject({
      name: 'AgentError',
      kind: 'general',
      message: 'could not save a checkpoint of session sess-1: session sess-1 changed since it was read',
    });
  });
});

describe('postThreadReply', () => {
  it('posts the text with the reply marker in the thread and returns the comment id', async () => {
    const runner = world.runner();
    const id = await postThreadReply(runner.ctx, 'Approved by @maintainer.');
    expect(world.gh.state.comments).toHaveLength(1);
    expect(world.gh.state.comments[0]).toMatchObject({
      id,
      issue_number: 7,
      body: 'Approved by @maintainer.\n\n<!-- agent-action:approval-reply -->',
    });
  });

  it('with no thread posts nothing', async () => {
    const runner = world.runner();
    expect(await postThreadReply({ ...runner.ctx, thread: undefined }, 'nobody reads this')).toBeUndefined();
    expect(world.gh.requests).toHaveLength(0);
  });
});

describe('sessionKeyOf', () => {
  it('is the session-key input when set, else the Gemini API key (an empty input counts as unset)', () => {
    expect(sessionKeyOf({ sessionKey: 'the-session-key', geminiApiKey: 'AIza-other' }).id).toBe(
      createSessionKey('the-session-key').id,
    );
    expect(sessionKeyOf({ sessionKey: '', geminiApiKey: 'AIza-other' }).id).toBe(createSessionKey('AIza-other').id);
    expect(sessionKeyOf({ sessionKey: undefined, geminiApiKey: 'AIza-other' }).id).toBe(
      createSessionKey('AIza-other').id,
    );
  });
});
