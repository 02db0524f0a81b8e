import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AgentError, messageOf } from '../common/errors.js';
import type { ApprovalMode } from '../policy/types.js';
import type { SandboxMode } from '../sandbox/types.js';
import type { McpStartMode } from '../tools/mcp/manager.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

/** `-p`: one headless run (Gemini CLI's non-interactive mode). */
export interface PromptArgs {
  kind: 'prompt';
  prompt?: string;
  output: OutputFormat;
  model?: string;
  mode: ApprovalMode;
  maxTurns: number;
  timeoutMinutes?: number;
  cwd?: string;
  policies: string[];
  adminPolicies: string[];
  sandbox: SandboxMode;
  sandboxNetwork: boolean;
  /** Whether --approval-mode or --yolo was given (a resumed session otherwise keeps its own mode). */
  modeExplicit: boolean;
  /** `--resume latest|<number>|<id>`: continue a stored session of this project. */
  resume?: string;
  /** Answer the resumed session's pending approval. */
  approve: boolean;
  deny: boolean;
  /** `--allowed-mcp-server-names` (Gemini CLI's): only these MCP servers start, and their tools are allowed. */
  allowedMcpServerNames?: string[];
  mcpStart: McpStartMode;
}

/** `--acp`: an Agent Client Protocol server on stdin/stdout; the flags are each session's defaults. */
export interface AcpArgs {
  kind: 'acp';
  model?: string;
  mode: ApprovalMode;
  maxTurns: number;
  timeoutMinutes?: number;
  policies: string[];
  adminPolicies: string[];
  sandbox: SandboxMode;
  sandboxNetwork: boolean;
}

/**
 * What the command line asks for. Each kind is one mode of the CLI, run by its own module from
 * run.ts.
 */
export type CliCommand =
  | PromptArgs
  | AcpArgs
  | { kind: 'list-sessions'; cwd?: string }
  | { kind: 'delete-session'; selector: string; cwd?: string }
  | { kind: 'session'; argv: string[] }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'policy-help' }
  | { kind: 'policy-check'; argv: string[] }
  | { kind: 'sandbox-check'; argv: string[] }
  | { kind: 'mcp-list'; argv: string[] };

export const HELP = `Usage: agent-action -p PROMPT [options]
       agent-action --acp [options]                                 (an ACP agent on stdin/stdout)
       agent-action --list-sessions | --delete-session N
       agent-action session export|import ...                       (see: agent-action session --help)
       agent-action policy check --tool NAME [--args JSON] [...]   (see: agent-action policy --help)
       agent-action sandbox check [--sandbox-network] [--json]     (what the sandbox can do here)
       agent-action mcp list [--cwd DIR] [--json]                  (MCP servers: status and tools)

Runs the agent headlessly in a directory: it reads files, edits them and runs the commands that
policy allows, then prints the result. The prompt may also come on standard input.

Options:
  -p, --prompt TEXT            the task (stdin, when piped, is prepended to it)
  -o, --output-format FORMAT   text (default) | json | stream-json (Gemini CLI's formats)
  -m, --model MODEL            Gemini model (default: gemini-2.5-pro, or GEMINI_MODEL)
      --approval-mode MODE     default | auto_edit | yolo | plan (default: default)
  -y, --yolo                   same as --approval-mode yolo
      --max-turns N            stop after N model turns (default 100)
      --timeout-minutes N      stop after N minutes of wall time (default 30)
      --cwd DIR                the workspace (default: the current directory)
      --policy PATH            extra policy file or folder, User tier (repeatable)
      --admin-policy PATH      policy file or folder, Admin tier (repeatable)
  -r, --resume SESSION         continue a session of this project: latest, its number or its id
      --approve, --deny        answer the resumed session's waiting call (-p then adds a message;
                               with --deny, -p is the reason); without them, -p answers it: a
                               question gets it as the answer, a call is declined with it
      --list-sessions          list this project's sessions (newest last) and exit
      --delete-session N       delete a session by number or id and exit
      --acp                    run as an Agent Client Protocol agent on stdin/stdout (editors such
                               as Zed); alias --experimental-acp
      --allowed-mcp-server-names NAMES
                               only these MCP servers start (comma separated, repeatable); their
                               tools are allowed outside plan mode, as in Gemini CLI
      --mcp-start eager|lazy   start MCP servers with the agent (default) or at the first request
  -v, --version                print the version
  -h, --help                   print this help

Environment: GEMINI_API_KEY (required), GOOGLE_GEMINI_BASE_URL (optional endpoint),
XDG_STATE_HOME (sessions are kept in $XDG_STATE_HOME/agent-action, else ~/.agent-action).
Exit codes: 0 success, 1 error, 41 credentials, 42 bad input, 52 bad configuration,
53 limit reached, 54 fatal tool error, 130 cancelled.
`;

