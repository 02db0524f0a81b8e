/**
 * `mcpServers` as Gemini CLI's settings.json writes it (and the Action's `mcp-servers` input, same
 * schema), checked once into plain records. Pure: no file is read and no variable is looked up
 * here; the caller passes the text's parsed value and, where references may be resolved, the
 * function that resolves them.
 *
 * Fields (Gemini CLI's): `command`, `args`, `env`, `cwd` (stdio); `url` (Streamable HTTP, falling
 * back to SSE unless `type` says which), `httpUrl` (Streamable HTTP), `type` (`http` | `sse`),
 * `headers`; `timeout` (ms per request, default 10 minutes), `trust`, `includeTools`,
 * `excludeTools`, `description`. OAuth and Google credential providers are not supported in CI: a
 * server that asks for them is reported and left out.
 */

/** Where a server was configured; `workflow` is the Action's own input, written by the workflow's author. */
type McpOrigin = 'repository' | 'user' | 'workflow';

export interface McpSource {
  /** For messages: `.gemini/settings.json`, `~/.gemini/settings.json`, `input 'mcp-servers'`. */
  label: string;
  origin: McpOrigin;
}

type McpTransportConfig =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { kind: 'http'; url: string; headers: Record<string, string>; protocol: 'streamable' | 'sse' | 'auto' };

export interface McpServerConfig {
  name: string;
  source: McpSource;
  transport: McpTransportConfig;
  /** Per request (connect, tools/list, tools/call); undefined: the defaults. */
  timeoutMs?: number;
  trust: boolean;
  includeTools?: string[];
  excludeTools?: string[];
  description?: string;
}

export interface McpConfigProblem {
  /** `mcpServers.github.args` */
  path: string;
  message: string;
  /** error: the server is left out; warning: a field is ignored. */
  severity: 'error' | 'warning';
}

export interface ParsedMcpServers {
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
}

export interface ParseMcpOptions {
  source: McpSource;
  /** Resolves `$VAR` / `${VAR}` in `env` and `headers` values; absent: values are kept as written. */
  expand?: (value: string, where: string) => string;
}

/** Fields Gemini CLI knows that make no sense in CI; each is reported, and an enabled OAuth leaves the server out. */
const UNSUPPORTED = ['oauth', 'authProviderType', 'targetAudience', 'targetServiceAccount', 'tcp', 'extension'];
const KNOWN = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'httpUrl',
  'type',
  'headers',
  'timeout',
  'trust',
  'includeTools',
  'excludeTools',
  'description',
  ...UNSUPPORTED,
]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pure: the `mcpServers` object to server records, in the order written; a broken entry is left out with its problem named. */
export function parseMcpServers(value: unknown, o: ParseMcpOptions): ParsedMcpServers {
  const problems: McpConfigProblem[] = [];
  if (value === undefined || value === null) return { servers: [], problems };
  if (!isRecord(value))
    return {
      servers: [],
      problems: [
        { path: 'mcpServers', severity: 'error', message: 'must be an object of server names to server settings' },
      ],
    };
  const servers: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries(value)) {
    const parsed = parseServer(name, raw, { ...o, problems });
    if (parsed) servers.push(parsed);
  }
  return { servers, problems };
}

/** One server entry being checked: where it sits, its raw fields, and where findings go. */
interface ServerCheck {
  at: string;
  raw: Record<string, unknown>;
  /** Warnings (and the final error) for the whole parse. */
  problems: McpConfigProblem[];
  /** Reasons this server is left out; joined into one error at the end. */
  errors: string[];
  expand?: ParseMcpOptions['expand'];
}

function parseServer(
  name: string,
  raw: unknown,
  o: ParseMcpOptions & { problems: McpConfigProblem[] },
): McpServerConfig | undefined {
  const { problems } = o;
  const at = `mcpServers.${name}`;
  if (name.trim() === '' || /[\u0000-\u001f]/.test(name)) {
    problems.push({
      path: at,
      severity: 'error',
      message: 'a server name must be non-empty text without control characters',
    });
    return undefined;
  }
  if (!isRecord(raw)) {
    problems.push({
      path: at,
      severity: 'error',
      message: 'must be an object (command, args, env... or url, headers...)',
    });
    return undefined;
  }
  const c: ServerCheck = { at, raw, problems, errors: [], expand: o.expand };
  checkFieldNames(c);

  const command = readString(c, 'command');
  const url = readString(c, 'url');
  const httpUrl = readString(c, 'httpUrl');
  const type = raw.type;
  if (type !== undefined && type !== 'http' && type !== 'sse') fail(c, 'type', 'must be "http" or "sse"');
  const options = readServerOptions(c);
  const transport = parseTransport(c, { command, url, httpUrl, type });

  if (c.errors.length > 0 || !transport) {
    problems.push({ path: at, severity: 'error', message: `left out: ${c.errors.join('; ')}` });
    return undefined;
  }
  return { name, source: o.source, transport, ...options };
}

