/**
 * Model-declared parallelism (Gemini CLI's `wait_for_previous`): calls without it run together, a
 * call with it waits for everything before it, and edits never overlap whatever the model says.
 * Overlap is shown with barriers and the tools' start/end log, never with timings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'typebox';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDenyChannel } from '../../src/scheduler/channels.js';
import type { BatchResult } from '../../src/scheduler/types.js';
import { defineTool, type Tool } from '../../src/tools/define-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { makeTempDir, writeFiles } from '../support/git-repo.js';
import {
  batchOpts,
  createBarrier,
  createTablePolicy,
  createTestKit,
  createTestScheduler,
  type TestKit,
} from './support.js';

const read = (path: string, extra: Record<string, unknown> = {}) => ({ name: 'note_read', args: { path, ...extra } });
const write = (path: string, content: string, extra: Record<string, unknown> = {}) => ({
  name: 'note_write',
  args: { path, content, ...extra },
});
const outputs = (r: BatchResult) => r.responses.map((p) => p.functionResponse!.response);

let root: string;
let kit: TestKit;
beforeEach(() => {
  root = makeTempDir('wait-');
  writeFiles(root, { 'a.txt': 'alpha', 'b.txt': 'beta', 'c.txt': 'gamma' });
  kit = createTestKit();
});

/** A command-like tool (kind execute) that meets reads at a barrier: shows that execute calls overlap too. */
function execTool(k: TestKit): Tool {
  return defineTool({
    name: 'note_exec',
    kind: 'execute',
    description: 'Run a note command.',
    params: Type.Object(
      { label: Type.String(), barrier: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
    prepare: (args) => ({
      title: `exec ${args.label}`,
      paths: [],
      policyArgs: { label: args.label },
      run: async () => {
        k.log.push(`start:${args.label}`);
        if (args.barrier) await k.barriers.get(args.barrier)!.arrive();
        k.log.push(`end:${args.label}`);
        return { forModel: `ran ${args.label}` };
      },
    }),
  }) as Tool;
}

function scheduler(extra: Tool[] = []) {
  const policy = createTablePolicy({ note_read: 'allow', note_write: 'allow', note_exec: 'allow' });
  const tools = createToolRegistry([...kit.tools, ...extra]);
  return { policy, ...createTestScheduler(kit, root, { policy, channel: createDenyChannel(), tools }) };
}

describe('wait_for_previous', () => {
  it('calls without it run together, whatever their kind: three calls meet at one barrier', async () => {
    kit.barriers.set('trio', createBarrier(3));
    const { scheduler: s, emit } = scheduler([execTool(kit)]);
    const r = await s.run(
      [
        read('a.txt', { barrier: 'trio' }),
        { name: 'note_exec', args: { label: 'test', barrier: 'trio' } },
        read('b.txt', { barrier: 'trio', wait_for_previous: false }),
      ],
      batchOpts(),
      emit,
    );
    expect(outputs(r)).toEqual([{ output: 'alpha' }, { output: 'ran test' }, { output: 'beta' }]);
    expect(kit.log.slice(0, 3).sort()).toEqual(['start:a.txt', 'start:b.txt', 'start:test']);
  });

  it('a call with wait_for_previous: true starts only after every call before it ended, and the rest wait for it', async () => {
    kit.barriers.set('pair', createBarrier(2));
    const { scheduler: s, emit } = scheduler();
    const r = await s.run(
      [
        read('a.txt', { barrier: 'pair' }),
        read('b.txt', { barrier: 'pair' }),
        read('c.txt', { wait_for_previous: true }),
        read('a.txt', { label: 'after' }),
      ],
      batchOpts(),
      emit,
    );
    expect(outputs(r)).toEqual([{ output: 'alpha' }, { output: 'beta' }, { output: 'gamma' }, { output: 'alpha' }]);
    expect(kit.log.slice(0, 2).sort()).toEqual(['start:a.txt', 'start:b.txt']);
    expect(kit.log.slice(2, 4).sort()).toEqual(['end:a.txt', 'end:b.txt']);
    expect(kit.log.slice(4)).toEqual(['start:c.txt', 'end:c.txt', 'start:after', 'end:after']);
  });

  it('without the flag, the same third call overlaps the first two (the barrier of three is met)', async () => {
    kit.barriers.set('trio', createBarrier(3));
    const { scheduler: s, emit } = scheduler();
    const r = await s.run(
      [read('a.txt', { barrier: 'trio' }), read('b.txt', { barrier: 'trio' }), read('c.txt', { barrier: 'trio' })],
      batchOpts(),
      emit,
    );
    expect(outputs(r)).toEqual([{ output: 'alpha' }, { output: 'beta' }, { output: 'gamma' }]);
  });

  it('edits of one file never overlap, even when the model says they need not wait', async () => {
    const { scheduler: s, emit } = scheduler();
    const r = await s.run(
      [write('x.txt', 'one', { wait_for_previous: false }), write('x.txt', 'two', { wait_for_previous: false })],
      batchOpts(),
      emit,
    );
    expect(outputs(r)).toEqual([{ output: 'wrote x.txt' }, { output: 'wrote x.txt' }]);
    expect(kit.log).toEqual(['start:x.txt', 'end:x.txt', 'start:x.txt', 'end:x.txt']);
    expect(readFileSync(join(root, 'x.txt'), 'utf8')).toBe('two');
  });

  it('is taken out of the arguments before validation and policy (no tool schema knows it)', async () => {
    const { scheduler: s, emit, policy } = scheduler();
    const r = await s.run([read('a.txt', { wait_for_previous: true })], batchOpts(), emit);
    expect(outputs(r)).toEqual([{ output: 'alpha' }]);
    expect(policy.queries).toEqual([{ toolName: 'note_read', args: { path: 'a.txt' } }]);
  });

  it('a value that is not a boolean fails the call, naming the field', async () => {
    const { scheduler: s, emit } = scheduler();
    const r = await s.run([read('a.txt', { wait_for_previous: 'yes' })], batchOpts(), emit);
    expect(outputs(r)).toEqual([{ error: 'invalid arguments for note_read: /wait_for_previous must be boolean' }]);
    expect(kit.log).toEqual([]);
  });
});
