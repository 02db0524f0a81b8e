/**
 * Ours, Gemini CLI and a floor, side by side in one run, against the same loopback fake Gemini at
 * zero latency, on the same scripted sessions (each turn one read_file call, then a closing text):
 * - ours: the built CLI (`dist/cli/index.js -p ... -o json --approval-mode yolo`; BENCH_CLI measures another bundle),
 *   twice: with a warm compile cache (scripts/cli-bin.mjs: Node's compile cache; every run after the first on a machine;
 *   NODE_COMPILE_CACHE points it at a folder of the bench's own, primed by one unmeasured 1-turn run)
 *   and with a cold one (a new empty folder each run: a first run, or a CI job);
 * - Gemini CLI: the pinned @google/gemini-cli bundle, headless (`-p ... -o json --yolo`), pointed at
 *   the fake by GOOGLE_GEMINI_BASE_URL, with a HOME of its own (API-key auth, no telemetry, no update check);
 * - floor: bench/support/floor-client.mjs, a plain fetch loop doing the same requests;
 * - before (only with BENCH_BASELINE, a checkout whose dist/ was built: `npm run bench -- --baseline DIR`):
 *   that checkout's CLI, warm and cold like ours, so a change is measured against its parent in one run.
 * Figures, medians of BENCH_RUNS runs (the three take turns, in a rotating order):
 * process start to the first model request the fake sees; per-turn overhead ((20-turn wall - 1-turn
 * wall) / 19); peak RSS of the 20-turn session (GNU time's maximum resident set, the process and its
 * children); the first request's body (bytes of its JSON). scripts/bench.mjs writes them to bench/results.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GEMINI_CLI, geminiCliEnv, NODE } from '../test/support/cli-runner.js';
import { call, reply, startFakeGemini, text, type FakeGemini, type FakeReply } from '../test/support/fake-gemini.js';
import { recordFigures } from './support/figures.js';

const OURS = process.env.BENCH_CLI ?? join(process.cwd(), 'dist/cli/index.js');
if (!existsSync(OURS)) {
  console.error('dist/cli/index.js is missing: run npm run build first');
  process.exit(1);
}
const BASELINE = process.env.BENCH_BASELINE ? join(process.env.BENCH_BASELINE, 'dist/cli/index.js') : undefined;
if (BASELINE && !existsSync(BASELINE)) {
  console.error(`${BASELINE} is missing: give --baseline a checkout whose dist/ is built`);
  process.exit(1);
}
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const scratch = mkdtempSync(join(tmpdir(), 'agent-action-bench-side-'));
const work = join(scratch, 'work');
const home = join(scratch, 'home');
const state = join(scratch, 'state');
for (const d of [work, home, state]) mkdirSync(d);
writeFileSync(join(work, 'README.md'), '# bench\n');
// A different file each turn: the same call five times in a row would (rightly) trip loop detection.
for (let i = 0; i < 20; i++) writeFileSync(join(work, `f${i}.txt`), `file ${i}\n`);

function session(turns: number): FakeReply[] {
  const script: FakeReply[] = [];
  for (let i = 0; i < turns - 1; i++) script.push(reply([call('read_file', { file_path: `f${i}.txt` })]));
  script.push(reply([text('done')]));
  return script;
}

interface Program {
  name: string;
  /** The script node runs, its arguments and environment, for a session against `baseUrl`. */
  command(baseUrl: string): { args: string[]; env: Record<string, string> };
}

