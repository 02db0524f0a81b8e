import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/common/errors.js';
import {
  createAllowChannel,
  createDenyChannel,
  createDeferChannel,
  NOBODY_TO_ANSWER,
  NOBODY_TO_ASK,
} from '../../src/scheduler/channels.js';
import { createScheduler, toolSourceFrom, TRUNCATED_REFUSAL } from '../../src/scheduler/scheduler.js';
import { readFileTool } from '../../src/tools/builtin/read-file.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { replaceTool } from '../../src/tools/builtin/replace.js';
import { writeFileTool } from '../../src/tools/builtin/write-file.js';
import type { BatchResult } from '../../src/scheduler/types.js';
import { makeTempDir, writeFiles } from '../support/git-repo.js';
import {
  batchOpts,
  envFor,
  createBarrier,
  createScriptedChannel,
  createTablePolicy,
  createTestKit,
  createTestScheduler,
  type TestKit,
} from './support.js';

const allowAll = () =>
  createTablePolicy({ note_read: 'allow', note_write: 'allow', ask_user: 'allow', break_run: 'allow' });
const read = (path: string, extra: Record<string, unknown> = {}, id?: string) => ({
  ...(id ? { id } : {}),
  name: 'note_read',
  args: { path, ...extra },
});
const write = (path: string, content: string, id?: string) => ({
  ...(id ? { id } : {}),
  name: 'note_write',
  args: { path, content },
});
const outputs = (r: BatchResult) => r.responses.map((p) => p.functionResponse!.response);

let root: string;
let kit: TestKit;
beforeEach(() => {
  root = makeTempDir('sched-');
  writeFiles(root, { 'a.txt': 'alpha', 'b.txt': 'beta', 'c.txt': 'gamma', 'd.txt': 'delta' });
  kit = createTestKit();
});

describe('batching', () => {
  it('runs consecutive reads at the same time (each waits for the other to have started)', async () => {
    kit.barriers.set('pair', createBarrier(2));
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: createDenyChannel() });
    const r = await scheduler.run(
      [read('a.txt', { barrier: 'pair' }), read('b.txt', { barrier: 'pair' })],
      batchOpts(),
      emit,
    );
    expect(outputs(r)).toEqual([{ output: 'alpha' }, { output: 'beta' }]);
    // Both started before either ended: they overlapped.
    expect(kit.log.slice(0, 2).sort()).toEqual(['start:a.txt', 'start:b.txt']);
  });

  it('caps parallel reads at maxParallel: with 1, the pair can never meet', async () => {
    kit.barriers.set('pair', createBarrier(2, 300));
    const { scheduler, emit } = createTestScheduler(kit, root, {
      policy: allowAll(),
      channel: createDenyChannel(),
      maxParallel: 1,
    });
    const r = await scheduler.run(
      [read('a.txt', { barrier: 'pair' }), read('b.txt', { barrier: 'pair' })],
      batchOpts(),
      emit,
    );
    expect(outputs(r)[0]).toEqual({ error: expect.stringContaining('only 1 of 2 calls ever started') });
    expect(kit.log).toEqual(['start:a.txt', 'start:b.txt', 'end:b.txt']);
  });

  it('runs edits alone and in order, and reads after an edit only once it ended', async () => {
    kit.barriers.set('pair', createBarrier(2));
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: createDenyChannel() });
    const r = await scheduler.run(
      [
        read('a.txt', { barrier: 'pair' }),
        read('b.txt', { barrier: 'pair' }),
        write('x.txt', 'one'),
        write('y.txt', 'two'),
        read('x.txt'),
        write('x.txt', 'three'),
      ],
      batchOpts(),
      emit,
    );
    expect(kit.log.slice(4)).toEqual([
      'start:x.txt',
      'end:x.txt',
      'start:y.txt',
      'end:y.txt',
      'start:x.txt',
      'end:x.txt',
      'start:x.txt',
      'end:x.txt',
    ]);
    // The read of x.txt saw the first write, not the last: order was kept.
    expect(outputs(r)).toEqual([
      { output: 'alpha' },
      { output: 'beta' },
      { output: 'wrote x.txt' },
      { output: 'wrote y.txt' },
      { output: 'one' },
      { output: 'wrote x.txt' },
    ]);
    expect(readFileSync(join(root, 'x.txt'), 'utf8')).toBe('three');
  });

  it("returns results in the model's order even when a later call finishes first", async () => {
    kit.gates.set('slow', kit.ended('fast'));
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: createDenyChannel() });
    const r = await scheduler.run(
      [read('a.txt', { label: 'slow' }, 'id-1'), read('b.txt', { label: 'fast' }, 'id-2')],
      batchOpts(),
      emit,
    );
    expect(kit.log.indexOf('end:fast')).toBeLessThan(kit.log.indexOf('end:slow'));
    expect(r.responses.map((p) => [p.functionResponse!.id, p.functionResponse!.response])).toEqual([
      ['id-1', { output: 'alpha' }],
      ['id-2', { output: 'beta' }],
    ]);
  });
});

