/**
 * What the bundled action loads before it knows there is work (issue #16, issue 27): routing is the
 * one seam. A comment that is not for the agent is skipped by the entry alone, without the run's
 * code (publishing, triage, approvals), which stays behind one `import()` in main.ts. The test copies
 * dist/index.js and only the chunks that hold none of that code into a fresh package folder and
 * runs the skipped comment there, as a runner would: a static import that pulls the run's code into
 * the entry makes the first test or the run fail. Build first (`npm run build`).
 */
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { makeTempDir } from '../support/git-repo.js';
import { BUNDLE, issueCommentPayload, runAction } from '../support/e2e-runner.js';
import { createJob } from '../support/runner-model.js';

const ROOT = join(import.meta.dirname, '../..');
const DIST = join(BUNDLE, '..');
const NODE24 = join(ROOT, 'test/node24/node_modules/.bin/node');

/**
 * Functions of the code a question must not load, found by the names the bundle keeps: the build
 * minifies with esbuild's keepNames, so a function defined in a file is named there in a string
 * (`x(f,"publishChanges")`); an unminified build declares it (`function publishChanges(`).
 */
const NOT_FOR_ROUTING = [
  'publishChanges',
  'publishIssueFix',
  'commitWorktree',
  'publishReview',
  'publishLabels',
  'runTriagePlan',
  'suspendSession',
  'tellRefusedReplier',
];
const holds = (code: string) =>
  NOT_FOR_ROUTING.filter((name) => new RegExp(`function \\w*${name}\\(|,"${name}"\\)`).test(code));
const chunksOf = (dir: string) => readdirSync(dir).filter((f) => /^\d+\.index\.js$/.test(f));

let gh: FakeGitHub;
let gemini: FakeGemini;
beforeAll(async () => {
  gh = await startFakeGitHub();
  gemini = await startFakeGemini([]);
});
afterAll(async () => {
  await gh?.close();
  await gemini?.close();
});

describe('the action bundle loads only what a command needs', () => {
  it('keeps publishing, triage and approvals out of the entry file, in chunks of their own', () => {
    expect(holds(readFileSync(BUNDLE, 'utf8'))).toEqual([]);
    const found = new Set(chunksOf(DIST).flatMap((f) => holds(readFileSync(join(DIST, f), 'utf8'))));
    // Each is in the bundle (in some chunk), so the names this test looks for are the bundle's.
    expect([...found].sort()).toEqual([...NOT_FOR_ROUTING].sort());
  });

  it('skips a comment that is not for the agent from a dist/ without those chunks', async () => {
    const pkg = makeTempDir('action-startup-');
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: 'agent-action', version: '0.1.0', type: 'module' }),
    );
    const dist = join(pkg, 'dist');
    mkdirSync(dist);
    cpSync(join(DIST, 'policies'), join(dist, 'policies'), { recursive: true });
    for (const f of ['index.js', 'package.json']) copyFileSync(join(DIST, f), join(dist, f));
    const left: string[] = [];
    for (const f of chunksOf(DIST)) {
      if (holds(readFileSync(join(DIST, f), 'utf8')).length === 0) copyFileSync(join(DIST, f), join(dist, f));
      else left.push(f);
    }
    expect(left.length).toBeGreaterThan(0);

    const job = createJob({ 'src/a.js': 'export const a = 1;\n' });
    gh.addIssue({ number: 1, title: 'What is a?', body: 'src/a.js exports a constant.', user: { login: 'reporter' } });
    const comment = gh.addComment(1, 'Thanks, that explains it.', { login: 'maintainer' });
    const r = await runAction({
      node: NODE24,
      eventName: 'issue_comment',
      payload: issueCommentPayload(1, { id: comment.id, body: comment.body }),
      job,
      bundle: join(dist, 'index.js'),
      inputs: { 'gemini-api-key': 'AIza-startup-0000', 'gemini-base-url': gemini.baseUrl },
      env: { GITHUB_API_URL: gh.url },
    });
    expect(r.stderr).not.toMatch(/Cannot find module|ERR_MODULE_NOT_FOUND/);
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(gemini.requests).toHaveLength(0);
    expect(gh.state.comments.filter((c) => c.issue_number === 1)).toHaveLength(1);
  });
});
