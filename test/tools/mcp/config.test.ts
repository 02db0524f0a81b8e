import { describe, expect, it } from 'vitest';
import { mergeMcpServers, parseMcpServers, type McpSource } from '../../../src/tools/mcp/config.js';
import { blockedBySelection, parseMcpSelection } from '../../../src/tools/mcp/selection.js';
import { expandVariables } from '../../../src/tools/mcp/env-expand.js';

const SOURCE: McpSource = { label: '.gemini/settings.json', origin: 'repository' };
const parse = (value: unknown, env?: Record<string, string>) =>
  parseMcpServers(value, { source: SOURCE, ...(env && { env }) });

describe('parseMcpServers: Gemini CLI’s fields', () => {
  it('a stdio server with every field', () => {
    const r = parse({
      gh: {
        command: 'npx',
        args: ['-y', 'server'],
        env: { A: '1' },
        cwd: 'tools',
        timeout: 5000,
        trust: true,
        includeTools: ['x'],
        excludeTools: ['y'],
        description: 'GitHub',
      },
    });
    expect(r.problems).toEqual([]);
    expect(r.servers).toEqual([
      {
        name: 'gh',
        source: SOURCE,
        transport: {
          kind: 'stdio',
          command: 'npx',
          args: ['-y', 'server'],
          env: { A: '1' },
          cwd: 'tools',
          shown: 'npx -y server',
        },
        timeoutMs: 5000,
        trust: true,
        includeTools: ['x'],
        excludeTools: ['y'],
        description: 'GitHub',
      },
    ]);
  });

  it.each([
    [{ url: 'https://h/mcp' }, 'auto'],
    [{ url: 'https://h/mcp', type: 'http' }, 'streamable'],
    [{ url: 'https://h/sse', type: 'sse' }, 'sse'],
    [{ httpUrl: 'https://h/mcp' }, 'streamable'],
  ])('%j is an HTTP server spoken to as %s', (config, protocol) => {
    expect(parse({ s: { ...config, headers: { Authorization: 'Bearer x' } } }).servers[0]!.transport).toMatchObject({
      kind: 'http',
      protocol,
      headers: { Authorization: 'Bearer x' },
    });
  });

  it('httpUrl wins over url, with a warning (as Gemini CLI warns)', () => {
    const r = parse({ s: { url: 'https://a/sse', httpUrl: 'https://b/mcp' } });
    expect(r.servers[0]!.transport).toMatchObject({ url: 'https://b/mcp' });
    expect(r.problems).toEqual([
      { path: 'mcpServers.s.url', severity: 'warning', message: expect.stringContaining('`httpUrl` is used') },
    ]);
  });

  it.each<[string, unknown, string]>([
    ['no transport', {}, 'needs `command` (a stdio server) or `url`/`httpUrl`'],
    ['both transports', { command: 'x', url: 'https://h' }, 'has both `command` and a URL'],
    ['args not strings', { command: 'x', args: [1] }, 'args must be a list of strings'],
    ['env not strings', { command: 'x', env: { A: 1 } }, 'env must be an object of string values'],
    ['timeout zero', { command: 'x', timeout: 0 }, 'timeout must be a whole number of milliseconds above 0'],
    ['bad type', { url: 'https://h', type: 'ws' }, 'type must be "http" or "sse"'],
    ['not http', { url: 'file:///etc/passwd' }, 'is not an http(s) URL'],
    ['oauth', { url: 'https://h', oauth: { enabled: true } }, 'asks for OAuth, which needs a browser'],
    [
      'google credentials',
      { url: 'https://h', authProviderType: 'google_credentials' },
      'is not supported in agent-action',
    ],
  ])('%s: left out, and the problem names it', (_label, config, message) => {
    const r = parse({ s: config });
    expect(r.servers).toEqual([]);
    expect(r.problems).toEqual([
      { path: 'mcpServers.s', severity: 'error', message: expect.stringContaining(message) },
    ]);
  });

  it('one bad server does not take the others with it', () => {
    const r = parse({ bad: { args: [] }, good: { command: 'x' } });
    expect(r.servers.map((s) => s.name)).toEqual(['good']);
  });

  it('an unknown field is a warning, not an error', () => {
    const r = parse({ s: { command: 'x', comand: 'typo' } });
    expect(r.servers).toHaveLength(1);
    expect(r.problems).toEqual([
      { path: 'mcpServers.s.comand', severity: 'warning', message: 'is not a field Gemini CLI knows; ignored' },
    ]);
  });

  it('references resolve in command, args, cwd, env, url and headers (as Gemini CLI resolves every string); the empty ones are named', () => {
    const r = parse(
      {
        s: { command: '$CMD', args: ['--token', '${GH_TOKEN}', '$UNSET'], env: { K: '$V', E: '${NOPE:-fallback}' } },
        h: { url: 'https://$HOST/mcp', headers: { Authorization: 'Bearer $T' } },
      },
      { CMD: 'node', GH_TOKEN: 'ghp_fromTheStep0001', V: 'v', HOST: 'mcp.example.com', T: 'tok-123456' },
    );
    expect(r.servers[0]!.transport).toMatchObject({
      command: 'node',
      args: ['--token', 'ghp_fromTheStep0001', ''],
      env: { K: 'v', E: 'fallback' },
      // What logs and status show: the line as written, never a resolved token.
      shown: '$CMD --token ${GH_TOKEN} $UNSET',
    });
    expect(r.servers[0]!.emptyVariables).toEqual([{ variable: 'UNSET', field: 'args[2]' }]);
    expect(r.servers[1]!.transport).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer tok-123456' },
    });
    expect(r.servers[1]!.emptyVariables).toBeUndefined();
    // By the variable's name (GH_TOKEN) and by the field's (Authorization); `v` and the host are not.
    expect(r.secrets).toEqual(['ghp_fromTheStep0001', 'Bearer tok-123456']);
  });

  it('without an environment, references stay as written', () => {
    const r = parse({ s: { command: 'node', args: ['$A'], env: { K: '$V' } } });
    expect(r.servers[0]!.transport).toMatchObject({ args: ['$A'], env: { K: '$V' } });
    expect(r.servers[0]!.emptyVariables).toBeUndefined();
  });

  it('network and dockerOutsideSandbox: booleans; the Docker switch only on a docker command', () => {
    const r = parse({
      n: { command: 'npx', args: ['-y', 'pkg'], network: true },
      d: { command: 'docker', args: ['run', '-i', 'img'], dockerOutsideSandbox: true },
      x: { command: 'node', args: ['s.js'], dockerOutsideSandbox: true },
      bad: { command: 'node', network: 'yes' },
    });
    expect(r.servers.map((s) => [s.name, s.network, s.dockerOutsideSandbox])).toEqual([
      ['n', true, undefined],
      ['d', undefined, true],
      ['x', undefined, undefined],
    ]);
    expect(r.problems).toEqual([
      {
        path: 'mcpServers.x.dockerOutsideSandbox',
        severity: 'warning',
        message: 'applies only to a server whose command is `docker`; ignored (the server runs in the sandbox)',
      },
      { path: 'mcpServers.bad', severity: 'error', message: 'left out: network must be true or false' },
    ]);
  });
});

