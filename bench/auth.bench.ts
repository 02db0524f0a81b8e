/**
 * The first model request of the action bundle (dist/index.js) by how it reaches Gemini (issue 28):
 * a Gemini API key (the fetch build of the SDK, as before), a Vertex API key (express mode, the
 * same build) and Vertex AI with a service-account key file (the SDK's Node build and
 * google-auth-library, imported only then; the JWT goes to the loopback fake token endpoint, so the
 * figure includes signing it and the token round trip at zero latency). Per mode: process start to
 * the first request the fake Gemini sees, and the bundle's files and KiB of JavaScript the run
 * loaded (bench/support/module-trace.mjs). A question on an issue comment, medians of BENCH_RUNS.
 * Build first (`npm run build`); `npm run bench -- auth` runs this section alone.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { reply, startFakeGemini, text } from '../test/support/fake-gemini.js';
import { startFakeGitHub } from '../test/support/fake-github.js';
import { startFakeGoogleAuth } from '../test/support/fake-google-auth.js';
import { makeTempDir, removeTempDirs } from '../test/support/git-repo.js';
import { BUNDLE, issueCommentPayload, runAction } from '../test/support/e2e-runner.js';
import { createJob } from '../test/support/runner-model.js';
import { recordFigures } from './support/figures.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TRACER = join(import.meta.dirname, 'support/module-trace.mjs');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Mode = 'api-key' | 'vertex-key' | 'vertex-adc';
const MODES: Mode[] = ['api-key', 'vertex-key', 'vertex-adc'];
const LABEL: Record<Mode, string> = {
  'api-key': 'Gemini API key',
  'vertex-key': 'Vertex AI, API key (express)',
  'vertex-adc': 'Vertex AI, service-account key file',
};

const job = createJob({ 'README.md': '# hello\n', 'src/a.js': 'export const a = 1;\n' });
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

async function once(mode: Mode, traced: boolean): Promise<{ firstMs: number; files: string[] }> {
  const gh = await startFakeGitHub();
  const gemini = await startFakeGemini([reply([text('`a` is 1.')])]);
  const auth = await startFakeGoogleAuth();
  auth.trust(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  const dir = makeTempDir('agent-action-bench-auth-');
  const trace = join(dir, 'modules.txt');
  const keyFile = join(dir, 'gha-creds-bench.json');
  writeFileSync(
    keyFile,
    JSON.stringify({
      type: 'service_account',
      project_id: 'bench-project',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: 'bench@bench-project.iam.gserviceaccount.com',
      token_uri: auth.tokenUri,
    }),
  );
  const inputs: Record<Mode, Record<string, string>> = {
    'api-key': { 'gemini-api-key': 'AIza-bench-key-0000' },
    'vertex-key': { 'gemini-api-key': 'AQ.bench-vertex-key-0000', 'use-vertex-ai': 'true' },
    'vertex-adc': { 'use-vertex-ai': 'true', 'google-cloud-location': 'us-central1' },
  };
  try {
    gh.addIssue({ number: 1, title: 'What is a?' });
    const c = gh.addComment(1, '/agent why is a 1?', { login: 'maintainer' });
    const t0 = performance.now();
    const running = runAction({
      eventName: 'issue_comment',
      payload: issueCommentPayload(1, { id: c.id, body: c.body }),
      job,
      inputs: { ...inputs[mode], 'gemini-base-url': gemini.baseUrl, model: 'gemini-2.5-flash' },
      env: {
        GITHUB_API_URL: gh.url,
        ...(mode === 'vertex-adc' && { GOOGLE_APPLICATION_CREDENTIALS: keyFile }),
        ...(traced ? { NODE_OPTIONS: `--import=${TRACER}`, MODULE_TRACE: trace } : {}),
      },
    });
    await Promise.race([gemini.untilRequests(1), running]);
    const firstMs = performance.now() - t0;
    const r = await running;
    if (r.code !== 0 || r.outputs.status !== 'success' || gemini.requests.length !== 1)
      throw new Error(`${mode}: exit ${r.code}, status ${r.outputs.status}:\n${r.stdout}${r.stderr}`);
    const bundleDir = join(BUNDLE, '..');
    const files = traced
      ? [
          ...new Set(
            readFileSync(trace, 'utf8')
              .split('\n')
              .filter((f) => f.startsWith(`${bundleDir}/`)),
          ),
        ]
      : [];
    return { firstMs, files };
  } finally {
    await Promise.all([gh.close(), gemini.close(), auth.close()]);
  }
}

const first: Record<Mode, number[]> = { 'api-key': [], 'vertex-key': [], 'vertex-adc': [] };
for (let i = 0; i < RUNS; i++) for (const m of MODES) first[m].push((await once(m, false)).firstMs);
const loaded = {} as Record<Mode, string[]>;
for (const m of MODES) loaded[m] = (await once(m, true)).files;
removeTempDirs();

const kib = (files: string[]) => files.reduce((n, f) => n + statSync(f).size, 0) / 1024;
console.log(`dist/${basename(BUNDLE)} on a question, by how it reaches Gemini; median of ${RUNS} runs.\n`);
console.log('| mode | process start to first model request | files of the bundle loaded | JavaScript loaded |');
console.log('| --- | ---: | ---: | ---: |');
for (const m of MODES)
  console.log(
    `| ${LABEL[m]} | ${median(first[m]).toFixed(1)} ms | ${loaded[m].length} | ${kib(loaded[m]).toFixed(0)} KiB |`,
  );
recordFigures('auth', {
  runs: RUNS,
  ...Object.fromEntries(
    MODES.flatMap((m) => [
      [`${m}FirstMs`, median(first[m])],
      [`${m}KiB`, kib(loaded[m])],
    ]),
  ),
});