function fail(c: ServerCheck, field: string, message: string): void {
  c.errors.push(`${field ? `${field} ` : ''}${message}`);
}

/** Unknown fields warn; OAuth or a credential provider leaves the server out; other CI-less fields warn. */
function checkFieldNames(c: ServerCheck): void {
  const { at, raw, problems } = c;
  for (const key of Object.keys(raw)) {
    if (!KNOWN.has(key))
      problems.push({ path: `${at}.${key}`, severity: 'warning', message: 'is not a field Gemini CLI knows; ignored' });
  }
  const oauth = raw.oauth;
  if (isRecord(oauth) && oauth.enabled === true)
    fail(
      c,
      'oauth',
      'asks for OAuth, which needs a browser: not available in agent-action; give a token in `headers` instead',
    );
  else if (raw.authProviderType !== undefined && raw.authProviderType !== 'dynamic_discovery')
    fail(
      c,
      'authProviderType',
      `${JSON.stringify(raw.authProviderType)} is not supported in agent-action; give a token in \`headers\` instead`,
    );
  for (const key of UNSUPPORTED) {
    if (raw[key] !== undefined && key !== 'oauth' && key !== 'authProviderType')
      problems.push({
        path: `${at}.${key}`,
        severity: 'warning',
        message: 'is not supported in agent-action; ignored',
      });
  }
}

function readString(c: ServerCheck, field: string): string | undefined {
  const v = c.raw[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') return void fail(c, field, 'must be a non-empty string');
  return v;
}

function readStrings(c: ServerCheck, field: string): string[] | undefined {
  const v = c.raw[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    return void fail(c, field, 'must be a list of strings');
  return v as string[];
}

/** An object of strings, each value passed through `expand` when given. */
function readMap(c: ServerCheck, field: string): Record<string, string> {
  const v = c.raw[field];
  if (v === undefined) return {};
  if (!isRecord(v) || !Object.values(v).every((x) => typeof x === 'string'))
    return (fail(c, field, 'must be an object of string values'), {});
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v as Record<string, string>))
    out[k] = c.expand ? c.expand(val, `${c.at}.${field}.${k}`) : val;
  return out;
}

type ServerOptions = Pick<McpServerConfig, 'timeoutMs' | 'trust' | 'includeTools' | 'excludeTools' | 'description'>;

/** The transport-independent fields, as they go into the server record. */
function readServerOptions(c: ServerCheck): ServerOptions {
  const { raw } = c;
  const timeout = raw.timeout;
  if (timeout !== undefined && !(typeof timeout === 'number' && Number.isInteger(timeout) && timeout > 0))
    fail(c, 'timeout', 'must be a whole number of milliseconds above 0');
  const trust = raw.trust;
  if (trust !== undefined && typeof trust !== 'boolean') fail(c, 'trust', 'must be true or false');
  const description = raw.description;
  if (description !== undefined && typeof description !== 'string') fail(c, 'description', 'must be a string');
  const includeTools = readStrings(c, 'includeTools');
  const excludeTools = readStrings(c, 'excludeTools');
  return {
    ...(typeof timeout === 'number' && { timeoutMs: timeout }),
    trust: trust === true,
    ...(includeTools && { includeTools }),
    ...(excludeTools && { excludeTools }),
    ...(typeof description === 'string' && { description }),
  };
}

interface TransportFields {
  command?: string;
  url?: string;
  httpUrl?: string;
  type: unknown;
}

/** Exactly one of `command` and a URL chooses the transport; undefined when neither or both. */
function parseTransport(c: ServerCheck, t: TransportFields): McpTransportConfig | undefined {
  const kinds = [t.command && 'command', (t.url || t.httpUrl) && 'url'].filter(Boolean);
  if (kinds.length === 0)
    return void fail(c, '', 'needs `command` (a stdio server) or `url`/`httpUrl` (an HTTP server)');
  if (kinds.length > 1) return void fail(c, '', 'has both `command` and a URL: choose one transport');
  return t.command ? stdioTransport(c, t.command) : httpTransport(c, t);
}

