/**
 * The world most Action end-to-end tests start from: a bare origin seeded with `files` and its
 * runner clone (createWorkspace), the fake GitHub resolving refs from that origin, and the fake
 * Gemini with the test's script. `run` starts the bundled action against them with the fake
 * Gemini's base URL and GITHUB_API_URL filled in; the test's own inputs (its model key among them)
 * and environment go on top. What a test checks stays in the test: its threads, payload and inputs.
 */
import { closeAll, commitsBetweenOf, createWorkspace, refsOf, runAction, type ActionRun, type RunActionOptions, type Workspace } from './e2e-runner.js';
import { startFakeGemini, type FakeGemini, type FakeReply } from './fake-gemini.js';
import { startFakeGitHub, type FakeGitHub } from './fake-github.js';

export interface ActionWorld {
  ws: Workspace & { shas: Record<string, string> };
  gh: FakeGitHub;
  gemini: FakeGemini;
  run(o: Omit<RunActionOptions, 'workspace'>): Promise<ActionRun>;
  /** Stops both fakes (the temporary folders go with the test file's cleanup). */
  close(): Promise<void>;
}

export async function startActionWorld(o: {
  files: Record<string, string | Buffer>;
  branches?: Record<string, Record<string, string | Buffer>>;
  checkout?: string;
  script: FakeReply[];
}): Promise<ActionWorld> {
  const ws = createWorkspace(o.files, { ...(o.branches && { branches: o.branches }), ...(o.checkout !== undefined && { checkout: o.checkout }) });
  const gh = await startFakeGitHub();
  gh.state.resolveRef = refsOf(ws.origin);
  gh.state.commitsBetween = commitsBetweenOf(ws.origin);
  const gemini = await startFakeGemini(o.script);
  return {
    ws,
    gh,
    gemini,
    run: (r) => runAction({ ...r, workspace: ws.dir, inputs: { 'gemini-base-url': gemini.baseUrl, ...r.inputs }, env: { GITHUB_API_URL: gh.url, ...r.env } }),
    close: () => closeAll(gh, gemini),
  };
}
