/**
 * Gemini CLI is the specification for ACP too: the same scripted session (a text, a read, an edit
 * that asks, a final text) through `gemini --acp` (the pinned @google/gemini-cli) and through our
 * built `agent-action --acp`, each driven by the ACP SDK's client over stdio against its own fake
 * Gemini server. What an editor ends up with must match: the capabilities it relies on, the
 * session modes, each tool call's final kind, status, locations and diff, the permission request
 * (options, ids, kinds, names, the diff it shows), the text, the stop reason and the token counts.
 * Where we differ on purpose (intermediate updates, titles, call ids, slash commands, models), the
 * README's ACP section says so.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionNotification, ToolCallContent } from '@agentclientprotocol/sdk';
import { agentText, startAcpAgent, type AcpAgentProcess } from '../support/acp-client.js';
import { GEMINI_CLI, geminiCliEnv } from '../support/cli-runner.js';
import { call, reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';

const MODEL = 'gemini-2.5-flash';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const script = (root: string) => [
  reply([text('Reading. '), call('read_file', { file_path: 'src/app.ts' })]),
  reply([
    call('replace', {
      file_path: join(root, 'src/app.ts'),
      instruction: 'make it 42',
      old_string: 'answer = 41',
      new_string: 'answer = 42',
    }),
  ]),
  reply([text('Done.')]),
];

interface Observed {
  init: unknown;
  modes: unknown;
  response: unknown;
  ed: AcpAgentProcess;
  root: string;
  fake: FakeGemini;
}

async function observe(which: 'gemini-cli' | 'agent-action'): Promise<Observed> {
  const root = createRepo({ 'src/app.ts': 'export const answer = 41;\n' }).dir;
  const home = makeTempDir('agent-action-home-');
  const fake = await startFakeGemini(script(root));
  const env =
    which === 'gemini-cli'
      ? geminiCliEnv({ baseUrl: fake.baseUrl, home })
      : { GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl, XDG_STATE_HOME: home };
  const ed = await startAcpAgent({
    env,
    cwd: root,
    ...(which === 'gemini-cli' ? { program: [GEMINI_CLI, '--acp', '-m', MODEL] } : { args: ['-m', MODEL] }),
  });
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => rmSync(home, { recursive: true, force: true }),
    () => fake.close(),
    () => ed.close(),
  );
  const init = await ed.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const session = await ed.agent.request('session/new', { cwd: root, mcpServers: [] });
  ed.permissions.answer(() => 'proceed_once');
  const response = await ed.agent.request('session/prompt', {
    sessionId: session.sessionId,
    prompt: [{ type: 'text', text: 'make the answer 42' }],
  });
  return { init, modes: session.modes, response, ed, root, fake };
}

/** Each tool call as the editor last knows it (in order of appearance), paths relative to the workspace. */
function finalCalls(updates: readonly SessionNotification[], root: string) {
  const calls = new Map<string, Record<string, unknown>>();
  for (const { update: u } of updates) {
    if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') continue;
    calls.set(u.toolCallId, {
      ...calls.get(u.toolCallId),
      ...Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)),
    });
  }
  return [...calls.values()].map((c) => ({
    kind: c.kind,
    status: c.status,
    locations: (c.locations as Array<{ path: string }> | undefined)?.map((l) => relative(root, l.path)),
    diffs: diffsOf(c.content as ToolCallContent[] | undefined, root),
  }));
}

const diffsOf = (content: ToolCallContent[] | undefined, root: string) =>
  (content ?? []).flatMap((c) =>
    c.type === 'diff' ? [{ path: relative(root, c.path), oldText: c.oldText, newText: c.newText, meta: c._meta }] : [],
  );

describe('agent-action --acp and gemini --acp, side by side', () => {
  it('give an editor the same capabilities, modes, tool calls, permission request, text and stop reason', async () => {
    const gemini = await observe('gemini-cli');
    const ours = await observe('agent-action');

    const caps = (init: unknown) => {
      const i = init as {
        protocolVersion: number;
        agentCapabilities: Record<string, unknown> & { promptCapabilities: Record<string, unknown> };
      };
      return {
        protocolVersion: i.protocolVersion,
        loadSession: i.agentCapabilities.loadSession,
        embeddedContext: i.agentCapabilities.promptCapabilities.embeddedContext,
        mcp: i.agentCapabilities.mcpCapabilities,
      };
    };
    expect(caps(ours.init)).toEqual(caps(gemini.init));
    expect(ours.modes).toEqual(gemini.modes);
    expect(ours.response).toEqual(gemini.response);

    expect(finalCalls(ours.ed.updates, ours.root)).toEqual(finalCalls(gemini.ed.updates, gemini.root));
    expect(finalCalls(ours.ed.updates, ours.root)).toEqual([
      { kind: 'read', status: 'completed', locations: ['src/app.ts'], diffs: [] },
      {
        kind: 'edit',
        status: 'completed',
        locations: ['src/app.ts'],
        diffs: [
          {
            path: 'src/app.ts',
            oldText: 'export const answer = 41;\n',
            newText: 'export const answer = 42;\n',
            meta: { kind: 'modify' },
          },
        ],
      },
    ]);

    const asked = (o: Observed) =>
      o.ed.permissions.asked.map((p) => ({
        options: p.options,
        kind: p.toolCall.kind,
        status: p.toolCall.status,
        diffs: diffsOf(p.toolCall.content ?? undefined, o.root),
      }));
    expect(asked(ours)).toEqual(asked(gemini));
    expect(asked(ours)).toHaveLength(1);

    expect(agentText(ours.ed.updates)).toBe(agentText(gemini.ed.updates));
    for (const o of [gemini, ours])
      expect(readFileSync(join(o.root, 'src/app.ts'), 'utf8')).toBe('export const answer = 42;\n');
    expect(ours.fake.requests).toHaveLength(gemini.fake.requests.length);
  });
});
