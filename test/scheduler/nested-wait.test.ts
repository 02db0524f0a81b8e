/**
 * A call that stops part-way to wait for people (a sub-agent whose own call needs approval), seen
 * from the scheduler: it waits with what it saved, its inner calls show in the batch's pending list
 * with ids of their own, and a resume hands each its answers back under its inner ids.
 */
import { Type } from 'typebox';
import { beforeEach, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import { createDeferChannel } from '../../src/scheduler/channels.js';
import { parseOpenBatch } from '../../src/scheduler/open-batch.js';
import type { ApprovalAnswer, SuspendableCall } from '../../src/scheduler/types.js';
import { defineTool, type PreparedCall, type Tool } from '../../src/tools/define-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { makeTempDir } from '../support/git-repo.js';
import { batchOpts, createTablePolicy, createTestKit, createTestScheduler, type TestKit } from './support.js';

let kit: TestKit;
let root: string;
beforeEach(() => {
  root = makeTempDir('nested-');
  kit = createTestKit();
});

/** A stand-in for a sub-agent: it first waits on two inner calls, then finishes with the answers it got. */
function delegate(resumes: Array<{ saved: unknown; answers: readonly ApprovalAnswer[] }>): Tool {
  return defineTool({
    name: 'delegate',
    kind: 'other',
    description: 'Delegate.',
    params: Type.Object({ task: Type.String() }, { additionalProperties: false }),
    prepare: (args): PreparedCall & SuspendableCall => ({
      title: `delegate ${args.task}`,
      paths: [],
      policyArgs: args,
      run: async () => ({ forModel: 'never used' }),
      runSuspendable: async () => ({
        suspended: {
          pending: [
            { id: 'i1', name: 'note_write', args: {}, title: 'inner write', rule: null },
            {
              id: 'i2',
              name: 'ask_user',
              args: {},
              title: 'inner question',
              rule: null,
              question: { question: 'Which one?' },
            },
          ],
          saved: { step: 1, task: args.task },
        },
      }),
      resumeSuspended: async (_ctx, saved, answers) => {
        resumes.push({ saved, answers });
        return {
          output: { forModel: `finished ${args.task} with ${answers.map((a) => `${a.id}=${a.kind}`).join(',')}` },
        };
      },
    }),
  }) as Tool;
}

function setup() {
  const resumes: Array<{ saved: unknown; answers: readonly ApprovalAnswer[] }> = [];
  const tools = createToolRegistry([...kit.tools, delegate(resumes)]);
  const policy = createTablePolicy({ note_read: 'allow', delegate: 'allow' });
  return { resumes, ...createTestScheduler(kit, root, { policy, channel: createDeferChannel(), tools }) };
}

describe('a call waiting inside', () => {
  it('waits with what it saved; its inner calls are pending under `<call id>/<inner id>`', async () => {
    const { scheduler, emit, events } = setup();
    const r = await scheduler.run([{ id: 'd1', name: 'delegate', args: { task: 'docs' } }], batchOpts(), emit);
    expect(r.pending.map((p) => [p.id, p.title])).toEqual([
      ['d1/i1', 'inner write'],
      ['d1/i2', 'inner question'],
    ]);
    expect(r.open?.calls).toEqual([
      expect.objectContaining({
        status: 'awaiting_approval',
        base: expect.objectContaining({ id: 'd1' }),
        nested: { pending: r.pending, saved: { step: 1, task: 'docs' } },
      }),
    ]);
    expect(events.filter((e) => e.type === 'tool_state').map((e) => (e.type === 'tool_state' ? e.status : ''))).toEqual(
      ['validating', 'prepared', 'scheduled', 'executing', 'awaiting_approval'],
    );
    expect(events.some((e) => e.type === 'tool_result')).toBe(false);
  });

  it('a resume hands the answers back under the inner ids, with what was saved', async () => {
    const first = setup();
    const r = await first.scheduler.run(
      [
        { id: 'd1', name: 'delegate', args: { task: 'docs' } },
        { id: 'r1', name: 'note_read', args: { path: 'missing.txt' } },
      ],
      batchOpts(),
      first.emit,
    );
    const later = setup(); // a new process
    const done = await later.scheduler.resume(
      {
        open: JSON.parse(JSON.stringify(r.open)),
        answers: [
          { id: 'd1/i1', kind: 'approve' },
          { id: 'd1/i2', kind: 'answer', text: 'the first' },
        ],
      },
      batchOpts(),
      later.emit,
    );
    expect(later.resumes).toEqual([
      {
        saved: { step: 1, task: 'docs' },
        answers: [
          { id: 'i1', kind: 'approve' },
          { id: 'i2', kind: 'answer', text: 'the first' },
        ],
      },
    ]);
    expect(done.responses.map((p) => p.functionResponse?.response)).toEqual([
      { output: 'finished docs with i1=approve,i2=answer' },
      { error: 'no note missing.txt' },
    ]);
  });

  it('checks answers against the inner calls before anything runs', async () => {
    const first = setup();
    const r = await first.scheduler.run(
      [{ id: 'd1', name: 'delegate', args: { task: 'docs' } }],
      batchOpts(),
      first.emit,
    );
    const later = setup();
    const err = await later.scheduler
      .resume({ open: r.open!, answers: [{ id: 'd1/i1', kind: 'approve' }] }, batchOpts(), later.emit)
      .catch((e: unknown) => e);
    expect(isAgentError(err) && err.message).toBe(
      'call d1/i2 (inner question) has no answer; every waiting call needs one',
    );
    const wrongKind = await later.scheduler
      .resume(
        {
          open: r.open!,
          answers: [
            { id: 'd1/i1', kind: 'approve' },
            { id: 'd1/i2', kind: 'approve' },
          ],
        },
        batchOpts(),
        later.emit,
      )
      .catch((e: unknown) => e);
    expect(isAgentError(wrongKind) && wrongKind.message).toContain('call d1/i2 asks a question');
    expect(later.resumes).toEqual([]);
  });

  it.each<[string, unknown, RegExp]>([
    ['nothing waits inside', { pending: [], saved: {} }, /call d1 waits inside but lists nothing that waits/],
    [
      'an inner call of another call',
      { pending: [{ id: 'x/i1', name: 'n', args: {}, title: 't', rule: null }], saved: {} },
      /call d1 holds a waiting call that is not its own/,
    ],
    [
      'nothing saved',
      { pending: [{ id: 'd1/i1', name: 'n', args: {}, title: 't', rule: null }] },
      /call d1 waits inside but saved nothing to go on from/,
    ],
  ])('a saved batch is refused when %s', (_, nested, message) => {
    const call = {
      status: 'awaiting_approval',
      base: { id: 'd1', name: 'delegate', args: {}, order: 0 },
      title: 't',
      pending: { id: 'd1', name: 'delegate', args: {}, title: 't', rule: null },
      nested,
    };
    expect(() => parseOpenBatch({ version: 1, calls: [call] })).toThrow(message);
  });
});
