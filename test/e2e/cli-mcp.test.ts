/**
 * MCP servers and hooks through the bundled CLI (dist/cli/index.js), as a person runs it: the
 * project's .gemini/settings.json, the SDK-built test server in the workspace (run in the
 * sandbox), the fake Gemini over HTTP. Build first.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../support/cli-runner.js';
import { call, reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';
import { bundleTestServer } from '../support/mcp-server.js';

let fake: FakeGemini | undefined;
let home: string;
let server: string;
beforeAll(async () => {
  if (!existsSync(join(process.cwd(), 'dist/cli/index.js')))
    throw new Error('dist/cli/index.js is missing: run `npm run build` first');
  home = makeTempDir('agent-action-cli-home-');
  server = join(makeTempDir('agent-action-cli-server-'), 'server.mjs');
  await bundleTestServer(server);
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A repository whose .gemini/settings.json is `settings`, with the test server in srv/. */
function project(settings: unknown): string {
  const { dir } = createRepo({ 'README.md': '# demo\n' });
  mkdirSync(join(dir, 'srv'));
  writeFileSync(join(dir, 'srv/server.mjs'), readServer());
  mkdirSync(join(dir, '.gemini'), { recursive: true });
  writeFileSync(join(dir, '.gemini/settings.json'), JSON.stringify(settings));
  return dir;
}
let serverText: Buffer | undefined;
const readServer = () => (serverText ??= readFileSync(server));

const env = (extra: Record<string, string> = {}) => ({ HOME: home, ...extra });
const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const ours = (name: string, extra: Record<string, unknown> = {}) => ({
  command: 'node',
  args: ['srv/server.mjs', name],
  ...extra,
});

describe('agent-action mcp list', () => {
  it('starts each server, prints its status and tools as Gemini CLI lists them, and stops them', async () => {
    const dir = project({
      mcpServers: { t: ours('t'), broken: { command: 'node', args: ['srv/missing.mjs'] }, off: ours('off') },
      mcp: { excluded: ['off'] },
    });
    const r = await runBuiltCli(['mcp', 'list', '--cwd', dir], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'Configured MCP servers:',
      '',
      '✓ t: node srv/server.mjs t (stdio) - Connected',
    ]);
    expect(lines).toContain('    mcp_t_echo: Echoes the text back.');
    expect(lines).toContain('    mcp_t_read_file: A tool named like a built-in one.');
    expect(lines.find((l) => l.startsWith('✗ broken:'))).toMatch(
      /^✗ broken: node srv\/missing\.mjs \(stdio\) - Disconnected \(exited with code 1; its last output on stderr: Error: Cannot find module '.*\/srv\/missing\.mjs'/,
    );
    expect(lines).toContain('⛔ off: node srv/server.mjs off (stdio) - Blocked (listed in mcp.excluded)');
  });

  it('--json, and --allowed-mcp-server-names blocks the rest', async () => {
    const dir = project({ mcpServers: { t: ours('t'), u: ours('u') } });
    const r = await runBuiltCli(['mcp', 'list', '--cwd', dir, '--json', '--allowed-mcp-server-names', 'u'], {
      env: env(),
    });
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ name: string; state: string; tools: Array<{ name: string }> }>;
    expect(list.map((s) => [s.name, s.state])).toEqual([
      ['t', 'blocked'],
      ['u', 'ready'],
    ]);
    expect(list[1]!.tools.map((t) => t.name)).toContain('mcp_u_echo');
  });

  it('no servers: says so', async () => {
    const dir = project({});
    const r = await runBuiltCli(['mcp', 'list', '--cwd', dir], { env: env() });
    expect([r.code, r.stdout]).toEqual([0, 'No MCP servers configured.\n']);
  });
});

