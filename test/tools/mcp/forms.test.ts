/**
 * stdio MCP servers in the forms users write them, started for real in bubblewrap without network:
 * `node /abs/server.mjs` outside the workspace, a server under $HOME, a command found on a PATH
 * folder, `npx -y pkg` from a cache an earlier step filled; and the start errors that name the
 * cause, without waiting for the start deadline when the process has already exited.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/sandbox.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import type { ToolEnv, ToolOutput } from '../../../src/tools/define-tool.js';
import { parseMcpServers } from '../../../src/tools/mcp/config.js';
import { createMcpManager, type McpManager, type McpManagerOptions } from '../../../src/tools/mcp/manager.js';
import { createToolSet } from '../../../src/tools/mcp/tool-set.js';
import { createToolRegistry } from '../../../src/tools/registry.js';
import { makeTempDir } from '../../support/git-repo.js';
import { bundleTestServer } from '../../support/mcp-server.js';
import { FIXTURE_PACKAGE, packFixtureServer, primeNpmCache, startFixtureRegistry } from '../../support/npm-fixture.js';

let sandbox: Sandbox;
let ws: string;
/** Outside the workspace, under /tmp: a folder the sandbox never binds on its own. */
let tools: string;
const managers: McpManager[] = [];
const PATH = process.env.PATH ?? '/usr/bin:/bin';

beforeAll(async () => {
  sandbox = createSandbox({ mode: 'required', hostEnv: {} });
  const s = await sandbox.status();
  if (s.kind !== 'sandboxed')
    throw new Error(`bubblewrap is needed for these tests (.ci/run installs it): ${JSON.stringify(s)}`);
  ws = makeTempDir('agent-action-mcp-forms-ws-');
  tools = makeTempDir('agent-action-mcp-forms-tools-');
  await bundleTestServer(join(tools, 'server.mjs'));
});
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
});

/** A timer that never fires: a start that waits for its deadline never ends, and the test times out. */
const neverFires = () => () => undefined;

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
    secrets: [],
    graceMs: 200,
    startTimer: neverFires,
    ...over,
  });
  managers.push(m);
  return m;
}

const toolEnv = (): ToolEnv => ({ root: ws, secrets: [], baseEnv: {}, shellTimeoutMs: 5_000 });

async function call(m: McpManager, name: string, args: Record<string, unknown> = {}): Promise<ToolOutput> {
  const set = createToolSet(createToolRegistry([]), m);
  return (await set.prepareCall(name, args, toolEnv())).run({ signal: new AbortController().signal });
}

async function expectReady(m: McpManager, server: string): Promise<void> {
  await m.start();
  const [s] = m.status();
  expect(s, JSON.stringify(s)).toMatchObject({ name: server, state: 'ready' });
  expect((await call(m, `mcp_${server}_echo`, { text: 'hi' })).forModel).toContain(`${server} says: hi`);
}

describe('a stdio server outside the workspace', () => {
  it('node /abs/server.mjs: the script, under /tmp (never bound on its own), is shown read-only', async () => {
    await expectReady(manager({ abs: { command: 'node', args: [join(tools, 'server.mjs'), 'abs'] } }), 'abs');
  });

  it('a server under $HOME starts, though the home inside is otherwise empty', async () => {
    const home = makeTempDir('agent-action-mcp-forms-home-');
    await bundleTestServer(join(home, 'mcp/srv/server.mjs'));
    writeFileSync(join(home, 'mcp/srv/package.json'), '{"type":"module"}');
    writeFileSync(join(home, 'secret.txt'), 'not for servers');
    const m = manager(
      { home: { command: 'node', args: [join(home, 'mcp/srv/server.mjs'), 'home'] } },
      { env: { PATH, HOME: home } },
    );
    await expectReady(m, 'home');
  });

  it('a command found on a PATH folder outside the workspace, with its package beside it', async () => {
    const prefix = makeTempDir('agent-action-mcp-forms-prefix-');
    mkdirSync(join(prefix, 'bin'));
    mkdirSync(join(prefix, 'lib'));
    await bundleTestServer(join(prefix, 'lib/server.mjs'));
    writeFileSync(join(prefix, 'package.json'), '{"name":"my-mcp-server"}');
    // What `npm install -g` leaves: bin/<name> starting lib/ of the same package.
    writeFileSync(join(prefix, 'bin/my-mcp-server'), '#!/bin/sh\nexec node "$(dirname "$0")/../lib/server.mjs" "$@"\n');
    chmodSync(join(prefix, 'bin/my-mcp-server'), 0o755);
    const m = manager(
      { onpath: { command: 'my-mcp-server', args: ['onpath'] } },
      { env: { PATH: `${join(prefix, 'bin')}:${PATH}` } },
    );
    await expectReady(m, 'onpath');
  });
});