function stdioTransport(c: ServerCheck, command: string): McpTransportConfig {
  const { at, raw, problems } = c;
  const args = readStrings(c, 'args') ?? [];
  const cwd = readString(c, 'cwd');
  for (const f of ['headers'] as const)
    if (raw[f] !== undefined)
      problems.push({ path: `${at}.${f}`, severity: 'warning', message: 'applies to HTTP servers only; ignored' });
  return { kind: 'stdio', command, args, env: readMap(c, 'env'), ...(cwd !== undefined && { cwd }) };
}

function httpTransport(c: ServerCheck, t: TransportFields): McpTransportConfig {
  const { at, raw, problems } = c;
  const { url, httpUrl, type } = t;
  const target = httpUrl ?? url!;
  if (httpUrl && url)
    problems.push({
      path: `${at}.url`,
      severity: 'warning',
      message: 'both `httpUrl` and `url` are set: `httpUrl` is used (as Gemini CLI does)',
    });
  if (!isHttpUrl(target)) fail(c, httpUrl ? 'httpUrl' : 'url', `${JSON.stringify(target)} is not an http(s) URL`);
  for (const f of ['args', 'env', 'cwd'] as const)
    if (raw[f] !== undefined)
      problems.push({ path: `${at}.${f}`, severity: 'warning', message: 'applies to stdio servers only; ignored' });
  const protocol = httpUrl ? 'streamable' : type === 'http' ? 'streamable' : type === 'sse' ? 'sse' : 'auto';
  return { kind: 'http', url: target, headers: readMap(c, 'headers'), protocol };
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Gemini CLI's `mcp.allowed` / `mcp.excluded` (and `--allowed-mcp-server-names`): which servers may start. */
export interface McpSelection {
  /** Non-empty: only these start. */
  allowed?: readonly string[];
  excluded?: readonly string[];
}

/** Pure: `mcp.allowed` and `mcp.excluded` of a settings object; problems name the field. */
export function parseMcpSelection(
  value: unknown,
  label: string,
): { selection: McpSelection; problems: McpConfigProblem[] } {
  const problems: McpConfigProblem[] = [];
  if (value === undefined) return { selection: {}, problems };
  if (!isRecord(value))
    return {
      selection: {},
      problems: [{ path: `${label} mcp`, severity: 'warning', message: 'must be an object; ignored' }],
    };
  const list = (field: 'allowed' | 'excluded'): string[] | undefined => {
    const v = value[field];
    if (v === undefined) return undefined;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    problems.push({
      path: `${label} mcp.${field}`,
      severity: 'warning',
      message: 'must be a list of server names; ignored',
    });
    return undefined;
  };
  const allowed = list('allowed');
  const excluded = list('excluded');
  return { selection: { ...(allowed && { allowed }), ...(excluded && { excluded }) }, problems };
}

/** Pure: why a server does not start under the selection, or undefined when it may (Gemini CLI's isBlockedBySettings). */
export function blockedBySelection(name: string, s: McpSelection): string | undefined {
  if (s.allowed && s.allowed.length > 0 && !s.allowed.includes(name))
    return `not among the allowed MCP servers (${s.allowed.join(', ')})`;
  if (s.excluded?.includes(name)) return 'listed in mcp.excluded';
  return undefined;
}

/** Pure: Gemini CLI's includeTools/excludeTools test (exclude wins; an include entry may be `name(...)`). */
export function isToolEnabled(tool: string, c: Pick<McpServerConfig, 'includeTools' | 'excludeTools'>): boolean {
  if (c.excludeTools?.includes(tool)) return false;
  return !c.includeTools || c.includeTools.some((t) => t === tool || t.startsWith(`${tool}(`));
}

/**
 * Pure: later sources win server by server (a project's server replaces a user's of the same name),
 * as Gemini CLI merges settings scopes. Sources are given lowest precedence first.
 */
export function mergeMcpServers(lists: ReadonlyArray<readonly McpServerConfig[]>): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const list of lists)
    for (const s of list) {
      byName.delete(s.name);
      byName.set(s.name, s);
    }
  return [...byName.values()];
}