describe('validation', () => {
  it('answers an unknown tool with a did-you-mean, and bad arguments naming the field', async () => {
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: createDenyChannel() });
    const r = await scheduler.run(
      [
        { name: 'note_raed', args: { path: 'a.txt' } },
        { name: 'note_write', args: { path: 'a.txt' } },
        read('../etc/passwd'),
      ],
      batchOpts(),
      emit,
    );
    expect(outputs(r)).toEqual([
      { error: expect.stringMatching(/unknown tool note_raed.*did you mean note_read/) },
      { error: expect.stringContaining("missing required field 'content'") },
      { error: expect.stringContaining('outside the workspace') },
    ]);
    expect(kit.log).toEqual([]);
  });

  it('adds a stop-retrying line the third time in a row the same validation error comes back', async () => {
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: createDenyChannel() });
    const bad = { name: 'note_write', args: { path: 'a.txt' } };
    const texts: string[] = [];
    for (let i = 0; i < 4; i++) texts.push(String(outputs(await scheduler.run([bad], batchOpts(), emit))[0].error));
    expect(texts.map((t) => t.includes('Stop retrying'))).toEqual([false, false, true, true]);
    expect(texts[2]).toContain('3 times in a row');
    // A call that validates breaks the streak.
    await scheduler.run([read('a.txt')], batchOpts(), emit);
    expect(String(outputs(await scheduler.run([bad], batchOpts(), emit))[0].error)).not.toContain('Stop retrying');
  });
});

