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
 * server that asks for them is reported and left out. Ours (Gemini CLI has no per-server sandbox):
 * `network` (a stdio server may reach the network), `dockerOutsideSandbox` (a `docker` server's
 * client runs outside bubblewrap).
 */
import { basename } from 'node:path';
import { isSecretName } from '../shell-env.js';
import { expandVariables } from './env-expand.js';

/** Where a server was configured; `workflow` is the Action's own input, written by the workflow's author. */
export type McpOrigin = 'repository' | 'user' | 'workflow';

export interface McpSource {
  /** For messages: `.gemini/settings.json`, `~/.gemini/settings.json`, `input 'mcp-servers'`. */
  label: string;
  origin: McpOrigin;
}

type McpTransportConfig =
  | {
      kind: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      /** The command line as written (`$VAR`s unresolved), for logs and status: a resolved token never shows. */
      shown?: string;
    }
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
  /** A stdio server's network: true or false as its settings say; undefined: the run's setting. */
  network?: boolean;
  /** A `docker` server's client runs outside bubblewrap (the container is the isolation). */
  dockerOutsideSandbox?: boolean;
  /** `$VAR`s that resolved to empty text, and the field each is in (`env.TOKEN`, `args[2]`). */
  emptyVariables?: Array<{ variable: string; field: string }>;
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
  /** Resolved values that are credentials by their variable's or field's name: to mask and redact. */
  secrets: string[];
}

export interface ParseMcpOptions {
  source: McpSource;
  /**
   * Where `$VAR` / `${VAR}` in `command`, `args`, `env`, `cwd`, `url`/`httpUrl` and `headers` are
   * looked up (Gemini CLI resolves every string of its settings); absent: kept as written.
   */
  env?: Readonly<Record<string, string | undefined>>;
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
  'network',
  'dockerOutsideSandbox',
  ...UNSUPPORTED,
]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pure: the `mcpServers` object to server records, in the order written; a broken entry is left out with its problem named. */
export function parseMcpServers(value: unknown, o: ParseMcpOptions): ParsedMcpServers {
  const problems: McpConfigProblem[] = [];
  const secrets: string[] = [];
  if (value === undefined || value === null) return { servers: [], problems, secrets };
  if (!isRecord(value))
    return {
      servers: [],
      problems: [
        { path: 'mcpServers', severity: 'error', message: 'must be an object of server names to server settings' },
      ],
      secrets,
    };
  const servers: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries(value)) {
    const parsed = parseServer(name, raw, { ...o, problems, secrets });
    if (parsed) servers.push(parsed);
  }
  return { servers, problems, secrets };
}

/** One server entry being checked: where it sits, its raw fields, and where findings go. */
interface ServerCheck {
  at: string;
  raw: Record<string, unknown>;
  /** Warnings (and the final error) for the whole parse. */
  problems: McpConfigProblem[];
  /** Reasons this server is left out; joined into one error at the end. */
  errors: string[];
  env?: ParseMcpOptions['env'];
  /** Resolved credentials, for the whole parse. */
  secrets: string[];
  /** This server's references that came out empty. */
  empty: NonNullable<McpServerConfig['emptyVariables']>;
}

function parseServer(
  name: string,
  raw: unknown,
  o: ParseMcpOptions & { problems: McpConfigProblem[]; secrets: string[] },
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
  const c: ServerCheck = { at, raw, problems, errors: [], env: o.env, secrets: o.secrets, empty: [] };
  checkFieldNames(c);

  const command = readString(c, 'command');
  const url = resolved(c, 'url', readString(c, 'url'));
  const httpUrl = resolved(c, 'httpUrl', readString(c, 'httpUrl'));
  const type = raw.type;
  if (type !== undefined && type !== 'http' && type !== 'sse') fail(c, 'type', 'must be "http" or "sse"');
  const options = readServerOptions(c);
  const transport = parseTransport(c, { command, url, httpUrl, type });

  if (c.errors.length > 0 || !transport) {
    problems.push({ path: at, severity: 'error', message: `left out: ${c.errors.join('; ')}` });
    return undefined;
  }
  return { name, source: o.source, transport, ...options, ...(c.empty.length > 0 && { emptyVariables: c.empty }) };
}

/**
 * `text` with its references resolved (when the parse has an environment), noting the empty ones
 * and keeping a credential's value among the secrets: by the variable's name (`$GITHUB_TOKEN`) or
 * the field's (`headers.Authorization`, `env.API_KEY`).
 */
function resolved<T extends string | undefined>(c: ServerCheck, field: string, text: T): T {
  if (text === undefined || c.env === undefined) return text;
  const r = expandVariables(text, c.env);
  for (const variable of r.empty) c.empty.push({ variable, field });
  const last = field.split('.').pop() ?? '';
  const secret = isSecretName(last) || /auth|cookie|api-?key/i.test(last) || r.names.some((n) => isSecretName(n));
  if (secret && r.value.length >= 4 && r.value !== text && !c.secrets.includes(r.value)) c.secrets.push(r.value);
  return r.value as T;
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

function readBoolean(c: ServerCheck, field: string): boolean | undefined {
  const v = c.raw[field];
  if (v !== undefined && typeof v !== 'boolean') return void fail(c, field, 'must be true or false');
  return v as boolean | undefined;
}

/** `dockerOutsideSandbox` applies to the Docker client only; on another command it is refused with a warning. */
function dockerServer(c: ServerCheck): boolean {
  const command = c.raw.command;
  if (typeof command === 'string' && basename(command) === 'docker') return true;
  c.problems.push({
    path: `${c.at}.dockerOutsideSandbox`,
    severity: 'warning',
    message: 'applies only to a server whose command is `docker`; ignored (the server runs in the sandbox)',
  });
  return false;
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
  for (const [k, val] of Object.entries(v as Record<string, string>)) out[k] = resolved(c, `${field}.${k}`, val);
  return out;
}

type ServerOptions = Pick<
  McpServerConfig,
  'timeoutMs' | 'trust' | 'includeTools' | 'excludeTools' | 'description' | 'network' | 'dockerOutsideSandbox'
>;

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
  const network = readBoolean(c, 'network');
  const docker = readBoolean(c, 'dockerOutsideSandbox');
  return {
    ...(typeof timeout === 'number' && { timeoutMs: timeout }),
    trust: trust === true,
    ...(includeTools && { includeTools }),
    ...(excludeTools && { excludeTools }),
    ...(typeof description === 'string' && { description }),
    ...(network !== undefined && { network }),
    ...(docker === true && dockerServer(c) && { dockerOutsideSandbox: true }),
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
  const written = readStrings(c, 'args') ?? [];
  const args = written.map((a, i) => resolved(c, `args[${i}]`, a));
  const cwd = resolved(c, 'cwd', readString(c, 'cwd'));
  for (const f of ['headers'] as const)
    if (raw[f] !== undefined)
      problems.push({ path: `${at}.${f}`, severity: 'warning', message: 'applies to HTTP servers only; ignored' });
  return {
    kind: 'stdio',
    command: resolved(c, 'command', command),
    args,
    env: readMap(c, 'env'),
    ...(cwd !== undefined && { cwd }),
    shown: [command, ...written].join(' '),
  };
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
  for (const f of ['args', 'env', 'cwd', 'network'] as const)
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