describe('expandVariables (Gemini CLI’s $VAR, ${VAR})', () => {
  it.each([
    ['$A', 'a'],
    ['${A}-x', 'a-x'],
    ['pre $A post', 'pre a post'],
    ['$MISSING', ''],
    ['${MISSING:-fallback}', 'fallback'],
    ['${A:-fallback}', 'a'],
    ['\\$A', '$A'],
    ['$A$B', 'ab'],
    ['no refs', 'no refs'],
  ])('%j -> %j', (text, want) => {
    expect(expandVariables(text, { A: 'a', B: 'b' }).value).toBe(want);
  });

  it('reports the names it used, set or not', () => {
    expect(expandVariables('$A ${B} $A $C', { A: '1' }).names).toEqual(['A', 'B', 'C']);
  });
});

describe('selection and merging', () => {
  it('mcp.allowed and mcp.excluded', () => {
    const { selection, problems } = parseMcpSelection({ allowed: ['a', 'b'], excluded: ['b'] }, 'settings');
    expect(problems).toEqual([]);
    expect(blockedBySelection('a', selection)).toBeUndefined();
    expect(blockedBySelection('b', selection)).toBe('listed in mcp.excluded');
    expect(blockedBySelection('c', selection)).toBe('not among the allowed MCP servers (a, b)');
    expect(blockedBySelection('c', {})).toBeUndefined();
  });

  it('a later source replaces an earlier server of the same name, and keeps its place last', () => {
    const [a, b] = [
      parse({ x: { command: 'user-x' }, y: { command: 'user-y' } }).servers,
      parse({ x: { command: 'project-x' } }).servers,
    ];
    expect(mergeMcpServers([a, b]).map((s) => [s.name, (s.transport as { command: string }).command])).toEqual([
      ['y', 'user-y'],
      ['x', 'project-x'],
    ]);
  });
});