describe('policy and approvals', () => {
  it('denies without running, with the rule deny message', async () => {
    const policy = createTablePolicy({ note_read: 'allow', note_write: 'deny' }, 'deny', {
      note_write: 'Edits are not allowed in review runs.',
    });
    const { scheduler, emit } = createTestScheduler(kit, root, { policy, channel: createAllowChannel() });
    const r = await scheduler.run([write('a.txt', 'changed'), read('a.txt')], batchOpts(), emit);
    expect(outputs(r)).toEqual([
      { error: expect.stringContaining('Edits are not allowed in review runs.') },
      { output: 'alpha' },
    ]);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha');
    // Policy saw the prepared call's policy arguments.
    expect(policy.queries[0]).toEqual({ toolName: 'note_write', args: { path: 'a.txt', content: 'changed' } });
  });

  it('ask_user with the deny channel: refused, and the model is told nobody could be asked', async () => {
    const policy = createTablePolicy({ note_write: 'ask_user' });
    const { scheduler, emit } = createTestScheduler(kit, root, { policy, channel: createDenyChannel() });
    const r = await scheduler.run([write('a.txt', 'changed')], batchOpts(), emit);
    expect(String(outputs(r)[0].error)).toContain(NOBODY_TO_ASK);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha');
  });

  it('ask_user with the allow channel runs the call; "always" adds a rule', async () => {
    const policy = createTablePolicy({ note_write: 'ask_user' });
    const { scheduler, emit } = createTestScheduler(kit, root, { policy, channel: createAllowChannel() });
    expect(outputs(await scheduler.run([write('a.txt', 'changed')], batchOpts(), emit))).toEqual([
      { output: 'wrote a.txt' },
    ]);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('changed');
    expect(policy.added).toEqual([]);

    const always = createScriptedChannel((p) => ({ id: p.id, kind: 'approve', always: true }));
    const s2 = createTestScheduler(kit, root, { policy, channel: always.channel });
    await s2.scheduler.run([write('b.txt', '1')], batchOpts(), s2.emit);
    await s2.scheduler.run([write('b.txt', '2')], batchOpts(), s2.emit);
    expect(policy.added).toEqual([{ toolName: 'note_write', modes: ['default'] }]);
    expect(always.asked).toHaveLength(1); // the second write was allowed by the added rule
  });

  it('sends the approval request with the title, preview and rule', async () => {
    const policy = createTablePolicy({ note_write: 'ask_user' });
    const ch = createScriptedChannel((p) => ({ id: p.id, kind: 'deny', reason: 'not today' }));
    const { scheduler, emit } = createTestScheduler(kit, root, { policy, channel: ch.channel });
    const r = await scheduler.run([write('a.txt', 'changed', 'w1')], batchOpts(), emit);
    expect(ch.asked).toEqual([
      {
        id: 'w1',
        name: 'note_write',
        args: { path: 'a.txt', content: 'changed' },
        title: 'overwrite a.txt',
        preview: '--- a.txt\n-alpha\n+changed\n',
        rule: expect.objectContaining({ decision: 'ask_user', source: 'test-table' }),
      },
    ]);
    expect(outputs(r)).toEqual([{ error: 'note_write was not run: it was denied. Reason: not today' }]);
  });

  it('sends a question to the channel even when policy allows it; the answer is the result', async () => {
    const ch = createScriptedChannel((p) => ({ id: p.id, kind: 'answer', text: 'Use port 8080.' }));
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: ch.channel });
    const r = await scheduler.run([{ name: 'ask_user', args: { question: 'Which port?' } }], batchOpts(), emit);
    expect(ch.asked[0]).toMatchObject({ question: { question: 'Which port?' }, rule: null });
    expect(outputs(r)).toEqual([{ output: 'Use port 8080.' }]);
  });

  it('a question nobody can answer is refused with a note to assume', async () => {
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: createAllowChannel() });
    const r = await scheduler.run([{ name: 'ask_user', args: { question: 'Which port?' } }], batchOpts(), emit);
    expect(outputs(r)).toEqual([{ error: `No answer to your question: ${NOBODY_TO_ANSWER}` }]);
  });

  it('fails closed when the policy engine throws', async () => {
    const policy = {
      ...allowAll(),
      decide: () => {
        throw new Error('regex exploded');
      },
    };
    const { scheduler, emit } = createTestScheduler(kit, root, { policy, channel: createAllowChannel() });
    const r = await scheduler.run([write('a.txt', 'x')], batchOpts(), emit);
    expect(String(outputs(r)[0].error)).toContain('regex exploded');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha');
  });
});

