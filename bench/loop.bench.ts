// The loop's own cost per turn: a scripted 20-turn session (one tool call a turn, a scheduler that
// answers at once) against the fake Gemini server at zero latency, measured side by side with the
// same 20 requests sent straight through the model client. The difference is what the loop adds
// (history repair, retries' bookkeeping, events, accounting, loop guard).
import { runLoop } from '../src/core/loop.js';
import { createRunState } from '../src/core/run-state.js';
import type { LoopEvent } from '../src/core/events.js';
import { createGeminiClient } from '../src/model/gemini.js';
import type { Content } from '../src/model/wire.js';
import type { Scheduler } from '../src/scheduler/types.js';
import { call, reply, startFakeGemini, text, usage, type FakeReply } from '../test/support/fake-gemini.js';

const TURNS = 20;
const RUNS = 9;
const MODEL = 'gemini-2.5-flash';

const script = (): FakeReply[] => [
  ...Array.from({ length: TURNS - 1 }, (_, i) =>
    reply([text(`Step ${i}: reading the next file.`), call('read_file', { file_path: `src/file-${i}.ts` })], {
      usage: usage(1000 + i * 200, 40),
    }),
  ),
  reply([text('All done.')], { usage: usage(5000, 10) }),
];

const scheduler: Scheduler = {
  run: async (calls) => ({
    responses: calls.map((c) => ({
      functionResponse: {
        id: c.id,
        name: c.name,
        response: { output: `contents of ${String(c.args?.file_path)}\n${'x'.repeat(2000)}` },
      },
    })),
    pending: [],
  }),
  resume: async () => ({ responses: [], pending: [] }),
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const fake = await startFakeGemini();
  const client = createGeminiClient({ apiKey: 'bench', baseUrl: fake.baseUrl, model: MODEL });
  const tools = [
    {
      name: 'read_file',
      description: 'Read a file',
      parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } } },
    },
  ];
  const loopMs: number[] = [];
  const rawMs: number[] = [];
  let recorded: Content[][] = [];
  const runLoopOnce = async (run: number) => {
    fake.push(...script());
    fake.requests.length = 0;
    const state = createRunState(`bench-${run}`, MODEL, 'default');
    const events: LoopEvent[] = [];
    const t0 = performance.now();
    const outcome = await runLoop(
      { state, input: { userMessage: { role: 'user', parts: [{ text: 'read every file' }] } } },
      {
        model: client,
        scheduler,
        systemInstruction: 'bench',
        tools: () => tools,
        limits: {},
        signal: new AbortController().signal,
        mode: 'default',
      },
      (e) => void events.push(e),
    );
    const ms = performance.now() - t0;
    if (outcome.status !== 'success' || state.turns !== TURNS)
      throw new Error(`bench session failed: ${JSON.stringify(outcome)}`);
    recorded = fake.requests.map((r) => r.body.contents as Content[]);
    return ms;
  };
  // The same requests the loop made, straight through the client.
  const runRawOnce = async () => {
    fake.push(...script());
    const t1 = performance.now();
    for (const contents of recorded) {
      for await (const _chunk of client.stream({
        model: MODEL,
        systemInstruction: 'bench',
        tools,
        contents,
        signal: new AbortController().signal,
      })) {
        // drain
      }
    }
    return performance.now() - t1;
  };
  await runLoopOnce(0); // warm-up: JIT, connection pool, and the requests to replay
  await runRawOnce();
  for (let run = 1; run <= RUNS; run++) {
    // Alternate the order so neither side always runs on a warmer (or more collected) heap.
    let loopTime: number;
    let rawTime: number;
    if (run % 2) {
      loopTime = await runLoopOnce(run);
      rawTime = await runRawOnce();
    } else {
      rawTime = await runRawOnce();
      loopTime = await runLoopOnce(run);
    }
    loopMs.push(loopTime / TURNS);
    rawMs.push(rawTime / TURNS);
  }
  await fake.close();
  const loop = median(loopMs);
  const raw = median(rawMs);
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(`${TURNS}-turn session, one tool call a turn, fake server at zero latency; medians of ${RUNS} runs.\n`);
  console.log('| measure | value |');
  console.log('| --- | --- |');
  console.log(`| loop, per turn (model call + loop) | ${loop.toFixed(2)} ms |`);
  console.log(`| same requests via the client alone, per turn | ${raw.toFixed(2)} ms |`);
  console.log(`| loop overhead per turn | ${(loop - raw).toFixed(2)} ms |`);
  console.log(`| loop / client ratio | ${(loop / raw).toFixed(2)}x |`);
  console.log(`| peak RSS (whole process) | ${rssMb.toFixed(0)} MB |`);
}

await main();