// Every program gets this environment without any Gemini credential or endpoint of the caller's.
const {
  GEMINI_API_KEY: _k,
  GOOGLE_API_KEY: _g,
  GOOGLE_GEMINI_BASE_URL: _b,
  GEMINI_MODEL: _m,
  ...baseEnv
} = process.env;
const PROMPT = 'list the files';
const cliArgs = (cli: string) => [
  cli,
  '-p',
  PROMPT,
  '-o',
  'json',
  '--approval-mode',
  'yolo',
  '-m',
  'gemini-2.5-flash',
  '--cwd',
  work,
];
const oursArgs = cliArgs(OURS);
const oursEnv = (baseUrl: string, compileCache: string) => ({
  GEMINI_API_KEY: 'bench-key',
  GOOGLE_GEMINI_BASE_URL: baseUrl,
  XDG_STATE_HOME: state,
  NODE_COMPILE_CACHE: compileCache,
});
const warmCache = join(scratch, 'compile-cache-warm');
let coldRuns = 0;
const programs: Program[] = [
  { name: 'ours', command: (baseUrl) => ({ args: oursArgs, env: oursEnv(baseUrl, warmCache) }) },
  // A folder that does not exist yet: Node makes it and writes the cache as a first run would.
  {
    name: 'ours, cold cache',
    command: (baseUrl) => ({
      args: oursArgs,
      env: oursEnv(baseUrl, join(scratch, `compile-cache-cold-${++coldRuns}`)),
    }),
  },
  ...(BASELINE
    ? [
        {
          name: 'before',
          command: (baseUrl: string) => ({
            args: cliArgs(BASELINE),
            env: oursEnv(baseUrl, join(scratch, 'compile-cache-before')),
          }),
        },
        {
          name: 'before, cold cache',
          command: (baseUrl: string) => ({
            args: cliArgs(BASELINE),
            env: oursEnv(baseUrl, join(scratch, `compile-cache-cold-${++coldRuns}`)),
          }),
        },
      ]
    : []),
  {
    name: 'Gemini CLI',
    command: (baseUrl) => ({
      args: [GEMINI_CLI, '-p', PROMPT, '-o', 'json', '--yolo', '-m', 'gemini-2.5-flash'],
      env: geminiCliEnv({ baseUrl, home }),
    }),
  },
  {
    name: 'floor',
    command: (baseUrl) => ({
      args: [join(import.meta.dirname, 'support/floor-client.mjs'), PROMPT, work],
      env: { GEMINI_API_KEY: 'bench-key', GOOGLE_GEMINI_BASE_URL: baseUrl },
    }),
  },
];

interface SessionRun {
  firstMs: number;
  wholeMs: number;
  rssKb?: number;
  firstBodyBytes: number;
}

/** One session of `turns` turns; the fake lives in this process, so the child runs asynchronously. */
async function runSession(p: Program, turns: number): Promise<SessionRun> {
  const fake: FakeGemini = await startFakeGemini(session(turns));
  try {
    const { args, env } = p.command(fake.baseUrl);
    const [cmd, argv] = TIME ? [TIME, ['-f', '%M', NODE, ...args]] : [NODE, args];
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd: work, env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    await Promise.race([fake.untilRequests(1), exited]);
    const firstMs = performance.now() - t0;
    const status = await exited;
    const wholeMs = performance.now() - t0;
    if (status !== 0)
      throw new Error(
        `${p.name}: a ${turns}-turn session exited ${status}:\n${stdout.slice(-2000)}${stderr.slice(-2000)}`,
      );
    if (fake.requests.length !== turns)
      throw new Error(`${p.name}: expected ${turns} model requests, the fake saw ${fake.requests.length}`);
    const last = stderr.trim().split('\n').pop() ?? '';
    return {
      firstMs,
      wholeMs,
      rssKb: TIME && /^\d+$/.test(last) ? Number(last) : undefined,
      firstBodyBytes: Buffer.byteLength(JSON.stringify(fake.requests[0]!.body)),
    };
  } finally {
    await fake.close();
  }
}

const runs = new Map(programs.map((p) => [p.name, { one: [] as SessionRun[], twenty: [] as SessionRun[] }]));
// Primes the warm compile caches; not measured.
for (const p of programs.filter((p) => p.name === 'ours' || p.name === 'before')) await runSession(p, 1);
for (let i = 0; i < RUNS; i++) {
  // A rotating order: no program always runs first (or right after the heaviest one).
  for (let k = 0; k < programs.length; k++) {
    const p = programs[(i + k) % programs.length]!;
    const r = runs.get(p.name)!;
    r.one.push(await runSession(p, 1));
    r.twenty.push(await runSession(p, 20));
  }
}
rmSync(scratch, { recursive: true, force: true });