describe('deferred calls', () => {
  it('runs the allowed calls to the end and returns the open batch as plain JSON', async () => {
    const policy = createTablePolicy({ note_read: 'allow', note_write: 'ask_user' });
    const { scheduler, emit, events } = createTestScheduler(kit, root, { policy, channel: createDeferChannel() });
    const r = await scheduler.run(
      [read('a.txt', {}, 'r1'), write('b.txt', 'new', 'w1'), read('c.txt', {}, 'r2')],
      batchOpts(),
      emit,
    );
    expect(r.responses).toEqual([]);
    expect(r.pending).toEqual([
      expect.objectContaining({ id: 'w1', title: 'overwrite b.txt', preview: '--- b.txt\n-beta\n+new\n' }),
    ]);
    expect(kit.log).toEqual(['start:a.txt', 'end:a.txt', 'start:c.txt', 'end:c.txt']);
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('beta');
    const open = r.open!;
    expect(JSON.parse(JSON.stringify(open))).toEqual(open);
    expect((open.calls as { status: string }[]).map((c) => c.status)).toEqual([
      'succeeded',
      'awaiting_approval',
      'succeeded',
    ]);
    expect(events.filter((e) => e.type === 'tool_result').map((e) => e.id)).toEqual(['r1', 'r2']);
  });

  it('resume rejects a missing answer, an unknown id and a wrong kind before running anything', async () => {
    const policy = createTablePolicy({ note_write: 'ask_user', ask_user: 'allow' });
    const { scheduler, emit } = createTestScheduler(kit, root, { policy, channel: createDeferChannel() });
    const r = await scheduler.run(
      [write('b.txt', 'new', 'w1'), { id: 'q1', name: 'ask_user', args: { question: 'Why?' } }],
      batchOpts(),
      emit,
    );
    const cases = [
      [[{ id: 'w1', kind: 'approve' }], /q1.*has no answer/],
      [
        [
          { id: 'w1', kind: 'approve' },
          { id: 'q1', kind: 'answer', text: 'x' },
          { id: 'zz', kind: 'approve' },
        ],
        /no call zz waits/,
      ],
      [
        [
          { id: 'w1', kind: 'answer', text: 'yes' },
          { id: 'q1', kind: 'answer', text: 'x' },
        ],
        /asks for approval, not an answer/,
      ],
      [
        [
          { id: 'w1', kind: 'approve' },
          { id: 'q1', kind: 'approve' },
        ],
        /asks a question/,
      ],
    ] as const;
    for (const [answers, message] of cases) {
      const err = await scheduler
        .resume({ open: r.open!, answers: answers as never }, batchOpts(), emit)
        .catch((e: unknown) => e);
      expect(isAgentError(err) && err.kind).toBe('input');
      expect(String((err as Error).message)).toMatch(message);
    }
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('beta');
  });

  it('an approved call whose file changed meanwhile fails instead of running a different change', async () => {
    const policy = createTablePolicy({ note_write: 'ask_user', note_read: 'ask_user' });
    const { scheduler, emit } = createTestScheduler(kit, root, { policy, channel: createDeferChannel() });
    const r = await scheduler.run([write('b.txt', 'new', 'w1'), read('c.txt', {}, 'r1')], batchOpts(), emit);
    writeFileSync(join(root, 'b.txt'), 'edited by someone else');
    rmSync(join(root, 'c.txt'));
    const done = await scheduler.resume(
      {
        open: r.open!,
        answers: [
          { id: 'w1', kind: 'approve' },
          { id: 'r1', kind: 'approve' },
        ],
      },
      batchOpts(),
      emit,
    );
    expect(outputs(done)).toEqual([
      { error: expect.stringContaining('has changed since it was asked') },
      { error: expect.stringMatching(/can no longer be prepared.*no note c\.txt/) },
    ]);
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('edited by someone else');
  });
});

