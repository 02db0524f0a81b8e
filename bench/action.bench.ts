/**
 * The action bundle (dist/index.js) as a runner starts it, on two issue comments, against the
 * loopback fake GitHub and the fake Gemini at zero latency: a question ("/agent why ...") and a
 * comment that is not for the agent (skipped: the run every other comment in a repository starts):
 * - process start to the first model request, as the fake Gemini sees it, and the whole run;
 * - what the run loaded: the bundle's chunks (bench/support/module-trace.mjs records each file the
 *   process resolves) and their bytes of JavaScript, so a question that pulls in publishing code
 *   (commits, pull requests, reviews, triage) shows up as chunks and bytes, not as noise in a time.
 * Medians of several runs; BENCH_CPU_PROF=<folder> profiles the traced run. Build first (`npm run build`). BENCH_ACTION measures another action
 * bundle (say, main's dist/index.js) with the same script, for a before/after.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { reply, startFakeGemini, text } from '../test/support/fake-gemini.js';
import { startFakeGitHub } from '../test/support/fake-github.js';
import { makeTempDir, removeTempDirs } from '../test/support/git-repo.js';
import { asUser, BUNDLE, examplePayload, retarget, runAction } from '../test/support/e2e-runner.js';
import { createJob } from '../test/support/runner-model.js';
import { recordFigures } from './support/figures.js';

const ACTION = resolve(process.env.BENCH_ACTION ?? BUNDLE);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TRACER = join(import.meta.dirname, 'support/module-trace.mjs');
// BENCH_CPU_PROF=<folder>: the traced run also writes a CPU profile there (where the milliseconds go).
const PROFILE = process.env.BENCH_CPU_PROF
  ? ` --cpu-prof --cpu-prof-interval=200 --cpu-prof-dir=${process.env.BENCH_CPU_PROF}`
  : '';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// The job a comment on an issue starts (test/support/runner-model.ts): its runs are steps of it.
const job = createJob({ 'README.md': '# hello\n', 'src/a.js': 'export const a = 1;\n' });

interface Sample {
  firstMs: number;
  wholeMs: number;
  /** Files of the bundle's folder the process loaded (the entry and its chunks). */
  files: string[];
}

type Case = 'question' | 'skip';

/** One run of the bundle on an issue comment: a question to the agent, or a comment that is not for it (skipped). */
async function actionRun(kind: Case, traced: boolean): Promise<Sample> {
  const gh = await startFakeGitHub();
  const gemini = await startFakeGemini([reply([text('`a` is 1 because src/a.js says so.')])]);
  const trace = join(makeTempDir('agent-action-bench-trace-'), 'modules.txt');
  try {
    gh.addIssue({ number: 1, title: 'What is a?', body: 'src/a.js exports a constant.', user: { login: 'reporter' } });
    const trigger = gh.addComment(1, kind === 'question' ? '/agent why is a 1?' : 'Thanks, that helps.', {
      login: 'maintainer',
    });
    const payload = retarget(examplePayload('issue_comment', 'created'), 'octo/hello');
    payload.issue.number = 1;
    delete payload.issue.pull_request;
    payload.comment.id = trigger.id;
    payload.comment.body = trigger.body;
    asUser(payload.comment.user, 'maintainer');
    asUser(payload.sender, 'maintainer');
    const t0 = performance.now();
    const running = runAction({
      eventName: 'issue_comment',
      payload,
      job,
      bundle: ACTION,
      inputs: { 'gemini-api-key': 'bench-key', 'gemini-base-url': gemini.baseUrl, model: 'gemini-2.5-flash' },
      env: {
        GITHUB_API_URL: gh.url,
        ...(traced ? { NODE_OPTIONS: `--import=${TRACER}${PROFILE}`, MODULE_TRACE: trace } : {}),
      },
    });
    await Promise.race([gemini.untilRequests(1), running]);
    const firstMs = performance.now() - t0;
    const r = await running;
    const wholeMs = performance.now() - t0;
    const expected = kind === 'question' ? 'success' : 'skipped';
    if (r.code !== 0 || r.outputs.status !== expected)
      throw new Error(
        `${kind} run: exit ${r.code}, status ${r.outputs.status} (expected ${expected}):\n${r.stdout}${r.stderr}`,
      );
    if (kind === 'question' && !gh.state.comments.some((c) => c.body.includes('`a` is 1')))
      throw new Error('the answer was not posted');
    if (kind === 'skip' && gemini.requests.length > 0) throw new Error('a skipped event asked the model');
    const dir = join(ACTION, '..');
    const files = traced
      ? [
          ...new Set(
            readFileSync(trace, 'utf8')
              .split('\n')
              .filter((f) => f.startsWith(`${dir}/`)),
          ),
        ]
      : [];
    return { firstMs, wholeMs, files };
  } finally {
    await gh.close();
    await gemini.close();
  }
}

const samples: Record<Case, Sample[]> = { question: [], skip: [] };
for (let i = 0; i < RUNS; i++)
  for (const kind of ['question', 'skip'] as const) samples[kind].push(await actionRun(kind, false));
const traced = { question: await actionRun('question', true), skip: await actionRun('skip', true) };
// The workspace, its origin and seed, the runners' temp folders and the traces.
removeTempDirs();

const kib = (files: string[]) => files.reduce((n, f) => n + statSync(f).size, 0) / 1024;
const names = (files: string[]) =>
  `${files.length}: ${files
    .map((f) => basename(f))
    .sort()
    .join(', ')}`;
const q = {
  first: median(samples.question.map((s) => s.firstMs)),
  whole: median(samples.question.map((s) => s.wholeMs)),
};
const skipWhole = median(samples.skip.map((s) => s.wholeMs));
console.log(
  `${basename(join(ACTION, '..'))}/${basename(ACTION)} on issue comments: a question to the agent, and a comment not for it (skipped); median of ${RUNS} runs.\n`,
);
console.log('| measure | question | skipped comment |');
console.log('| --- | --- | --- |');
console.log(`| process start to first model request | ${q.first.toFixed(1)} ms | — |`);
console.log(`| whole run (outputs written) | ${q.whole.toFixed(1)} ms | ${skipWhole.toFixed(1)} ms |`);
console.log(`| files of the bundle loaded | ${names(traced.question.files)} | ${names(traced.skip.files)} |`);
console.log(
  `| JavaScript loaded | ${kib(traced.question.files).toFixed(0)} KiB | ${kib(traced.skip.files).toFixed(0)} KiB |`,
);
recordFigures('action', {
  runs: RUNS,
  questionFirstMs: q.first,
  questionWholeMs: q.whole,
  questionFiles: traced.question.files.length,
  questionKiB: kib(traced.question.files),
  skipWholeMs: skipWhole,
  skipFiles: traced.skip.files.length,
  skipKiB: kib(traced.skip.files),
});