describe('agent-action -p with MCP servers and hooks', () => {
  it('--allowed-mcp-server-names: the named server’s tools are allowed and called; stream-json has no hook events (as Gemini CLI)', async () => {
    const dir = project({
      mcpServers: { t: ours('t') },
      hooks: {
        BeforeTool: [{ hooks: [{ type: 'command', command: 'cat > /dev/null; echo "{}"' }] }],
        SessionStart: [{ hooks: [{ type: 'command', command: 'echo "{}"' }] }],
      },
    });
    fake = await startFakeGemini([
      reply([call('mcp_t_echo', { text: 'ping' })]),
      reply([text('The server answered.')]),
    ]);
    const r = await runBuiltCli(
      ['-p', 'ping the server', '-o', 'stream-json', '--cwd', dir, '--allowed-mcp-server-names', 't'],
      {
        env: env({ GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl }),
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const evs = events(r.stdout);
    expect(evs.map((e) => e.type)).toEqual(['init', 'message', 'tool_use', 'tool_result', 'message', 'result']);
    expect(evs[3]).toMatchObject({
      tool_id: 'call-1-0',
      status: 'success',
      output: '<untrusted_context>\nt says: ping\n</untrusted_context>',
    });
  });

  it("`$VAR` in a server's env resolves from the allow-listed environment: what the user's settings pass arrives, nothing else", async () => {
    const dir = project({
      mcpServers: {
        t: ours('t', {
          env: {
            FROM_PASSED: '$PASSED_SETTING',
            FROM_PLAIN: '$PLAIN_SETTING',
            FROM_KEY: '$GEMINI_API_KEY',
            FROM_TOKEN: '$DEPLOY_TOKEN',
          },
        }),
      },
    });
    const userHome = makeTempDir('agent-action-cli-home-');
    mkdirSync(join(userHome, '.gemini'), { recursive: true });
    writeFileSync(
      join(userHome, '.gemini/settings.json'),
      JSON.stringify({ security: { environmentVariableRedaction: { allowed: ['PASSED_SETTING'] } } }),
    );
    fake = await startFakeGemini([
      reply([call('mcp_t_env', { names: ['FROM_PASSED', 'FROM_PLAIN', 'FROM_KEY', 'FROM_TOKEN'] })]),
      reply([text('Read.')]),
    ]);
    const r = await runBuiltCli(
      ['-p', 'show the env', '-o', 'stream-json', '--cwd', dir, '--allowed-mcp-server-names', 't'],
      {
        env: {
          ...env({
            GEMINI_API_KEY: 'test-key-0123',
            GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
            PASSED_SETTING: 'passed-value',
            PLAIN_SETTING: 'plain-value',
            DEPLOY_TOKEN: 'deploy-secret-value',
          }),
          HOME: userHome,
        },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const result = events(r.stdout).find((e) => e.type === 'tool_result')!;
    const seen = JSON.parse(
      String(result.output).replace(/^<untrusted_context>\n|\n<\/untrusted_context>$/g, ''),
    ) as Record<string, string | null>;
    expect(seen.FROM_PASSED).toBe('passed-value');
    expect(JSON.stringify(seen)).not.toMatch(/plain-value|test-key-0123|deploy-secret-value/);
  });

  it('without it, the headless default denies the server’s tools', async () => {
    const dir = project({ mcpServers: { t: ours('t') } });
    fake = await startFakeGemini([reply([call('mcp_t_echo', { text: 'ping' })]), reply([text('Denied.')])]);
    const r = await runBuiltCli(['-p', 'ping', '-o', 'stream-json', '--cwd', dir], {
      env: env({ GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: fake.baseUrl }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(events(r.stdout)[3]).toMatchObject({
      tool_id: 'call-1-0',
      status: 'error',
      error: { message: expect.stringContaining('policy denied it') },
    });
  });
});

describe('agent-action policy check --server', () => {
  const policy = () => {
    const file = join(makeTempDir('agent-action-mcp-policy-'), 'mcp.toml');
    writeFileSync(
      file,
      '[[rule]]\ntoolName = "mcp_github_*"\ndecision = "allow"\npriority = 100\n\n[[rule]]\nmcpName = "db"\ntoolName = "query"\ndecision = "ask_user"\npriority = 100\n',
    );
    return file;
  };
  it.each([
    [['--tool', 'mcp_github_search_issues', '--server', 'github'], 'allow'],
    // The server decides, not the name: a tool that claims github's prefix from another server.
    [['--tool', 'mcp_github_search_issues', '--server', 'evil'], 'deny'],
    [['--tool', 'mcp_db_query', '--server', 'db'], 'ask_user'],
    [['--tool', 'query', '--server', 'db'], 'ask_user'],
    [['--tool', 'mcp_other_query', '--server', 'other'], 'deny'],
    // A server's read_file is not the built-in read_file, which the shipped defaults allow.
    [['--tool', 'mcp_evil_read_file', '--server', 'evil', '--args', '{"file_path":"a.ts"}'], 'deny'],
  ])('%j -> %s', async (flags, decision) => {
    const r = await runBuiltCli(['policy', 'check', ...flags, '--policy', policy(), '--json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).decision).toBe(decision);
  });
});
