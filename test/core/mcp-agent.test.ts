/**
 * MCP servers in a whole run: the agent prepared as the faces prepare it, settings.json read by
 * readExtensionSettings, the SDK-built test server in the sandbox, the real SDK against the fake
 * Gemini. What the model was offered and sent back is read from the fake's recorded requests.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prepareAgent, type Agent } from '../../src/compose/prepare-agent.js';
import type { LoopEvent } from '../../src/core/events.js';
import { readExtensionSettings } from '../../src/core/settings-extensions.js';
import type { ApprovalMode } from '../../src/policy/types.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import type { McpStartMode } from '../../src/tools/mcp/manager.js';
import { call, reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { REPO_ROOT } from '../support/e2e-runner.js';
import { makeTempDir } from '../support/git-repo.js';
import { bundleTestServer } from '../support/mcp-server.js';

let sandbox: Sandbox;
let ws: string;
let gemini: FakeGemini | undefined;
let agent: Agent | undefined;

beforeAll(async () => {
  sandbox = createSandbox({ mode: 'required', hostEnv: {} });
  const s = await sandbox.status();
  if (s.kind !== 'sandboxed')
    throw new Error(`bubblewrap is needed for these tests (.ci/run installs it): ${JSON.stringify(s)}`);
  ws = makeTempDir('agent-action-mcp-agent-');
  await bundleTestServer(join(ws, 'srv/server.mjs'));
});
afterEach(async () => {
  await agent?.close();
  await gemini?.close();
  agent = undefined;
  gemini = undefined;
});

async function prepare(
  settings: Record<string, unknown>,
  replies: Parameters<typeof startFakeGemini>[0],
  o: { start?: McpStartMode; mode?: ApprovalMode } = {},
) {
  mkdirSync(join(ws, '.gemini'), { recursive: true });
  writeFileSync(join(ws, '.gemini/settings.json'), JSON.stringify(settings));
  const ext = readExtensionSettings({
    layers: [{ label: '.gemini/settings.json', origin: 'repository', value: settings }],
    env: { PATH: process.env.PATH ?? '' },
  });
  expect(ext.warnings).toEqual([]);
  gemini = await startFakeGemini(replies);
  agent = await prepareAgent({
    model: { name: 'gemini-2.5-flash', apiKey: 'AIza-mcp-agent', baseUrl: gemini.baseUrl },
    workspace: { root: ws, memoryRoot: ws },
    policy: { context: 'action', mode: o.mode ?? 'default', workspace: ext.policy.workspace, user: ext.policy.user },
    task: { command: 'prompt' },
    limits: { maxTurns: 10 },
    secrets: [],
    io: { channel: { decide: async () => 'defer' } },
    commands: { sandbox, baseEnv: { PATH: process.env.PATH } },
    extensions: {
      mcp: { servers: ext.servers, selection: ext.selection, start: o.start ?? 'eager' },
      hooks: ext.hooks,
      graceMs: 200,
    },
  });
  const events: LoopEvent[] = [];
  return { events, run: (prompt: string) => agent!.start(prompt, (e) => events.push(e)) };
}

const server = (extra: Record<string, unknown> = {}) => ({ command: 'node', args: ['srv/server.mjs', 't'], ...extra });
const declared = (g: FakeGemini, i: number) =>
  (g.requests[i]!.body.tools?.[0]?.functionDeclarations ?? []).map((d) => d.name);
const responsesOf = (g: FakeGemini, i: number) => g.requests[i]!.body.contents.at(-1)!.parts;

describe('MCP servers in a run', () => {
  it('a trusted server: its tools are offered, its calls allowed by the rule trust implies, results and images sent back', async () => {
    const t = await prepare({ mcpServers: { t: server({ trust: true }) } }, [
      reply([call('mcp_t_echo', { text: 'ping' })]),
      reply([call('mcp_t_image', {})]),
      reply([text('Done.')]),
    ]);
    const run = await t.run('Use the server.');
    expect(run.outcome).toEqual({ status: 'success', finalText: 'Done.' });
    const [response, image] = responsesOf(gemini!, 2);
    expect(response).toEqual({
      functionResponse: {
        name: 'mcp_t_image',
        response: {
          output:
            "<untrusted_context>\none pixel:\n</untrusted_context>\n[Tool 'image' provided the following image data with mime-type: image/png]",
        },
      },
    });
    expect(image).toEqual({ inlineData: { mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) } });
    expect(declared(gemini!, 0)).toEqual(expect.arrayContaining(['read_file', 'mcp_t_echo', 'mcp_t_read_file']));
    expect(gemini!.requests[0]!.body.systemInstruction?.parts[0]?.text).toContain(
      'fenced between <untrusted_context> and </untrusted_context>',
    );
    expect(responsesOf(gemini!, 1)).toEqual([
      {
        functionResponse: {
          name: 'mcp_t_echo',
          response: { output: '<untrusted_context>\nt says: ping\n</untrusted_context>' },
        },
      },
    ]);
  });

  it('without trust: no rule allows a server tool, not even one named like an allowed built-in', async () => {
    const t = await prepare({ mcpServers: { t: server() } }, [
      reply([call('mcp_t_echo', { text: 'ping' }), call('mcp_t_read_file', { file_path: 'README.md' })]),
      reply([text('Denied.')]),
    ]);
    await t.run('Use the server.');
    const parts = responsesOf(gemini!, 1);
    expect(parts.map((p) => (p.functionResponse as { response: Record<string, string> }).response.error)).toEqual([
      expect.stringContaining(
        'mcp_t_echo was not run: policy denied it. no rule matched; the action denies unmatched calls',
      ),
      expect.stringContaining('mcp_t_read_file was not run: policy denied it. no rule matched'),
    ]);
  });

  it('plan mode: the rule trust implies does not apply (as in Gemini CLI), so the call is denied', async () => {
    const t = await prepare(
      { mcpServers: { t: server({ trust: true }) } },
      [reply([call('mcp_t_echo', { text: 'ping' })]), reply([text('ok')])],
      { mode: 'plan' },
    );
    await t.run('Plan.');
    expect(JSON.stringify(responsesOf(gemini!, 1))).toContain('policy denied it');
  });

  it('mcp.allowed allows a server’s tools and keeps every other server from starting', async () => {
    const t = await prepare(
      { mcpServers: { t: server(), u: server({ args: ['srv/server.mjs', 'u'] }) }, mcp: { allowed: ['u'] } },
      [reply([call('mcp_u_echo', { text: 'hi' })]), reply([text('ok')])],
    );
    await t.run('Go.');
    expect(agent!.mcp!.status().map((s) => [s.name, s.state])).toEqual([
      ['t', 'blocked'],
      ['u', 'ready'],
    ]);
    expect(declared(gemini!, 0).filter((n) => n.startsWith('mcp_'))).toEqual(expect.arrayContaining(['mcp_u_echo']));
    expect(declared(gemini!, 0).some((n) => n.startsWith('mcp_t_'))).toBe(false);
    expect(JSON.stringify(responsesOf(gemini!, 1))).toContain('u says: hi');
  });

  it('lazy: the server starts at the first model request, not when the agent is prepared', async () => {
    const t = await prepare({ mcpServers: { t: server({ trust: true }) } }, [reply([text('ok')])], { start: 'lazy' });
    expect(agent!.mcp!.status()[0]!.state).toBe('not_started');
    await t.run('Go.');
    expect(agent!.mcp!.status()[0]!.state).toBe('ready');
    expect(declared(gemini!, 0)).toContain('mcp_t_echo');
  });

  it('a server that does not start: a warning, no tools, and the run goes on', async () => {
    const t = await prepare({ mcpServers: { broken: { command: 'node', args: ['srv/no-such-file.mjs'] } } }, [
      reply([call('mcp_broken_x', {})]),
      reply([text('ok')]),
    ]);
    expect(
      agent!.warnings.find((w) =>
        w.startsWith('MCP server broken (.gemini/settings.json) did not start: exited with code 1'),
      ),
    ).toBeDefined();
    const run = await t.run('Go.');
    expect(run.outcome.status).toBe('success');
    expect(JSON.stringify(responsesOf(gemini!, 1))).toContain(
      'mcp_broken_x is unavailable: MCP server broken did not start',
    );
  });

  it('hooks see an MCP call with its server (mcp_context), as Gemini CLI passes it', async () => {
    mkdirSync(join(ws, '.gemini/hooks'), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'test/fixtures/hooks/log.mjs'), join(ws, '.gemini/hooks/log.mjs'));
    writeFileSync(join(ws, 'hook-log.jsonl'), '');
    const t = await prepare(
      {
        mcpServers: { t: server({ trust: true }) },
        hooks: {
          BeforeTool: [
            {
              matcher: '^mcp_t_',
              hooks: [{ type: 'command', command: 'node $GEMINI_PROJECT_DIR/.gemini/hooks/log.mjs' }],
            },
          ],
        },
      },
      [reply([call('mcp_t_echo', { text: 'ping' })]), reply([text('ok')])],
    );
    await t.run('Go.');
    const [entry] = readFileSync(join(ws, 'hook-log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entry).toMatchObject({
      hook_event_name: 'BeforeTool',
      tool_name: 'mcp_t_echo',
      tool_input: { text: 'ping' },
      mcp_context: { server_name: 't', tool_name: 'echo', command: 'node', args: ['srv/server.mjs', 't'] },
    });
  });

  it('close() stops the servers', async () => {
    await prepare({ mcpServers: { t: server() } }, []);
    expect(agent!.mcp!.status()[0]!.state).toBe('ready');
    await agent!.close();
    expect(agent!.mcp!.status()[0]!.state).toBe('stopped');
  });
});