describe('npx from a job-long cache, with the network off', () => {
  let registry: Awaited<ReturnType<typeof startFixtureRegistry>>;
  beforeAll(async () => {
    const tarball = await packFixtureServer(makeTempDir('agent-action-mcp-forms-pack-'));
    registry = await startFixtureRegistry(tarball);
  });
  afterAll(() => registry.close());

  it('npx -y <pkg> starts from the cache an earlier step filled ($HOME/.npm of the job home)', async () => {
    const jobHome = makeTempDir('agent-action-mcp-forms-jobhome-');
    await primeNpmCache(join(jobHome, '.npm'), registry.url);
    const m = manager(
      { npx: { command: 'npx', args: ['-y', FIXTURE_PACKAGE, 'npx'], env: { npm_config_registry: registry.url } } },
      { jobHome },
    );
    await expectReady(m, 'npx');
  });

  it('an empty cache fails at once, saying the network is off and how to turn it on', async () => {
    const m = manager(
      { cold: { command: 'npx', args: ['-y', FIXTURE_PACKAGE, 'cold'], env: { npm_config_registry: registry.url } } },
      { jobHome: makeTempDir('agent-action-mcp-forms-cold-') },
    );
    await m.start();
    const [s] = m.status();
    expect(s!.state).toBe('failed');
    expect(s!.reason).toMatch(/ENOTCACHED/);
    expect(s!.reason).toContain(
      'the network is off for this server; set "network": true in its settings (in a workflow: or name it in the `mcp-network` input)',
    );
  });
});

describe('start errors name the cause, at once', () => {
  it('a server that exits at start fails with its exit code and stderr, before any deadline', async () => {
    const m = manager({
      dies: {
        command: 'node',
        args: ['-e', "process.stderr.write('Error: no config file given\\n'); process.exit(4)"],
      },
    });
    await m.start();
    const [s] = m.status();
    expect(s!.state).toBe('failed');
    expect(s!.reason).toMatch(/exited with code 4/);
    expect(s!.reason).toContain('Error: no config file given');
  });

  it('a script that does not exist on the machine is named as such', async () => {
    const m = manager({ gone: { command: 'node', args: [join(tools, 'no-such-server.js')] } });
    await m.start();
    expect(m.status()[0]!.reason).toContain(`${join(tools, 'no-such-server.js')} does not exist on this machine`);
  });

  it("a script inside the runner's temp folder: not visible in the sandbox, and why", async () => {
    const runnerTemp = makeTempDir('agent-action-mcp-forms-runnertemp-');
    await bundleTestServer(join(runnerTemp, 'server.mjs'));
    const hidden = createSandbox({ mode: 'required', hostEnv: { RUNNER_TEMP: runnerTemp } });
    const m = manager({ temp: { command: 'node', args: [join(runnerTemp, 'server.mjs')] } }, { sandbox: hidden });
    await m.start();
    const [s] = m.status();
    expect(s!.state).toBe('failed');
    expect(s!.reason).toContain(
      `this path is not visible in the sandbox: ${join(runnerTemp, 'server.mjs')} (it is or holds one of the runner's own files`,
    );
  });
});
