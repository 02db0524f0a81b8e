/**
 * Hooks at the loop's points, for real: the agent prepared as the faces prepare it (policy, tools,
 * the sandbox, the hook system), the real SDK against the fake Gemini, fixture scripts in the
 * sandbox. What the model received is read back from the fake's recorded requests.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prepareAgent, type Agent } from '../../src/compose/prepare-agent.js';
import type { LoopEvent } from '../../src/core/events.js';
import { parseHooks } from '../../src/hooks/config.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { runLoop } from '../../src/core/loop.js';
import { createHookSystem } from '../../src/hooks/hook-system.js';
import { createGeminiClient } from '../../src/model/gemini.js';
import { fakeScheduler, makeDeps, newState, userText } from '../core/helpers.js';
import { REPO_ROOT } from '../support/e2e-runner.js';
import { call, reply, startFakeGemini, text, usage, type FakeGemini } from '../support/fake-gemini.js';
import { makeTempDir } from '../support/git-repo.js';

const TOKEN = 'hook-test-token-0123456789';
let sandbox: Sandbox;
let gemini: FakeGemini | undefined;
let agent: Agent | undefined;

beforeAll(async () => {
  sandbox = createSandbox({ mode: 'required', hostEnv: {} });
  const s = await sandbox.status();
  if (s.kind !== 'sandboxed')
    throw new Error(`bubblewrap is needed for these tests (.ci/run installs it): ${JSON.stringify(s)}`);
});
afterEach(async () => {
  await agent?.close();
  await gemini?.close();
  agent = undefined;
  gemini = undefined;
});

const script = (name: string, extra: Record<string, unknown> = {}) => ({
  type: 'command',
  command: name.endsWith('.mjs')
    ? `node $GEMINI_PROJECT_DIR/.gemini/hooks/${name}`
    : `$GEMINI_PROJECT_DIR/.gemini/hooks/${name}`,
  ...extra,
});
const inline = (json: unknown) => ({ type: 'command', command: `echo '${JSON.stringify(json)}'` });

async function start(hooks: Record<string, unknown>, replies: Parameters<typeof startFakeGemini>[0], policy = '') {
  const ws = makeTempDir('agent-action-loop-hooks-');
  mkdirSync(join(ws, '.gemini/hooks'), { recursive: true });
  writeFileSync(join(ws, 'README.md'), '# loop hooks\n');
  for (const f of readdirSync(join(REPO_ROOT, 'test/fixtures/hooks')))
    copyFileSync(join(REPO_ROOT, 'test/fixtures/hooks', f), join(ws, '.gemini/hooks', f));
  const { groups, problems } = parseHooks(hooks, 'test settings');
  expect(problems).toEqual([]);
  gemini = await startFakeGemini(replies);
  agent = await prepareAgent({
    model: { name: 'gemini-2.5-flash', apiKey: 'AIza-loop-hooks', baseUrl: gemini.baseUrl },
    workspace: { root: ws, memoryRoot: ws },
    policy: { context: 'action', mode: 'default', user: policy ? [{ inline: policy, label: 'test policy' }] : [] },
    task: { command: 'prompt' },
    limits: { maxTurns: 10 },
    secrets: [TOKEN],
    io: { channel: { decide: async () => 'defer' } },
    commands: { sandbox, baseEnv: { PATH: process.env.PATH, HOOK_TEST_TOKEN: TOKEN } },
    extensions: { hooks: groups, graceMs: 200 },
  });
  const events: LoopEvent[] = [];
  return { ws, events, run: (prompt: string) => agent!.start(prompt, (e) => events.push(e)) };
}

const userTexts = (g: FakeGemini, i: number) =>
  g.requests[i]!.body.contents.filter((c) => c.role === 'user').map((c) =>
    c.parts.map((p) => String(p.text ?? '')).join(' | '),
  );
const logOf = (ws: string) =>
  existsSync(join(ws, 'hook-log.jsonl'))
    ? readFileSync(join(ws, 'hook-log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

describe('hooks around the loop', () => {
  it('SessionStart context goes before the prompt, BeforeAgent context after it, both fenced and escaped', async () => {
    const t = await start(
      {
        SessionStart: [{ matcher: 'startup', hooks: [script('context.mjs')] }],
        BeforeAgent: [{ hooks: [script('context.mjs')] }],
      },
      [reply([text('Done.')])],
    );
    const run = await t.run('Summarize the repository.');
    expect(run.outcome).toEqual({ status: 'success', finalText: 'Done.' });
    expect(userTexts(gemini!, 0)).toEqual([
      '<hook_context>SessionStart hook checked startup &lt;ok&gt;</hook_context>\n\nSummarize the repository. | <hook_context>BeforeAgent hook checked the prompt &lt;ok&gt;</hook_context>',
    ]);
  });

  it('BeforeAgent exit 2: the prompt is not sent and the run says why', async () => {
    const t = await start({ BeforeAgent: [{ hooks: [script('block.sh')] }] }, [reply([text('never')])]);
    const run = await t.run('Do something.');
    expect(run.outcome).toMatchObject({
      status: 'error',
      error: { message: "a BeforeAgent hook blocked the prompt: blocked by the team's hook: no network tools in CI" },
    });
    expect(gemini!.requests).toHaveLength(0);
  });

  it('BeforeModel adds a message to each request (not to the saved history); BeforeToolSelection NONE sends no tools', async () => {
    const t = await start(
      {
        BeforeModel: [{ hooks: [script('add-message.mjs')] }],
        BeforeToolSelection: [{ hooks: [inline({ hookSpecificOutput: { toolConfig: { mode: 'NONE' } } })] }],
      },
      [reply([text('Done.')])],
    );
    const run = await t.run('Hello.');
    expect(userTexts(gemini!, 0)).toEqual(['Hello.', 'Reminder from a hook: 1 messages so far.']);
    expect(gemini!.requests[0]!.body.tools).toBeUndefined();
    expect(run.state.history.map((c) => c.role)).toEqual(['user', 'model']);
  });

  it('BeforeToolSelection ANY with names: the request forces a call of those tools', async () => {
    const t = await start(
      {
        BeforeToolSelection: [
          {
            hooks: [
              inline({ hookSpecificOutput: { toolConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] } } }),
            ],
          },
        ],
      },
      [reply([text('Done.')])],
    );
    await t.run('Hello.');
    expect(gemini!.requests[0]!.body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] },
    });
  });

  it('BeforeModel blocks with a stand-in reply: the model is not asked and the stand-in is the answer', async () => {
    const t = await start(
      {
        BeforeModel: [
          {
            hooks: [
              inline({
                decision: 'deny',
                reason: 'offline',
                hookSpecificOutput: {
                  llm_response: { candidates: [{ content: { role: 'model', parts: ['Cached answer.'] } }] },
                },
              }),
            ],
          },
        ],
      },
      [],
    );
    const run = await t.run('Hello.');
    expect(run.outcome).toEqual({ status: 'success', finalText: 'Cached answer.' });
    expect(gemini!.requests).toHaveLength(0);
  });

  it('AfterModel exit 2: the reply is refused and the run ends saying which hook and why', async () => {
    const t = await start({ AfterModel: [{ hooks: [script('block.sh')] }] }, [
      reply([text('Something the team’s filter refuses.')]),
    ]);
    const run = await t.run('Hello.');
    expect(run.outcome).toMatchObject({
      status: 'error',
      error: {
        message: expect.stringContaining(
          "the model's reply was blocked by an AfterModel hook: blocked by the team's hook",
        ),
      },
    });
  });

  it('AfterAgent rejects the first final reply: its reason goes back as a prompt, and the retry is accepted', async () => {
    const t = await start({ AfterAgent: [{ hooks: [script('demand-tests.mjs')] }] }, [
      reply([text('All done.')]),
      reply([text('Tests pass; done.')]),
    ]);
    const run = await t.run('Fix it.');
    expect(run.outcome).toEqual({ status: 'success', finalText: 'Tests pass; done.' });
    expect(userTexts(gemini!, 1).at(-1)).toBe('Run the tests before you finish (you said: All done.)');
  });

  it('continue: false from BeforeTool ends the run there, successfully, with the reason', async () => {
    const t = await start(
      { BeforeTool: [{ hooks: [inline({ continue: false, stopReason: 'the change window is closed' })] }] },
      [reply([call('read_file', { file_path: 'README.md' })]), reply([text('never asked')])],
      '[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 100\n',
    );
    const run = await t.run('Read it.');
    expect(run.outcome).toEqual({
      status: 'success',
      finalText: 'Agent execution stopped by hook: the change window is closed',
    });
    expect(gemini!.requests).toHaveLength(1);
  });

  it('every hook run is an event (for the job summary); SessionEnd runs when the agent closes; no hook sees a credential', async () => {
    const t = await start(
      {
        SessionStart: [{ hooks: [script('log.mjs')] }],
        SessionEnd: [{ hooks: [script('log.mjs')] }],
        PreCompress: [{ hooks: [script('log.mjs')] }],
      },
      [reply([text('Done.')])],
    );
    await t.run('Hi.');
    await agent!.close();
    const log = logOf(t.ws);
    expect(log.map((e) => [e.hook_event_name, e.source ?? e.reason])).toEqual([
      ['SessionStart', 'startup'],
      ['SessionEnd', 'exit'],
    ]);
    expect(log.every((e) => e.env_token === null)).toBe(true);
    expect(t.events.filter((e) => e.type === 'hook')).toEqual([
      expect.objectContaining({ type: 'hook', event: 'SessionStart', outcome: 'ok', exitCode: 0 }),
      expect.objectContaining({ type: 'hook', event: 'SessionEnd', outcome: 'ok', exitCode: 0 }),
    ]);
  });

  it('PreCompress fires before the history is compressed; the compression request itself runs no model hooks', async () => {
    const ws = makeTempDir('agent-action-compress-hooks-');
    mkdirSync(join(ws, '.gemini/hooks'), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'test/fixtures/hooks/log.mjs'), join(ws, '.gemini/hooks/log.mjs'));
    const { groups } = parseHooks(
      { PreCompress: [{ hooks: [script('log.mjs')] }], BeforeModel: [{ hooks: [script('log.mjs')] }] },
      'test settings',
    );
    const system = createHookSystem({ groups, sandbox, workspace: ws, env: { PATH: process.env.PATH ?? '' } });
    system.attach('s1', () => undefined);
    gemini = await startFakeGemini([
      reply([call('read_file', { file_path: 'a.ts' })], { usage: usage(100, 10) }),
      reply([call('read_file', { file_path: 'b.ts' })], { usage: usage(600, 10) }),
      reply([text('<state_snapshot>x</state_snapshot>')], { usage: usage(400, 50) }), // the compression call
      reply([text('done')], { usage: usage(200, 5) }),
    ]);
    const model = createGeminiClient({ apiKey: 'k', baseUrl: gemini.baseUrl, model: 'gemini-2.5-flash' });
    const deps = makeDeps(gemini, fakeScheduler().scheduler, {
      contextWindow: 1000,
      hooks: system,
      model: system.wrapModel(model),
      compressionModel: model,
    });
    const outcome = await runLoop(
      { state: newState(), input: userText(`task: ${'x'.repeat(2000)}`) },
      deps,
      () => undefined,
    );
    expect(outcome).toEqual({ status: 'success', finalText: 'done' });
    expect(gemini.requests).toHaveLength(4);
    expect(logOf(ws).map((e) => e.hook_event_name)).toEqual([
      'BeforeModel',
      'BeforeModel',
      'PreCompress',
      'BeforeModel',
    ]);
    expect(logOf(ws)[2]).toMatchObject({ trigger: 'auto' });
  });
});
