import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDeferChannel } from '../../src/scheduler/channels.js';
import type { ApprovalAnswer, OpenBatch } from '../../src/scheduler/types.js';
import type { FunctionCall } from '../../src/model/wire.js';
import { makeTempDir, writeFiles } from '../support/git-repo.js';
import { batchOpts, createTablePolicy, createTestKit, createTestScheduler } from './support.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'resume-batch.ts');
const TABLE = { note_read: 'allow', note_write: 'ask_user', ask_user: 'allow' } as const;
const BAD: FunctionCall = { id: 'bad', name: 'note_write', args: { path: 'b.txt' } };

/** A workspace and a batch suspended in this process: a read ran, a write and a question wait. */
async function suspend(): Promise<{ root: string; open: OpenBatch }> {
  const root = makeTempDir('sched-resume-');
  writeFiles(root, { 'a.txt': 'alpha', 'b.txt': 'beta' });
  const { scheduler, emit } = createTestScheduler(createTestKit(), root, {
    policy: createTablePolicy(TABLE),
    channel: createDeferChannel(),
  });
  const r = await scheduler.run(
    [
      { id: 'r1', name: 'note_read', args: { path: 'a.txt' } },
      { id: 'w1', name: 'note_write', args: { path: 'b.txt', content: 'approved content' } },
      { id: 'q1', name: 'ask_user', args: { question: 'Which branch?' } },
      BAD,
    ],
    batchOpts(),
    emit,
  );
  expect(r.pending.map((p) => p.id)).toEqual(['w1', 'q1']);
  return { root, open: r.open! };
}

interface Scenario {
  answers: ApprovalAnswer[];
  then?: FunctionCall[][];
}

const SCENARIOS = {
  approve: {
    answers: [
      { id: 'q1', kind: 'answer', text: 'main, please' },
      { id: 'w1', kind: 'approve' },
    ],
    then: [[BAD], [BAD]],
  },
  deny: {
    answers: [
      { id: 'w1', kind: 'deny', reason: 'do not touch b.txt' },
      { id: 'q1', kind: 'deny' },
    ],
  },
  always: {
    answers: [
      { id: 'w1', kind: 'approve', always: true },
      { id: 'q1', kind: 'answer', text: 'dev' },
    ],
  },
  missing: { answers: [{ id: 'w1', kind: 'approve' }] },
} satisfies Record<string, Scenario>;

type Name = keyof typeof SCENARIOS;
const roots = {} as Record<Name, string>;
const results = {} as Record<Name, any>;
let spawnStatus: number | null = null;

// One child process resumes every scenario: only the JSON file carries the batches across.
beforeAll(async () => {
  const names = Object.keys(SCENARIOS) as Name[];
  const inputs = [];
  for (const name of names) {
    const { root, open } = await suspend();
    roots[name] = root;
    inputs.push({ root, open: JSON.parse(JSON.stringify(open)), table: TABLE, ...SCENARIOS[name] });
  }
  const file = join(makeTempDir('sched-open-'), 'input.json');
  writeFileSync(file, JSON.stringify(inputs));
  const child = spawnSync(process.execPath, ['--import', 'tsx', FIXTURE, file], {
    encoding: 'utf8',
    cwd: join(import.meta.dirname, '..', '..'),
  });
  spawnStatus = child.status;
  const lines = child.stdout.trim().split('\n').filter(Boolean);
  if (lines.length !== names.length)
    throw new Error(`resume process printed ${lines.length} results (status ${child.status}): ${child.stderr}`);
  names.forEach((name, i) => (results[name] = JSON.parse(lines[i])));
});

const responsesOf = (r: any) =>
  r.responses.map((p: { functionResponse: { response: unknown } }) => p.functionResponse.response);
const fileIn = (name: Name) => readFileSync(join(roots[name], 'b.txt'), 'utf8');

describe('resume in another process', () => {
  it('the child process exits cleanly', () => {
    expect(spawnStatus).toBe(0);
  });

  it('approve and answer: the approved call runs there, and all responses come back in order', () => {
    const out = results.approve;
    expect(out.pending).toEqual([]);
    expect(out.responses).toEqual([
      { functionResponse: { id: 'r1', name: 'note_read', response: { output: 'alpha' } } },
      { functionResponse: { id: 'w1', name: 'note_write', response: { output: 'wrote b.txt' } } },
      { functionResponse: { id: 'q1', name: 'ask_user', response: { output: 'main, please' } } },
      {
        functionResponse: {
          id: 'bad',
          name: 'note_write',
          response: { error: expect.stringContaining("missing required field 'content'") },
        },
      },
    ]);
    expect(fileIn('approve')).toBe('approved content');
    expect(out.log).toEqual(['start:b.txt', 'end:b.txt']); // the read of a.txt ran before, not again
    expect(
      out.events.filter((e: { type: string }) => e.type === 'tool_result').map((e: { id: string }) => e.id),
    ).toEqual(['w1', 'q1', 'bad', 'bad']);
  });

  it('carries the repeated-validation streak across the suspension', () => {
    // 'bad' failed once before suspending, twice after: the third in a row gets the note.
    const [first, second] = results.approve.then.map((rs: any[]) => String(rs[0].functionResponse.response.error));
    expect(first).not.toContain('Stop retrying');
    expect(second).toContain('3 times in a row');
  });

  it('deny with a reason: the model gets the refusal and why; nothing is written', () => {
    expect(responsesOf(results.deny)).toEqual([
      { output: 'alpha' },
      { error: 'note_write was not run: it was denied. Reason: do not touch b.txt' },
      { error: 'No answer to your question.' },
      { error: expect.any(String) },
    ]);
    expect(fileIn('deny')).toBe('beta');
  });

  it('approve always: adds the narrowed rule through the policy engine', () => {
    expect(results.always.added).toEqual([{ toolName: 'note_write', modes: ['default'] }]);
    expect(fileIn('always')).toBe('approved content');
  });

  it('a missing answer is bad input, and nothing runs', () => {
    expect(results.missing.error).toEqual({ kind: 'input', message: expect.stringContaining('q1') });
    expect(fileIn('missing')).toBe('beta');
  });
});