export const POLICY_HELP = `Usage: agent-action policy check --tool NAME [options]

Commands:
  policy check    which decision a tool call would get, and which rule (file, line, tier) gave it
                  (see: agent-action policy check --help)
`;

const MODES: Record<string, ApprovalMode> = {
  default: 'default',
  auto_edit: 'autoEdit',
  autoEdit: 'autoEdit',
  yolo: 'yolo',
  plan: 'plan',
};
const FORMATS: readonly OutputFormat[] = ['text', 'json', 'stream-json'];
const SANDBOX_MODES: readonly SandboxMode[] = ['required', 'auto', 'off'];

/** What each flag that takes a value expects, for the messages that reject one. */
const EXPECTS: Readonly<Record<string, string>> = {
  prompt: 'the task as text',
  'output-format': 'one of text, json, stream-json',
  model: 'a Gemini model name',
  'approval-mode': 'one of default, auto_edit, yolo, plan',
  'max-turns': 'a whole number of turns, at least 1',
  'timeout-minutes': 'a whole number of minutes, at least 1',
  cwd: 'a directory',
  policy: 'a policy file or folder',
  'admin-policy': 'a policy file or folder',
  sandbox: 'one of required, auto, off',
  resume: 'latest, a session number or a session id (see --list-sessions)',
  'delete-session': 'a session number or id (see --list-sessions)',
  'allowed-mcp-server-names': 'MCP server names, comma separated',
  'mcp-start': 'eager or lazy',
};