interface Row {
  firstMs: number;
  oneMs: number;
  twentyMs: number;
  perTurnMs: number;
  rssMiB?: number;
  firstBodyBytes: number;
}
const rows: Record<string, Row> = {};
for (const [name, r] of runs) {
  const oneMs = median(r.one.map((s) => s.wholeMs));
  const twentyMs = median(r.twenty.map((s) => s.wholeMs));
  const rss = r.twenty.map((s) => s.rssKb).filter((x): x is number => x !== undefined);
  rows[name] = {
    firstMs: median(r.one.map((s) => s.firstMs)),
    oneMs,
    twentyMs,
    perTurnMs: (twentyMs - oneMs) / 19,
    rssMiB: rss.length ? median(rss) / 1024 : undefined,
    firstBodyBytes: median(r.one.map((s) => s.firstBodyBytes)),
  };
}

const ours = rows.ours!;
const cold = rows['ours, cold cache']!;
const gem = rows['Gemini CLI']!;
const floor = rows.floor!;
const ratio = (a: number | undefined, b: number | undefined) =>
  a !== undefined && b !== undefined ? `${(a / b).toFixed(2)}x` : 'n/a';
const f1 = (n: number | undefined, unit: string) => (n === undefined ? 'n/a' : `${n.toFixed(1)} ${unit}`);
type Key = Exclude<keyof Row, 'firstBodyBytes'>;
const fmt = (k: Key, n: number | undefined) => f1(n, k === 'rssMiB' ? 'MiB' : 'ms');
const line = (label: string, k: Key) => [
  label,
  fmt(k, ours[k]),
  fmt(k, cold[k]),
  fmt(k, gem[k]),
  fmt(k, floor[k]),
  `${ratio(ours[k], floor[k])} / ${ratio(cold[k], floor[k])}`,
  `${ratio(ours[k], gem[k])} / ${ratio(cold[k], gem[k])}`,
];
const lines = [
  line('process start to first model request', 'firstMs'),
  line('1-turn session, whole process', 'oneMs'),
  line('20-turn session, whole process', 'twentyMs'),
  line('per-turn overhead ((20-turn - 1-turn) / 19)', 'perTurnMs'),
  line('peak RSS, 20-turn session', 'rssMiB'),
  [
    'first request body',
    `${ours.firstBodyBytes} B`,
    `${cold.firstBodyBytes} B`,
    `${gem.firstBodyBytes} B`,
    `${floor.firstBodyBytes} B`,
    '—',
    ratio(ours.firstBodyBytes, gem.firstBodyBytes),
  ],
];
const nodeVersion = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
console.log(
  `Medians of ${RUNS} runs; fake Gemini on 127.0.0.1 at zero latency; every program under Node ${nodeVersion}.\n`,
);
console.log(
  'Ours twice: with a warm compile cache (every run after the first) and a cold one (a first run, a CI job); ratios warm / cold.\n',
);
console.log('| figure | ours, warm cache | ours, cold cache | Gemini CLI | floor | ours / floor | ours / Gemini CLI |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const l of lines) console.log(`| ${l.join(' | ')} |`);
const before = rows.before;
const beforeCold = rows['before, cold cache'];
if (before && beforeCold) {
  console.log('\nBefore (the baseline build) and after (this one), warm / cold:\n');
  console.log('| figure | before | after | after / before |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [label, k] of [
    ['first model request', 'firstMs'],
    ['per-turn overhead', 'perTurnMs'],
    ['peak RSS, 20 turns', 'rssMiB'],
  ] as const)
    console.log(
      `| ${label} | ${fmt(k, before[k])} / ${fmt(k, beforeCold[k])} | ${fmt(k, ours[k])} / ${fmt(k, cold[k])} | ${ratio(ours[k], before[k])} / ${ratio(cold[k], beforeCold[k])} |`,
    );
}

recordFigures('side-by-side', {
  runs: RUNS,
  node: nodeVersion,
  ...Object.fromEntries(
    Object.entries(rows).flatMap(([name, r]) => Object.entries(r).map(([k, v]) => [`${name}.${k}`, v])),
  ),
});
