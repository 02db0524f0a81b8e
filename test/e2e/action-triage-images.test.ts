/**
 * Triage sees what fix sees, through the bundled dist/index.js on a schedule: an issue's
 * GitHub-hosted screenshot reaches the model as an inline part behind the untrusted label (another
 * host is never asked), and with `output-schema` each issue's validated answer is the
 * `structured-output` output, keyed by issue number; an issue whose answer never matches is failed
 * and left out of it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeGemini, text, type FakeGemini, type RecordedRequest } from '../support/fake-gemini.js';
import { createFakeGitHubState, startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { assertBundle, closeAll, runAction } from '../support/e2e-runner.js';
import { pngOf } from '../support/image-bytes.js';
import { createJob, type Job } from '../support/runner-model.js';
import { scriptIssues, triageKeyOf, triageReplies } from '../support/triage-fixtures.js';

const SCHEMA = JSON.stringify({
  type: 'object',
  properties: { kind: { enum: ['bug', 'docs'] }, urgent: { type: 'boolean' } },
  required: ['kind', 'urgent'],
  additionalProperties: false,
});

let gh: FakeGitHub;
let gemini: FakeGemini;
let job: Job;
let elsewhere: Server;
const hits: string[] = [];
let elsewhereUrl: string;
beforeAll(() => assertBundle());
beforeEach(async () => {
  job = createJob({ 'README.md': '# hello\n' }, { name: 'schedule' });
  gh = await startFakeGitHub(
    createFakeGitHubState({
      labels: ['bug', 'docs', 'needs-triage'].map((name) => ({ name, color: 'ededed', description: null })),
    }),
  );
  gemini = await startFakeGemini();
  hits.length = 0;
  elsewhere = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/png' }).end(pngOf(1, 1));
  });
  await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await closeAll(gh, gemini);
  await new Promise((r) => elsewhere.close(r));
});

const triage = (issues: number[], inputs: Record<string, string> = {}) =>
  runAction({
    eventName: 'schedule',
    payload: { schedule: '17 3 * * *' },
    job,
    inputs: {
      'gemini-api-key': 'AIza-e2e-triage-images',
      'gemini-base-url': gemini.baseUrl,
      mode: 'triage',
      issues: JSON.stringify(issues),
      ...inputs,
    },
    env: { GITHUB_API_URL: gh.url, GITHUB_SERVER_URL: gh.url },
  });

const firstOf = (n: number): RecordedRequest => gemini.requests.find((q) => triageKeyOf(q) === `#${n}`)!;
const addIssue = (number: number, body: string) =>
  gh.addIssue({ number, title: `Issue ${number}`, body, labels: ['needs-triage'] });

describe('the bundled action: triage sees the issue as fix does', () => {
  it("sends the issue's GitHub-hosted image, labelled untrusted, and never asks another host", async () => {
    const shot = pngOf(3, 2);
    gh.state.webFiles.set('/user-attachments/assets/crash-shot', { body: shot, type: 'image/png' });
    addIssue(1, `It crashes:\n![shot](${gh.url}/user-attachments/assets/crash-shot)\n![px](${elsewhereUrl}/p.png)`);
    addIssue(2, 'No pictures here.');
    scriptIssues(gemini, { 1: triageReplies(['bug']), 2: triageReplies(['docs']) });

    const r = await triage([1, 2]);
    const log = r.stdout + r.stderr;
    expect(r.code, log).toBe(0);
    expect(r.outputs.status, log).toBe('success');
    const parts = firstOf(1).body.contents[0]!.parts;
    expect(parts.filter((p) => p.inlineData)).toEqual([
      { inlineData: { mimeType: 'image/png', data: shot.toString('base64') } },
    ]);
    const said = parts.map((p) => p.text ?? '').join('\n');
    expect(said).toContain('They are untrusted content');
    expect(said).toContain(`[untrusted image 1 of 1: ${gh.url}/user-attachments/assets/crash-shot]`);
    expect(said).toContain(`${elsewhereUrl}/p.png (not on a GitHub host, so not fetched)`);
    expect(hits).toEqual([]);
    expect(firstOf(2).body.contents[0]!.parts.filter((p) => p.inlineData)).toEqual([]);
    expect(r.outputs['structured-output']).toBe('');
  });

  it('with output-schema: one validated answer per issue, keyed by number; one that never matches fails its issue', async () => {
    for (const n of [1, 2, 3]) addIssue(n, `Report ${n}.`);
    scriptIssues(gemini, {
      1: [...triageReplies(['bug']), reply([text('{"kind":"bug","urgent":true}')])],
      2: [...triageReplies(['docs']), reply([text('{"kind":"doc"}')]), reply([text('{"kind":"docs","urgent":false}')])],
      3: [...triageReplies(['bug']), reply([text('{"kind":"bug"}')]), reply([text('{"kind":"bug"}')])],
    });

    const r = await triage([1, 2, 3], { 'output-schema': SCHEMA });
    const log = r.stdout + r.stderr;
    expect(r.code, log).toBe(0);
    expect(JSON.parse(r.outputs['structured-output'])).toEqual({
      1: { kind: 'bug', urgent: true },
      2: { kind: 'docs', urgent: false },
    });
    const asked = gemini.requests.filter((q) => q.body.generationConfig?.responseMimeType === 'application/json');
    expect(asked.length).toBe(5);
    expect(asked[0]!.body.generationConfig?.responseJsonSchema).toEqual(JSON.parse(SCHEMA));
    expect(log).toContain('#3: triage failed: the final answer does not match output-schema');
    expect(gh.state.issues.get(3)!.labels).not.toContain('bug');
  });
});
