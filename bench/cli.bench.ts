/**
 * The CLI bundle as a user runs it (`node dist/cli/index.js`), against the fake Gemini server at
 * zero latency:
 * - start-up: `--version`, `--help`, `policy check` (a plain tool, and a shell command, which loads
 *   the bash grammar) beside a bare `node -e 0` on the same machine in the same run, and process
 *   start to the first model request as the fake server sees it;
 * - per-turn overhead: a scripted 20-turn session (each turn one read_file call) minus a
 *   1-turn session, divided by 19: what our loop, scheduler, policy and tools add per turn;
 * - peak memory: the whole process's maximum RSS for the 20-turn session (GNU time, when present).
 * Medians of several runs. Build first (`npm run build`). BENCH_CLI measures another CLI bundle
 * (say, main's dist/cli/index.js) with the same script, for a before/after.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, reply, startFakeGemini, text, type FakeReply } from '../test/support/fake-gemini.js';

const CLI = process.env.BENCH_CLI ?? join(process.cwd(), 'dist/cli/index.js');
if (!existsSync(CLI)) {
  console.error('dist/cli/index.js is missing: run npm run build first');
  process.exit(1);
}
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (n: number) => `${n.toFixed(1)} ms`;

const work = mkdtempSync(join(tmpdir(), 'agent-action-bench-'));
// Every run keeps a session: in a state folder of the benchmark's own, never the real home.
process.env.XDG_STATE_HOME = mkdtempSync(join(tmpdir(), 'agent-action-bench-state-'));
writeFileSync(join(work, 'README.md'), '# bench\n');
// A different file each turn: the same call five times in a row would (rightly) trip loop detection.
for (let i = 0; i < 20; i++) writeFileSync(join(work, `f${i}.txt`), `file ${i}\n`);

function session(turns: number): FakeReply[] {
  const script: FakeReply[] = [];
  for (let i = 0; i < turns - 1; i++) script.push(reply([call('read_file', { file_path: `f${i}.txt` })]));
  script.push(reply([text('done')]));
  return script;
}

/** Runs a command asynchronously (the fake server lives in this process and must keep answering). */
function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ ms: number; status: number | null; stderr: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ ms: performance.now() - t0, status, stderr }));
  });
}
const time = (args: string[], env: NodeJS.ProcessEnv = {}) => run(process.execPath, args, env);

async function runSession(turns: number): Promise<number> {
  const fake = await startFakeGemini(session(turns));
  try {
    const r = await time([CLI, '-p', 'list the files', '-o', 'json', '--approval-mode', 'yolo', '--cwd', work], {
      GEMINI_API_KEY: 'bench-key',
      GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
    });
    if (r.status !== 0) throw new Error(`session of ${turns} turns exited ${r.status}: ${r.stderr}`);
    if (fake.requests.length !== turns)
      throw new Error(`expected ${turns} model requests, saw ${fake.requests.length}`);
    return r.ms;
  } finally {
    await fake.close();
  }
}

async function peakRssKb(turns: number): Promise<number | undefined> {
  if (!existsSync('/usr/bin/time')) return undefined;
  const fake = await startFakeGemini(session(turns));
  try {
    const r = await run(
      '/usr/bin/time',
      ['-f', '%M', process.execPath, CLI, '-p', 'x', '-o', 'json', '--approval-mode', 'yolo', '--cwd', work],
      {
        GEMINI_API_KEY: 'bench-key',
        GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
      },
    );
    const last = r.stderr.trim().split('\n').pop() ?? '';
    return /^\d+$/.test(last) ? Number(last) : undefined;
  } finally {
    await fake.close();
  }
}

/** Process start to the first request the fake server receives (the process then finishes the session). */
async function firstRequestMs(): Promise<number> {
  const fake = await startFakeGemini(session(1));
  try {
    const t0 = performance.now();
    const done = time([CLI, '-p', 'list the files', '-o', 'json', '--approval-mode', 'yolo', '--cwd', work], {
      GEMINI_API_KEY: 'bench-key',
      GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
    });
    await fake.untilRequests(1);
    const first = performance.now() - t0;
    const r = await done;
    if (r.status !== 0) throw new Error(`first-request session exited ${r.status}: ${r.stderr}`);
    return first;
  } finally {
    await fake.close();
  }
}

async function timed(args: string[]): Promise<number> {
  const r = await time(args);
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.ms;
}

const POLICY_READ = [CLI, 'policy', 'check', '--tool', 'read_file', '--args', '{"file_path":"a.ts"}'];
const POLICY_SHELL = [
  CLI,
  'policy',
  'check',
  '--tool',
  'run_shell_command',
  '--args',
  '{"command":"npm test && git status"}',
];
const bare: number[] = [];
const version: number[] = [];
const help: number[] = [];
const policyRead: number[] = [];
const policyShell: number[] = [];
const first: number[] = [];
for (let i = 0; i < RUNS; i++) {
  bare.push((await time(['-e', '0'])).ms);
  version.push(await timed([CLI, '--version']));
  help.push(await timed([CLI, '--help']));
  policyRead.push(await timed(POLICY_READ));
  policyShell.push(await timed(POLICY_SHELL));
  first.push(await firstRequestMs());
}
const one: number[] = [];
const twenty: number[] = [];
for (let i = 0; i < RUNS; i++) {
  one.push(await runSession(1));
  twenty.push(await runSession(20));
}
const perTurn = (median(twenty) - median(one)) / 19;
const rss = await peakRssKb(20);

console.log(`| measure (median of ${RUNS}) | value |`);
console.log('| --- | --- |');
console.log(`| node -e 0 | ${ms(median(bare))} |`);
const vsBare = (xs: number[]) => `${ms(median(xs))} (${(median(xs) / median(bare)).toFixed(2)}x bare node)`;
console.log(`| agent-action --version | ${vsBare(version)} |`);
console.log(`| agent-action --help | ${vsBare(help)} |`);
console.log(`| agent-action policy check (read_file) | ${vsBare(policyRead)} |`);
console.log(`| agent-action policy check (a compound shell command: bash grammar loaded) | ${vsBare(policyShell)} |`);
console.log(`| process start to first model request | ${vsBare(first)} |`);
console.log(`| 1-turn session, whole process | ${ms(median(one))} |`);
console.log(`| 20-turn session, whole process | ${ms(median(twenty))} |`);
console.log(`| loop overhead per turn (20-turn minus 1-turn, / 19) | ${ms(perTurn)} |`);
console.log(`| peak RSS, 20-turn session | ${rss ? `${(rss / 1024).toFixed(1)} MiB` : 'n/a (no /usr/bin/time)'} |`);
rmSync(process.env.XDG_STATE_HOME, { recursive: true, force: true });
rmSync(work, { recursive: true, force: true });
