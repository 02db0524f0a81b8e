/**
 * The editor face's plan and custom commands: the ACP SDK's client against the built CLI
 * (dist/cli/index.js --acp) and the fake Gemini. write_todos shows as `plan` updates (live and on
 * session/load); the custom commands of ~/.gemini/commands, the project's and an extension's are
 * listed with `available_commands_update`, and a `/name args` prompt reaches the model expanded,
 * its `!{}` through policy. Build first (`npm run build`).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { clientCapabilitiesOf, startAcpAgent, type AcpAgentProcess } from '../support/acp-client.js';
import { call, reply, startFakeGemini, text, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { createRepo, makeTempDir, writeFiles } from '../support/git-repo.js';

const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(() => {
  if (!existsSync(join(process.cwd(), 'dist/cli/index.js')))
    throw new Error('dist/cli/index.js is missing: run `npm run build` first');
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface World {
  root: string;
  fake: FakeGemini;
  env: Record<string, string>;
}

async function world(script: FakeReply[], project: Record<string, string> = {}): Promise<World> {
  const root = createRepo({ 'README.md': '# demo\n', 'notes.md': 'the notes\n', ...project }).dir;
  const home = makeTempDir('agent-action-acp-home-');
  const state = makeTempDir('agent-action-state-');
  writeFiles(home, {
    '.gemini/commands/hello.toml': 'description = "Say hello"\nprompt = "Hello from the user: {{args}}"\n',
    '.gemini/extensions/style/gemini-extension.json': JSON.stringify({ name: 'style', version: '0.1.0' }),
    '.gemini/extensions/style/commands/lint/all.toml': 'prompt = "Lint everything"\n',
  });
  const fake = await startFakeGemini(script);
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => rmSync(home, { recursive: true, force: true }),
    () => rmSync(state, { recursive: true, force: true }),
    () => fake.close(),
  );
  const env = { HOME: home, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl, XDG_STATE_HOME: state };
  return { root, fake, env };
}

async function editor(w: World): Promise<AcpAgentProcess> {
  const ed = await startAcpAgent({ env: w.env, cwd: w.root, args: ['--sandbox', 'required'] });
  cleanups.push(async () => {
    if (ed.child.exitCode === null && ed.child.signalCode === null) await ed.close();
  });
  await ed.agent.request('initialize', { protocolVersion: 1, clientCapabilities: clientCapabilitiesOf({}) });
  return ed;
}

const prompt = (ed: AcpAgentProcess, sessionId: string, t: string) =>
  ed.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: t }] });
const ofKind = (ed: AcpAgentProcess, kind: SessionUpdate['sessionUpdate']) =>
  ed.updates.map((n) => n.update).filter((u) => u.sessionUpdate === kind);
const lastUserText = (w: World) =>
  (w.fake.requests.at(-1)?.body.contents.at(-1)?.parts ?? []).map((p) => p.text ?? '').join('');

const PLAN = [
  { description: 'Read the notes', status: 'in_progress' },
  { description: 'Ask about the deadline', status: 'blocked' },
  { description: 'Write the summary', status: 'pending' },
];
const DONE = [
  { description: 'Read the notes', status: 'completed' },
  { description: 'Ask about the deadline', status: 'cancelled' },
  { description: 'Write the summary', status: 'in_progress' },
];
const entry = (content: string, status: string) => ({ content, priority: 'medium', status });

describe('agent-action --acp: the live plan', () => {
  it('sends a plan after each write_todos, and the latest again on session/load', async () => {
    const w = await world([
      reply([text('Planning.'), call('write_todos', { todos: PLAN })]),
      reply([call('write_todos', { todos: DONE })]),
      reply([text('Done.')]),
    ]);
    const first = await editor(w);
    const { sessionId } = await first.agent.request('session/new', { cwd: w.root, mcpServers: [] });
    expect((await prompt(first, sessionId, 'summarize the notes')).stopReason).toBe('end_turn');
    const plans = ofKind(first, 'plan');
    expect(plans).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          entry('Read the notes', 'in_progress'),
          entry('Ask about the deadline', 'pending'),
          entry('Write the summary', 'pending'),
        ],
      },
      {
        sessionUpdate: 'plan',
        entries: [entry('Read the notes', 'completed'), entry('Write the summary', 'in_progress')],
      },
    ]);
    // Each plan follows its call's result, never before.
    const all = first.updates.map((n) => n.update);
    const firstDone = all.findIndex((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    expect(firstDone).toBeGreaterThan(-1);
    expect(all.findIndex((u) => u.sessionUpdate === 'plan')).toBeGreaterThan(firstDone);
    await first.close();

    const second = await editor(w);
    await second.agent.request('session/load', { sessionId, cwd: w.root, mcpServers: [] });
    const replayed = second.updates.map((n) => n.update);
    const at = replayed.findIndex((u) => u.sessionUpdate === 'plan');
    expect(replayed.filter((u) => u.sessionUpdate === 'plan')).toEqual([plans[1]]);
    // The plan comes after the history it was written in.
    expect(replayed.slice(0, at).filter((u) => u.sessionUpdate === 'tool_call')).toHaveLength(2);
  });
});

describe('agent-action --acp: custom commands', () => {
  const project = {
    '.gemini/commands/sync.toml':
      'description = "Sync the notes"\nprompt = "project sync {{args}}: !{echo {{args}}} @{notes.md}"\n',
    '.gemini/commands/wipe.toml': 'prompt = "!{rm -rf notes.md}"\n',
    '.gemini/policies/shell.toml':
      '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo"\ndecision = "allow"\npriority = 100\n\n' +
      '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\npriority = 100\ndenyMessage = "Nothing is deleted here."\n',
  };

  it('lists the commands after session/new and session/load, with their descriptions and input hints', async () => {
    const w = await world([reply([text('ok')])], project);
    const ed = await editor(w);
    const { sessionId } = await ed.agent.request('session/new', { cwd: w.root, mcpServers: [] });
    const update = await ed.waitForUpdate((u) => u.sessionUpdate === 'available_commands_update');
    expect(ed.updates.find((n) => n.update === update)?.sessionId).toBe(sessionId);
    const listed = update.sessionUpdate === 'available_commands_update' ? update.availableCommands : [];
    expect(listed.map((c) => c.name).sort()).toEqual(['hello', 'lint:all', 'sync', 'wipe']);
    expect(listed.find((c) => c.name === 'sync')).toEqual({
      name: 'sync',
      description: 'Sync the notes',
      input: { hint: 'arguments' },
    });
    expect(listed.find((c) => c.name === 'lint:all')?.description).toMatch(/^\[style\] /);
    expect((await prompt(ed, sessionId, 'hi')).stopReason).toBe('end_turn');
    await ed.close();

    const again = await editor(w);
    await again.agent.request('session/load', { sessionId, cwd: w.root, mcpServers: [] });
    expect(ofKind(again, 'available_commands_update')).toEqual([update]);
  });

  it('expands a /name args prompt before the model sees it: {{args}}, a !{} policy allows (under --sandbox required), and @{file}', async () => {
    const w = await world([reply([text('synced')]), reply([text('hello back')])], project);
    const ed = await editor(w);
    const { sessionId } = await ed.agent.request('session/new', { cwd: w.root, mcpServers: [] });
    expect((await prompt(ed, sessionId, '/sync  the   main branch')).stopReason).toBe('end_turn');
    expect(lastUserText(w)).toContain('project sync the main branch: the main branch');
    expect(lastUserText(w)).toContain('the notes');
    expect(lastUserText(w)).not.toContain('!{');
    expect((await prompt(ed, sessionId, '/hello there')).stopReason).toBe('end_turn');
    expect(lastUserText(w)).toBe('Hello from the user: there');
  });

  it('refuses a /name whose !{} policy denies, with the reason, and runs nothing', async () => {
    const w = await world([reply([text('ok')])], project);
    const ed = await editor(w);
    const { sessionId } = await ed.agent.request('session/new', { cwd: w.root, mcpServers: [] });
    const refused = await prompt(ed, sessionId, '/wipe').then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(refused?.code).toBe(-32602);
    expect(refused?.message).toContain('custom command /wipe');
    expect(refused?.message).toContain('policy denies it');
    expect(refused?.message).toContain('Nothing is deleted here.');
    expect(w.fake.requests).toEqual([]);
    expect(readFileSync(join(w.root, 'notes.md'), 'utf8')).toBe('the notes\n');
    // The session goes on: an unknown /name reaches the model as typed.
    expect((await prompt(ed, sessionId, '/nosuch thing')).stopReason).toBe('end_turn');
    expect(lastUserText(w)).toBe('/nosuch thing');
  });
});