describe('refusals, budget, fatal, cancel, events', () => {
  it('refuses edit and execute calls of a truncated turn, and still runs its reads', async () => {
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: createAllowChannel() });
    const r = await scheduler.run(
      [write('a.txt', 'half'), read('b.txt'), { name: 'break_run', args: {} }],
      batchOpts({ truncated: true }),
      emit,
    );
    expect(outputs(r)).toEqual([{ error: TRUNCATED_REFUSAL }, { output: 'beta' }, { error: TRUNCATED_REFUSAL }]);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha');
  });

  it('cuts the largest outputs first to fit the batch budget, with a note', async () => {
    writeFiles(root, { 'big.txt': 'B'.repeat(5000), 'mid.txt': 'M'.repeat(3000) });
    const { scheduler, emit, events } = createTestScheduler(kit, root, {
      policy: allowAll(),
      channel: createAllowChannel(),
      outputBudgetChars: 4000,
    });
    const r = await scheduler.run([read('a.txt'), read('big.txt'), read('mid.txt')], batchOpts(), emit);
    const [small, big, mid] = outputs(r).map((o) => String(o.output));
    expect(small).toBe('alpha');
    expect(big.startsWith('B'.repeat(1997) + '\n[output cut: showing the first 1997 of 5000')).toBe(true);
    expect(mid.startsWith('M'.repeat(1997) + '\n[output cut: showing the first 1997 of 3000')).toBe(true);
    // People (events) still see the whole output.
    expect(events.find((e) => e.type === 'tool_result' && e.output.length === 5000)).toBeDefined();
  });

  it('a fatal tool error ends the batch: later calls are cancelled and the result carries it', async () => {
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: createAllowChannel() });
    const r = await scheduler.run(
      [read('a.txt'), { name: 'break_run', args: {} }, write('b.txt', 'no')],
      batchOpts(),
      emit,
    );
    expect(r.fatal).toEqual({ code: 'fatal', message: 'the sandbox is gone' });
    expect(outputs(r)).toEqual([
      { output: 'alpha' },
      { error: 'the sandbox is gone' },
      { error: expect.stringContaining('was cancelled: an earlier call failed fatally') },
    ]);
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('beta');
  });

  it('an aborted run cancels every call that has not started', async () => {
    const ac = new AbortController();
    ac.abort();
    const { scheduler, emit } = createTestScheduler(kit, root, { policy: allowAll(), channel: createDeferChannel() });
    const r = await scheduler.run([read('a.txt'), write('b.txt', 'x')], batchOpts({ signal: ac.signal }), emit);
    expect(r.pending).toEqual([]);
    expect(outputs(r).map((o) => String(o.error))).toEqual([
      expect.stringContaining('cancelled'),
      expect.stringContaining('cancelled'),
    ]);
    expect(kit.log).toEqual([]);
  });

  it('emits tool_use, each state, and tool_result', async () => {
    const policy = createTablePolicy({ note_read: 'allow', note_write: 'deny' });
    const { scheduler, emit, events } = createTestScheduler(kit, root, { policy, channel: createAllowChannel() });
    await scheduler.run([read('a.txt', {}, 'r1'), write('b.txt', 'x', 'w1')], batchOpts(), emit);
    const brief = events.map((e) => (e.type === 'tool_state' ? `${e.id}:${e.status}` : `${e.id}:${e.type}`));
    expect(brief).toEqual([
      'r1:tool_use',
      'w1:tool_use',
      'r1:validating',
      'r1:prepared',
      'r1:scheduled',
      'r1:executing',
      'r1:succeeded',
      'r1:tool_result',
      'w1:validating',
      'w1:prepared',
      'w1:denied',
      'w1:tool_result',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'tool_result', ok: false, error: { code: 'denied' } });
  });
});

describe('with the real file tools', () => {
  it('prepares each call when its turn comes, so an edit can build on a write earlier in the batch', async () => {
    const tools = toolSourceFrom(createToolRegistry([readFileTool, writeFileTool, replaceTool] as never));
    const policy = createTablePolicy({ read_file: 'allow', write_file: 'allow', replace: 'allow' });
    const scheduler = createScheduler({ tools, policy, channel: createDenyChannel(), env: envFor(root) });
    const r = await scheduler.run(
      [
        { name: 'write_file', args: { file_path: 'src/new.ts', content: 'export const port = 80;\n' } },
        { name: 'replace', args: { file_path: 'src/new.ts', old_string: 'port = 80', new_string: 'port = 8080' } },
        { name: 'read_file', args: { file_path: 'src/new.ts' } },
      ],
      batchOpts(),
      () => {},
    );
    expect(outputs(r).map((o) => ('error' in o ? `error: ${String(o.error)}` : 'ok'))).toEqual(['ok', 'ok', 'ok']);
    expect(String(outputs(r)[2].output)).toContain('port = 8080');
    expect(readFileSync(join(root, 'src/new.ts'), 'utf8')).toBe('export const port = 8080;\n');
    expect(policy.queries.map((q) => q.toolName)).toEqual(['write_file', 'replace', 'read_file']);
  });
});
