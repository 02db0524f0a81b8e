/**
 * write_todos in the CLI's output, against Gemini CLI itself on the same scripted session: a plan
 * written, a second list refused for having two items in progress, the plan ticked off, and the
 * answer. stream-json must carry the same events (a successful write_todos result has no `output`
 * in Gemini CLI, whose display of it is the list, not text) and text output the same bytes.
 *
 * Both run in yolo mode: headless Gemini CLI offers write_todos to the model only there (its
 * default mode offers the read-only tools alone); ours offers it in every mode (README, CLI).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, reply, startFakeGemini, text, usage, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { runBuiltCli, runGeminiCli, type CliRun } from '../support/cli-runner.js';
import { makeTempDir, writeFiles } from '../support/git-repo.js';

const MODEL = 'gemini-2.5-flash';
const PROMPT = 'Check the notes, then summarize them.';
const PLAN = [
  { description: 'Read notes.txt', status: 'in_progress' },
  { description: 'Summarize the notes', status: 'pending' },
];
const TWO_AT_ONCE = [
  { description: 'Read notes.txt', status: 'in_progress' },
  { description: 'Summarize the notes', status: 'in_progress' },
];
const DONE = [
  { description: 'Read notes.txt', status: 'completed' },
  { description: 'Summarize the notes', status: 'completed' },
];
const script = (): FakeReply[] => [
  reply([text('Planning. '), call('write_todos', { todos: PLAN })], { usage: usage(100, 10) }),
  reply([call('write_todos', { todos: TWO_AT_ONCE })], { usage: usage(120, 10) }),
  reply([call('write_todos', { todos: DONE })], { usage: usage(140, 10) }),
  reply([text('The notes say 42.')], { usage: usage(160, 5) }),
];

const dirs: string[] = [];
let ws: string;
beforeAll(() => {
  ws = makeTempDir('cli-todos-ws-');
  dirs.push(ws);
  writeFiles(ws, { 'notes.txt': 'the answer is 42\n' });
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function both(format: 'text' | 'stream-json') {
  const args = ['-p', PROMPT, '-o', format, '-m', MODEL, '--approval-mode', 'yolo'];
  const fakes: FakeGemini[] = [];
  try {
    const theirs = await startFakeGemini(script());
    fakes.push(theirs);
    const home = makeTempDir('cli-todos-home-');
    dirs.push(home);
    const gemini = await runGeminiCli(args, { baseUrl: theirs.baseUrl, cwd: ws, home });
    const mine = await startFakeGemini(script());
    fakes.push(mine);
    const ours = await runBuiltCli([...args, '--cwd', ws], {
      env: { GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: mine.baseUrl },
    });
    return { gemini, ours, theirs, mine };
  } finally {
    for (const f of fakes) await f.close();
  }
}

function assertRan(r: CliRun, who: string) {
  if (r.code !== 0) throw new Error(`${who} exited ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
}

/** The events with what varies (timestamps, ids, durations, our cost) taken out; each tool id is replaced by the id of the tool_use it answers. */
function normalized(stdout: string) {
  const ids = new Map<string, string>();
  return stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .map(({ timestamp: _t, session_id: _s, ...e }) => {
      if (typeof e.tool_id === 'string') {
        if (!ids.has(e.tool_id)) ids.set(e.tool_id, `<tool-${ids.size + 1}>`);
        e.tool_id = ids.get(e.tool_id);
      }
      if (e.type === 'result') {
        const { duration_ms: _d, cost_usd: _c, ...stats } = e.stats as Record<string, unknown>;
        e.stats = stats;
      }
      return e;
    });
}

describe('write_todos in the CLI, against Gemini CLI on the same session', () => {
  it('stream-json: the same tool_use and tool_result events', async () => {
    const { gemini, ours } = await both('stream-json');
    assertRan(gemini, 'Gemini CLI');
    assertRan(ours, 'agent-action');
    const [mine, theirs] = [normalized(ours.stdout), normalized(gemini.stdout)];
    expect(JSON.stringify(mine, null, 1)).toBe(JSON.stringify(theirs, null, 1));
    // And what we promise, spelled out: the plan's results carry no output; the refusal names the rule.
    const results = mine.filter((e) => e.type === 'tool_result');
    expect(results).toEqual([
      { type: 'tool_result', tool_id: '<tool-1>', status: 'success' },
      {
        type: 'tool_result',
        tool_id: '<tool-2>',
        status: 'error',
        output: expect.stringContaining('Only one task can be "in_progress" at a time') as string,
        error: {
          type: 'invalid_tool_params',
          message: expect.stringContaining('Only one task can be "in_progress" at a time') as string,
        },
      },
      { type: 'tool_result', tool_id: '<tool-3>', status: 'success' },
    ]);
  });

  it('text: the same bytes (the plan is not printed)', async () => {
    const { gemini, ours } = await both('text');
    assertRan(gemini, 'Gemini CLI');
    assertRan(ours, 'agent-action');
    expect(ours.stdout).toBe(gemini.stdout);
    expect(ours.stdout).toBe('Planning. \nThe notes say 42.\n');
  });
});