const OPTIONS = {
  prompt: { type: 'string', short: 'p' },
  'output-format': { type: 'string', short: 'o' },
  model: { type: 'string', short: 'm' },
  'approval-mode': { type: 'string' },
  yolo: { type: 'boolean', short: 'y' },
  'max-turns': { type: 'string' },
  'timeout-minutes': { type: 'string' },
  cwd: { type: 'string' },
  policy: { type: 'string', multiple: true },
  'admin-policy': { type: 'string', multiple: true },
  sandbox: { type: 'string' },
  'sandbox-network': { type: 'boolean' },
  resume: { type: 'string', short: 'r' },
  approve: { type: 'boolean' },
  deny: { type: 'boolean' },
  'list-sessions': { type: 'boolean' },
  'delete-session': { type: 'string' },
  acp: { type: 'boolean' },
  'experimental-acp': { type: 'boolean' },
  'allowed-mcp-server-names': { type: 'string', multiple: true },
  'mcp-start': { type: 'string' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Pure: argv (without node and script) to a command, or AgentError('input') naming the flag. */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  if (argv[0] === 'policy') return parsePolicyCommand(argv.slice(1));
  if (argv[0] === 'sandbox') {
    if (argv[1] !== 'check')
      throw new AgentError('input', `unknown command "sandbox ${argv[1] ?? ''}": did you mean "sandbox check"?`, {
        site: { input: 'sandbox' },
      });
    return { kind: 'sandbox-check', argv: argv.slice(2) };
  }
  if (argv[0] === 'session') return { kind: 'session', argv: argv.slice(1) };
  if (argv[0] === 'mcp') {
    if (argv[1] !== 'list')
      throw new AgentError('input', `unknown command "mcp ${argv[1] ?? ''}": the one mcp command is "mcp list"`, {
        site: { input: 'mcp' },
      });
    return { kind: 'mcp-list', argv: argv.slice(2) };
  }
  const v = parseFlags(argv);
  if (v.help) return { kind: 'help' };
  if (v.version) return { kind: 'version' };
  const only = (flag: string, others: string[]) => {
    const clash = others.find((o) => v[o as keyof typeof v] !== undefined);
    if (clash)
      throw new AgentError('input', `--${flag} cannot be combined with --${clash}`, { site: { input: `--${flag}` } });
  };
  if (v['list-sessions']) {
    only('list-sessions', ['prompt', 'resume', 'delete-session', 'acp', 'experimental-acp', 'approve', 'deny']);
    return { kind: 'list-sessions', cwd: v.cwd };
  }
  if (v['delete-session'] !== undefined) {
    only('delete-session', ['prompt', 'resume', 'acp', 'experimental-acp', 'approve', 'deny']);
    return { kind: 'delete-session', selector: v['delete-session'], cwd: v.cwd };
  }

  const output = (v['output-format'] ?? 'text') as OutputFormat;
  if (!FORMATS.includes(output)) throw badValue('output-format', v['output-format']);
  const modeText = v.yolo ? 'yolo' : (v['approval-mode'] ?? 'default');
  const mode = MODES[modeText];
  if (!mode) throw badValue('approval-mode', modeText);
  if (v.yolo && v['approval-mode'] && v['approval-mode'] !== 'yolo') {
    throw new AgentError('input', `--yolo contradicts --approval-mode ${v['approval-mode']}`, {
      site: { input: '--yolo' },
    });
  }
  const sandbox = SANDBOX_MODES.find((m) => m === (v.sandbox ?? 'auto'));
  if (!sandbox) throw badValue('sandbox', v.sandbox);
  const maxTurns = parsePositiveInt(v['max-turns'], 'max-turns') ?? 100;
  const timeoutMinutes = parsePositiveInt(v['timeout-minutes'], 'timeout-minutes');
  if (v.acp || v['experimental-acp']) {
    const flag = v.acp ? 'acp' : 'experimental-acp';
    only(flag, ['prompt', 'resume', 'approve', 'deny', 'cwd']);
    if (v['output-format'] !== undefined)
      throw new AgentError('input', `--${flag} speaks ACP on stdout: --output-format does not apply`, {
        site: { input: '--output-format' },
      });
    return {
      kind: 'acp',
      model: v.model,
      mode,
      maxTurns,
      timeoutMinutes,
      policies: v.policy ?? [],
      adminPolicies: v['admin-policy'] ?? [],
      sandbox,
      sandboxNetwork: v['sandbox-network'] ?? false,
    };
  }
  if (v.approve && v.deny)
    throw new AgentError('input', '--approve and --deny contradict each other: give one', {
      site: { input: '--approve' },
    });
  for (const f of ['approve', 'deny'] as const) {
    if (v[f] && v.resume === undefined)
      throw new AgentError('input', `--${f} answers a stored session's waiting call: use it with --resume`, {
        site: { input: `--${f}` },
      });
  }
  const mcpStart = v['mcp-start'] ?? 'eager';
  if (mcpStart !== 'eager' && mcpStart !== 'lazy') throw badValue('mcp-start', mcpStart);
  const allowedMcp = parseNameList(v['allowed-mcp-server-names']);
  return {
    kind: 'prompt',
    prompt: v.prompt,
    output,
    model: v.model,
    mode,
    maxTurns,
    timeoutMinutes,
    cwd: v.cwd,
    policies: v.policy ?? [],
    adminPolicies: v['admin-policy'] ?? [],
    sandbox,
    sandboxNetwork: v['sandbox-network'] ?? false,
    modeExplicit: v.yolo === true || v['approval-mode'] !== undefined,
    ...(v.resume !== undefined ? { resume: v.resume } : {}),
    approve: v.approve === true,
    deny: v.deny === true,
    ...(allowedMcp && { allowedMcpServerNames: allowedMcp }),
    mcpStart,
  };
}

/** Pure: Gemini CLI's comma-separated, repeatable name lists; undefined when the flag is absent. */
export function parseNameList(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values
    .flatMap((v) => v.split(','))
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
}

function parsePolicyCommand(rest: readonly string[]): CliCommand {
  const [sub] = rest;
  if (sub === 'check') return { kind: 'policy-check', argv: rest.slice(1) };
  if (sub === '--help' || sub === '-h' || sub === 'help') return { kind: 'policy-help' };
  const what = sub === undefined ? 'missing command after "policy"' : `unknown command "policy ${sub}"`;
  throw new AgentError('input', `${what}: the one policy command is "policy check" (see: agent-action policy --help)`, {
    site: { input: 'policy' },
  });
}

function parseFlags(argv: readonly string[]) {
  let parsed;
  try {
    parsed = parseArgs({ args: joinDashValues(argv, OPTIONS), allowPositionals: true, strict: true, options: OPTIONS });
  } catch (e) {
    throw flagError(e);
  }
  if (parsed.positionals.length > 0 && !parsed.values.help && !parsed.values.version) {
    const p = parsed.positionals[0];
    throw new AgentError('input', `unexpected argument "${p}": pass the task with -p "..."`, { site: { input: p } });
  }
  return parsed.values;
}

/**
 * node:util's parseArgs refuses a value that starts with a dash (`--timeout-minutes -1`, `-p "-v is
 * broken"`) as "ambiguous". A value is what follows a flag that takes one, unless it is itself one
 * of our flags: join those as `--flag=value` so the value gets checked and named like any other.
 */
function joinDashValues(argv: readonly string[], options: ParseArgsConfig['options'] & object): string[] {
  type Flag = { name: string; type: 'string' | 'boolean' };
  const longs = new Map<string, Flag>(
    Object.entries(options).map(([name, o]) => [`--${name}`, { name, type: o.type }]),
  );
  const shorts = new Map<string, Flag>(
    Object.entries(options).flatMap(([name, o]) =>
      o.short ? [[`-${o.short}`, { name, type: o.type }] as [string, Flag]] : [],
    ),
  );
  // `-y`, `-yv`: known short flags, alone or clustered. `-1` or `-v is broken` are values.
  const isShortFlags = (t: string) => /^-[A-Za-z]+$/.test(t) && [...t.slice(1)].every((c) => shorts.has(`-${c}`));
  const isFlag = (t: string) => t === '--' || longs.has(t.split('=')[0]) || isShortFlags(t);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i];
    if (t === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const flag = longs.get(t) ?? shorts.get(t);
    const next = argv[i + 1];
    if (flag?.type === 'string' && next !== undefined && next.startsWith('-') && !isFlag(next)) {
      out.push(`--${flag.name}=${next}`);
      i++;
    } else out.push(t);
  }
  return out;
}

/** node:util's parse errors, reworded to name the flag and what it expects. */
function flagError(e: unknown): AgentError {
  const code = (e as { code?: unknown }).code;
  const text = messageOf(e);
  const flag = /--([a-z-]+)/.exec(text)?.[1] ?? /'(-[^' ]+)/.exec(text)?.[1];
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag && EXPECTS[flag]) {
    return new AgentError('input', `--${flag} needs a value: ${EXPECTS[flag]}`, { site: { input: `--${flag}` } });
  }
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const unknown = /'([^']+)'/.exec(text)?.[1] ?? flag;
    return new AgentError('input', `unknown option ${unknown}: run agent-action --help for the flags`, {
      site: { input: unknown },
    });
  }
  return new AgentError('input', `${text.split('\n')[0]} (run agent-action --help for the flags)`, {
    site: { input: flag ? `--${flag}` : undefined },
  });
}

const badValue = (flag: string, value: string | undefined) =>
  new AgentError('input', `--${flag} "${value}" is not valid: it expects ${EXPECTS[flag]}`, {
    site: { input: `--${flag}` },
  });

function parsePositiveInt(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw badValue(flag, text);
  return Number(text);
}
