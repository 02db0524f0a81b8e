/**
 * Gemini CLI is the specification of the CLI's output. The same scripted three-turn session (text
 * in every turn, a read and a listing in between) runs through Gemini CLI itself (the pinned
 * @google/gemini-cli bundle) and through our built CLI, each against its own copy of the fake
 * Gemini server, and the outputs are compared: event types and order, keys and their order,
 * texts, token figures. Normalized: timestamps, session ids, tool ids and durations (checked for
 * form, not value), and the deliberate divergences listed in README's CLI section, each asserted
 * here so that a change on either side shows.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, reply, startFakeGemini, text, usage, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { runBuiltCli, runGeminiCli, type CliRun } from '../support/cli-runner.js';
import { makeTempDir, writeFiles } from '../support/git-repo.js';

const MODEL = 'gemini-2.5-flash';
const PROMPT = 'What do the notes say?';
const script = (): FakeReply[] => [
  reply([text('I will read the notes. '), call('read_file', { file_path: 'notes.txt' })], {
    usage: usage(100, 10, { cachedContentTokenCount: 40 }),
  }),
  reply([text('Now the folder.'), call('list_directory', { dir_path: '.' })], { usage: usage(150, 8) }),
  reply([text('The notes say 42.')], { usage: usage(200, 5) }),
];

const dirs: string[] = [];
let ws: string;
beforeAll(() => {
  ws = makeTempDir('cli-parity-ws-');
  dirs.push(ws);
  writeFiles(ws, { 'notes.txt': 'the answer is 42\n' });
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Both programs on the same session, each with a fresh fake server; returns both runs and what each server saw. */
async function both(format: 'text' | 'json' | 'stream-json', limits: { maxTurns?: number } = {}) {
  const args = ['-p', PROMPT, '-o', format, '-m', MODEL];
  const fakes: FakeGemini[] = [];
  try {
    const theirs = await startFakeGemini(script());
    fakes.push(theirs);
    const home = makeTempDir('cli-parity-home-');
    dirs.push(home);
    const settings = limits.maxTurns ? { model: { maxSessionTurns: limits.maxTurns } } : {};
    const gemini = await runGeminiCli(args, { baseUrl: theirs.baseUrl, cwd: ws, home, settings });
    const mine = await startFakeGemini(script());
    fakes.push(mine);
    const ourLimits = limits.maxTurns ? ['--max-turns', String(limits.maxTurns)] : [];
    const ours = await runBuiltCli([...args, '--cwd', ws, ...ourLimits], {
      env: { GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: mine.baseUrl },
    });
    return { gemini, ours, requests: [theirs.requests.length, mine.requests.length] };
  } finally {
    for (const f of fakes) await f.close();
  }
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function assertRan(r: CliRun, who: string) {
  if (r.code !== 0) throw new Error(`${who} exited ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
}

/** stream-json lines with the varying values replaced by placeholders, after checking their form. */
function normalizeStream(stdout: string) {
  const ids = new Map<string, string>();
  return stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .map((e) => {
      expect(Object.keys(e).slice(0, 2)).toEqual(['type', 'timestamp']);
      expect(e.timestamp).toMatch(ISO);
      const out: Record<string, unknown> = { ...e, timestamp: '<ts>' };
      if ('session_id' in e) {
        expect(e.session_id).toMatch(UUID);
        out.session_id = '<session>';
      }
      if ('tool_id' in e) {
        const id = e.tool_id as string;
        if (!ids.has(id)) ids.set(id, `<tool-${ids.size + 1}>`);
        out.tool_id = ids.get(id);
      }
      if (e.type === 'result') {
        const stats = { ...(e.stats as Record<string, unknown>) };
        expect(stats.duration_ms).toBeTypeOf('number');
        stats.duration_ms = '<ms>';
        out.stats = stats;
      }
      return out;
    });
}

/** Set every number under the named keys to a placeholder (latencies and durations vary). */
function normalizeTimes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalizeTimes);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        /latency|duration/i.test(k) && typeof x === 'number' ? '<ms>' : normalizeTimes(x),
      ]),
    );
  }
  return v;
}

describe('the built CLI against Gemini CLI on the same session', () => {
  it('stream-json: the same events in the same order, with the same keys in the same order', async () => {
    const { gemini, ours, requests } = await both('stream-json');
    assertRan(gemini, 'Gemini CLI');
    assertRan(ours, 'agent-action');
    expect(requests).toEqual([3, 3]);
    const theirs = normalizeStream(gemini.stdout);
    const mine = normalizeStream(ours.stdout);

    // Deliberate divergences (README, CLI): cost_usd is ours alone; tool_result.output carries what
    // the model was sent, where Gemini CLI sends its display text (empty for read_file, absent for
    // list_directory).
    const last = mine.at(-1)!.stats as Record<string, unknown>;
    expect(last.cost_usd).toBeTypeOf('number');
    delete last.cost_usd;
    for (const e of [...theirs, ...mine]) if (e.type === 'tool_result') delete e.output;
    expect(mine.find((e) => e.type === 'tool_result')).toBeDefined();
    expect(ours.stdout).toContain('"output":"the answer is 42"');

    expect(JSON.stringify(mine, null, 1)).toBe(JSON.stringify(theirs, null, 1));
    // And the shape we promise, spelled out.
    expect(mine.map((e) => e.type)).toEqual([
      'init',
      'message',
      'message',
      'tool_use',
      'tool_result',
      'message',
      'tool_use',
      'tool_result',
      'message',
      'result',
    ]);
    expect(mine[1]).toMatchObject({ role: 'user', content: PROMPT });
    expect(mine.at(-1)).toMatchObject({
      status: 'success',
      stats: { input_tokens: 450, output_tokens: 23, cached: 40, input: 410, tool_calls: 2 },
    });
  });

  it('json: the final answer as response, and Gemini CLI stats', async () => {
    const { gemini, ours } = await both('json');
    assertRan(gemini, 'Gemini CLI');
    assertRan(ours, 'agent-action');
    const theirs = normalizeTimes(JSON.parse(gemini.stdout)) as Record<string, Record<string, unknown>>;
    const mine = normalizeTimes(JSON.parse(ours.stdout)) as Record<string, Record<string, unknown>>;
    expect(mine.response).toBe('The notes say 42.');
    expect(mine.session_id).toMatch(UUID);
    theirs.session_id = mine.session_id = '<session>' as never;

    // Deliberate divergences (README, CLI): stats.cost_usd is ours; stats.files (lines added and
    // removed by edits) is Gemini CLI's alone.
    expect(mine.stats.cost_usd).toBeTypeOf('number');
    delete mine.stats.cost_usd;
    expect(theirs.stats.files).toEqual({ totalLinesAdded: 0, totalLinesRemoved: 0 });
    delete theirs.stats.files;

    expect(JSON.stringify(mine, null, 1)).toBe(JSON.stringify(theirs, null, 1));
    // Gemini CLI ends the JSON without a newline; so do we.
    expect(ours.stdout.endsWith('}')).toBe(gemini.stdout.endsWith('}'));
  });

  it('stream-json at the turn limit: the same events, an error result of the same type, exit 53', async () => {
    const { gemini, ours, requests } = await both('stream-json', { maxTurns: 1 });
    expect([gemini.code, ours.code]).toEqual([53, 53]);
    expect(requests).toEqual([1, 1]);
    const [theirs, mine] = [normalizeStream(gemini.stdout), normalizeStream(ours.stdout)];
    expect(mine.map((e) => e.type)).toEqual(['init', 'message', 'message', 'tool_use', 'tool_result', 'result']);
    // The message names each program's own setting (maxSessionTurns, --max-turns).
    for (const e of [theirs.at(-1)!, mine.at(-1)!]) (e.error as { message: string }).message = '<message>';
    delete (mine.at(-1)!.stats as Record<string, unknown>).cost_usd;
    for (const e of [...theirs, ...mine]) if (e.type === 'tool_result') delete e.output;
    expect(JSON.stringify(mine, null, 1)).toBe(JSON.stringify(theirs, null, 1));
    expect(mine.at(-1)).toMatchObject({ status: 'error', error: { type: 'FatalTurnLimitedError' } });
  });

  it("text: each turn's text on its own line, byte for byte", async () => {
    const { gemini, ours } = await both('text');
    assertRan(gemini, 'Gemini CLI');
    assertRan(ours, 'agent-action');
    expect(ours.stdout).toBe(gemini.stdout);
    expect(ours.stdout).toBe('I will read the notes. \nNow the folder.\nThe notes say 42.\n');
  });
});
