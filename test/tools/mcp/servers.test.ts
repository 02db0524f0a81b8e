/**
 * MCP servers for real: @modelcontextprotocol/server-everything (stdio in the sandbox, and its
 * Streamable HTTP mode) and our SDK-built test server, through the manager and the tool set the
 * scheduler uses. Each test names the failure it guards against.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../../../src/sandbox/sandbox.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import type { ToolEnv, ToolOutput } from '../../../src/tools/define-tool.js';
import { parseMcpServers } from '../../../src/tools/mcp/config.js';
import { createMcpManager, type McpManager, type McpManagerOptions } from '../../../src/tools/mcp/manager.js';
import { createToolSet } from '../../../src/tools/mcp/tool-set.js';
import { createToolRegistry } from '../../../src/tools/registry.js';
import { makeTempDir } from '../../support/git-repo.js';
import { createManualTimer } from '../../support/manual-timer.js';
import { bundleEverything, bundleTestServer, startEverythingHttp } from '../../support/mcp-server.js';

const SECRET = 'ghs_mcpServerTestSecret000000000000001';
let sandbox: Sandbox;
let ws: string;
const managers: McpManager[] = [];

beforeAll(async () => {
  sandbox = createSandbox({ mode: 'required', hostEnv: {} });
  const s = await sandbox.status();
  if (s.kind !== 'sandboxed')
    throw new Error(`bubblewrap is needed for these tests (.ci/run installs it): ${JSON.stringify(s)}`);
  ws = makeTempDir('agent-action-mcp-');
  await bundleTestServer(join(ws, 'srv/server.mjs'));
  await bundleEverything(join(ws, 'srv/everything.mjs'));
});
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
});

const PATH = process.env.PATH ?? '/usr/bin:/bin';

function manager(servers: Record<string, unknown>, over: Partial<McpManagerOptions> = {}): McpManager {
  const { servers: parsed, problems } = parseMcpServers(servers, {
    source: { label: 'test settings', origin: 'repository' },
  });
  expect(problems).toEqual([]);
  const m = createMcpManager({
    servers: parsed,
    sandbox,
    workspace: ws,
    env: { PATH },
    secrets: [SECRET],
    graceMs: 200,
    ...over,
  });
  managers.push(m);
  return m;
}

const toolEnv = (): ToolEnv => ({ root: ws, secrets: [SECRET], baseEnv: {}, shellTimeoutMs: 5_000 });

async function call(
  m: McpManager,
  name: string,
  args: Record<string, unknown> = {},
  signal = new AbortController().signal,
): Promise<ToolOutput> {
  const set = createToolSet(createToolRegistry([]), m);
  const prepared = await set.prepareCall(name, args, toolEnv());
  return prepared.run({ signal });
}

const ours = (extra: Record<string, unknown> = {}) => ({ command: 'node', args: ['srv/server.mjs', 't'], ...extra });

describe('server-everything over stdio, in the sandbox', () => {
  let m: McpManager;
  beforeAll(async () => {
    m = manager({
      everything: { command: 'node', args: ['srv/everything.mjs', 'stdio'], env: { DECLARED: 'from settings' } },
    });
    await m.start();
  });

  it('registers its tools under Gemini CLI names, with their schemas', () => {
    const [status] = m.status();
    expect(status).toMatchObject({ name: 'everything', state: 'ready' });
    const names = m.tools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'mcp_everything_echo',
        'mcp_everything_get-sum',
        'mcp_everything_get-tiny-image',
        'mcp_everything_get-structured-content',
      ]),
    );
    const sum = m.tools().find((t) => t.name === 'mcp_everything_get-sum')!;
    expect(JSON.stringify(sum.params)).toContain('"a"');
    expect(JSON.stringify(sum.params)).not.toContain('$schema');
  });

  it('calls a tool and fences its text as untrusted', async () => {
    const out = await call(m, 'mcp_everything_echo', { message: 'hello from the test' });
    expect(out.error).toBeUndefined();
    expect(out.forModel).toBe('<untrusted_context>\nEcho: hello from the test\n</untrusted_context>');
    expect(out.forHuman).toBe('Echo: hello from the test');
  });

  it('an image comes back as inline data beside a line that names it', async () => {
    const out = await call(m, 'mcp_everything_get-tiny-image');
    expect(out.media).toHaveLength(1);
    expect(out.media![0]!.mimeType).toBe('image/png');
    expect(Buffer.from(out.media![0]!.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(out.forModel).toContain(
      "[Tool 'get-tiny-image' provided the following image data with mime-type: image/png]",
    );
  });

  it('arguments that do not fit the tool schema are refused before the server is called', async () => {
    await expect(call(m, 'mcp_everything_get-sum', { a: 'one', b: 2 })).rejects.toMatchObject({
      code: 'invalid_args',
      message: expect.stringContaining('/a must be number'),
    });
  });

  it('structured content reaches the model once (its JSON text block is not repeated)', async () => {
    const out = await call(m, 'mcp_everything_get-structured-content', { location: 'Chicago' });
    expect(out.forModel).toMatch(/"temperature"/);
    expect(out.forModel).not.toContain('Structured content:');
  });

  it('a slow tool reports progress while it runs', async () => {
    const lines: string[] = [];
    const set = createToolSet(createToolRegistry([]), m);
    const prepared = await set.prepareCall(
      'mcp_everything_trigger-long-running-operation',
      { duration: 0.2, steps: 2 },
      toolEnv(),
    );
    const out = await prepared.run({ signal: new AbortController().signal, onProgress: (l) => lines.push(l) });
    expect(out.forModel).toContain('Long running operation completed');
    // The last notification can cross the result on the wire; the first one is always seen.
    expect(lines[0]).toBe('1/2');
  });

  it('progress starts the call deadline over (as the SDK does with resetTimeoutOnProgress)', async () => {
    const timer = createManualTimer();
    const started: number[] = [];
    const slow = manager(
      { progress: { command: 'node', args: ['srv/everything.mjs', 'stdio'], timeout: 400 } },
      { startTimer: (ms, fire) => (started.push(ms), timer.start(ms, fire)) },
    );
    const lines: string[] = [];
    const set = createToolSet(createToolRegistry([]), slow);
    const prepared = await set.prepareCall(
      'mcp_progress_trigger-long-running-operation',
      { duration: 0.2, steps: 2 },
      toolEnv(),
    );
    const out = await prepared.run({ signal: new AbortController().signal, onProgress: (l) => lines.push(l) });
    expect(out.forModel).toContain('Long running operation completed');
    // Two start deadlines (connect, list its tools: the 60 s default beats its 400 ms timeout), one for the call, one more per progress line.
    expect(started).toEqual([60_000, 60_000, 400, ...lines.map(() => 400)]);
    expect(lines.length).toBeGreaterThan(0);
    expect(timer.pending()).toEqual([]);
    await slow.stop();
  });

  it('the server sees the scrubbed environment plus what its settings declare, never a credential', async () => {
    const out = await call(m, 'mcp_everything_get-env');
    const env = JSON.parse(out.forModel.replace(/^<untrusted_context>\n|\n<\/untrusted_context>$/g, '')) as Record<
      string,
      string
    >;
    expect(env.DECLARED).toBe('from settings');
    expect(env.PATH).toBe(PATH);
    expect(env.HOME).toBe('/home/sandbox');
    expect(Object.keys(env).filter((k) => /TOKEN|SECRET|INPUT_|GITHUB_/.test(k))).toEqual([]);
  });
});

describe('server-everything over Streamable HTTP', () => {
  it('connects by url, lists and calls its tools; excludeTools leaves one out', async () => {
    const http = await startEverythingHttp();
    try {
      const m = manager({ web: { url: http.url, type: 'http', excludeTools: ['get-env'] } });
      await m.start();
      expect(m.status()[0]).toMatchObject({ state: 'ready', target: `${http.url} (http)` });
      const names = m.tools().map((t) => t.name);
      expect(names).toContain('mcp_web_get-sum');
      expect(names).not.toContain('mcp_web_get-env');
      const out = await call(m, 'mcp_web_get-sum', { a: 2, b: 40 });
      expect(out.forModel).toContain('42');
      await m.stop();
    } finally {
      await http.close();
    }
  });
});

describe('our test server: failures stay tool errors', () => {
  it('a tool error (isError) is a failed result the model sees, not an exception', async () => {
    const m = manager({ t: ours() });
    const out = await call(m, 'mcp_t_fail');
    expect(out.error).toEqual({
      code: 'failed',
      message: "MCP tool 'fail' reported an error: <untrusted_context>\nthe widget is broken\n</untrusted_context>",
    });
  });

  it('a tool the offer filter leaves out is neither declared nor callable (by its server name too)', async () => {
    const m = manager({ t: ours() });
    const seen: Array<{ name: string; serverTool: string }> = [];
    const set = createToolSet(createToolRegistry([]), m, (t) => (seen.push(t), t.serverTool !== 'huge'));
    await set.ready();
    expect(set.names()).toContain('mcp_t_echo');
    expect(seen).toContainEqual({ name: 'mcp_t_huge', serverTool: 'huge' });
    expect(set.names()).not.toContain('mcp_t_huge');
    expect(set.declarations().map((d) => d.name)).not.toContain('mcp_t_huge');
    expect(set.get('mcp_t_huge')).toBeUndefined();
    await expect(set.prepareCall('mcp_t_huge', { chars: 10 }, toolEnv())).rejects.toMatchObject({ code: 'not_found' });
  });

  it('structured content without a text block is shown as JSON', async () => {
    const m = manager({ t: ours() });
    const out = await call(m, 'mcp_t_structured');
    expect(out.forModel).toBe('Structured content:\n{\n  "count": 2,\n  "items": [\n    "a",\n    "b"\n  ]\n}');
  });

  it('a huge result is cut to its head and tail', async () => {
    const m = manager({ t: ours() });
    const out = await call(m, 'mcp_t_huge', { chars: 2_000_000 });
    expect(out.forModel.length).toBeLessThan(34 * 1024);
    expect(out.forModel.startsWith('<untrusted_context>\nHEAD')).toBe(true);
    expect(out.forModel.endsWith('TAIL\n</untrusted_context>')).toBe(true);
    expect(out.forModel).toMatch(/\[\.\.\. \d+ characters in the middle were omitted: the result exceeded 32 KB/);
  });

  it('a server that dies in the middle of a call: that call and later ones fail with why; the manager does not throw', async () => {
    const warnings: string[] = [];
    const m = manager({ t: ours() }, { onWarning: (w) => warnings.push(w) });
    const crashed = await call(m, 'mcp_t_crash');
    expect(crashed.error?.code).toBe('failed');
    expect(crashed.error?.message).toMatch(
      /^mcp_t_crash failed: the MCP server exited with code 3; its last output on stderr:\ntest-server: crashing on purpose/,
    );
    const later = await call(m, 'mcp_t_echo', { text: 'anyone there?' });
    expect(later.error?.message).toMatch(/^mcp_t_echo is unavailable: MCP server t exited with code 3/);
    expect(m.status()[0]).toMatchObject({ state: 'exited' });
    expect(warnings.some((w) => w.startsWith('MCP server t exited with code 3'))).toBe(true);
  });

  it('a call that outlasts the server timeout ends as a timeout', async () => {
    const timer = createManualTimer();
    const m = manager({ t: ours({ timeout: 300 }) }, { startTimeoutMs: 20_000, startTimer: timer.start });
    await m.start();
    // The start deadline is cancelled once the server is ready; the call's own is the server's `timeout`.
    expect(timer.pending()).toEqual([]);
    const pending = call(m, 'mcp_t_slow', { ms: 5_000 });
    await timer.until(300);
    timer.fire(300);
    expect((await pending).error).toEqual({
      code: 'timeout',
      message: 'mcp_t_slow failed: MCP error -32001: Request timed out',
    });
    // The server still answers the next call: the timed-out one was cancelled, not the connection.
    expect((await call(m, 'mcp_t_echo', { text: 'after the timeout' })).forModel).toContain(
      't says: after the timeout',
    );
    expect(timer.pending()).toEqual([]);
  });

  it('a call that answers in time cancels its deadline', async () => {
    const timer = createManualTimer();
    const m = manager({ t: ours({ timeout: 300 }) }, { startTimer: timer.start });
    expect((await call(m, 'mcp_t_echo', { text: 'quick' })).forModel).toContain('t says: quick');
    expect(timer.pending()).toEqual([]);
  });

  it("the run's cancellation ends a call at once", async () => {
    const m = manager({ t: ours() });
    await m.start();
    const ctrl = new AbortController();
    const pending = call(m, 'mcp_t_slow', { ms: 30_000 }, ctrl.signal);
    ctrl.abort();
    expect((await pending).error?.code).toBe('cancelled');
  });

  it('notifications nobody asked for are ignored', async () => {
    const m = manager({ t: ours() });
    expect((await call(m, 'mcp_t_noisy')).forModel).toContain('done being noisy');
    expect((await call(m, 'mcp_t_echo', { text: 'still fine' })).forModel).toContain('t says: still fine');
  });

  it('a command that does not exist: the server is reported as failed and its tools explain why', async () => {
    const m = manager({ gone: { command: 'no-such-mcp-server-binary' } });
    await m.start();
    const [s] = m.status();
    expect(s).toMatchObject({ state: 'failed', tools: [] });
    expect(s!.reason).toMatch(/exited|did not start/);
    await expect(call(m, 'mcp_gone_anything')).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/^mcp_gone_anything is unavailable: MCP server gone did not start/),
    });
  });

  it('a server that never answers is given up at its start timeout, and stopped', async () => {
    const timer = createManualTimer();
    const m = manager(
      { mute: { command: 'sleep', args: ['987.654'] } },
      { startTimeoutMs: 500, startTimer: timer.start },
    );
    const started = m.start();
    await timer.until(500);
    // Given up once it runs (and does not answer), not before.
    await vi.waitFor(
      () => expect(hostProcessesWith('987.654').filter((p) => p.includes(': sleep 987.654'))).toHaveLength(1),
      { timeout: 20_000, interval: 20 },
    );
    timer.fire(500);
    await started;
    expect(m.status()[0]).toMatchObject({ state: 'failed', reason: 'did not start within 500 ms' });
    expect(hostProcessesWith('987.654')).toEqual([]);
  });

  it('a server the sandbox is still starting when its deadline passes is stopped once it is up', async () => {
    const timer = createManualTimer();
    const m = manager(
      { late: { command: 'sh', args: ['-c', 'touch srv/late-up; exec sleep 987.321'] } },
      { startTimeoutMs: 500, startTimer: timer.start },
    );
    const started = m.start();
    await timer.until(500);
    timer.fire(500);
    await started;
    expect(m.status()[0]).toMatchObject({ state: 'failed', reason: 'did not start within 500 ms' });
    // Its process comes up after the start was given up: it must not be left running.
    await vi.waitFor(() => expect(readdirSync(join(ws, 'srv'))).toContain('late-up'), {
      timeout: 20_000,
      interval: 20,
    });
    await vi.waitFor(() => expect(hostProcessesWith('987.321')).toEqual([]), { timeout: 20_000, interval: 20 });
  });

  it('stop() ends every server and what it started, even a process it left in the background', async () => {
    const m = manager({ t: ours() });
    expect((await call(m, 'mcp_t_spawn_child', { seconds: '876.543' })).forModel).toContain('started sleep 876.543');
    expect(hostProcessesWith('876.543')).toHaveLength(1);
    await m.stop();
    expect(hostProcessesWith('876.543')).toEqual([]);
    expect(m.status()[0]).toMatchObject({ state: 'stopped' });
  });

  it('a server outside the allowed names is not started', async () => {
    const m = manager(
      {
        t: ours({ env: { TEST_SERVER_MARKER: 'srv/started-t' } }),
        u: ours({ env: { TEST_SERVER_MARKER: 'srv/started-u' } }),
      },
      { selection: { allowed: ['u'] } },
    );
    await m.start();
    expect(m.status().map((s) => [s.name, s.state])).toEqual([
      ['t', 'blocked'],
      ['u', 'ready'],
    ]);
    expect(readdirSync(join(ws, 'srv')).filter((f) => f.startsWith('started-'))).toEqual(['started-u']);
    expect(readFileSync(join(ws, 'srv/started-u'), 'utf8')).toBe('t started\n');
  });
});

/** Host processes whose command line holds `needle` (a unique sleep length). */
function hostProcessesWith(needle: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(needle) && !cmd.includes('vitest')) out.push(`${pid}: ${cmd}`);
    } catch {
      // gone
    }
  }
  return out;
}
