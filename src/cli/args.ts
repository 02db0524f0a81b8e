import { parseArgs } from 'node:util';
import { AgentError, messageOf } from '../common/errors.js';
import type { ApprovalMode } from '../policy/types.js';
import type { SandboxMode } from '../sandbox/types.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

export interface CliArgs {
  kind: 'run';
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
}

export type CliCommand = CliArgs | { kind: 'help' } | { kind: 'version' } | { kind: 'policy-check'; argv: string[] } | { kind: 'sandbox-check'; argv: string[] };

export const HELP = `Usage: agent-action -p PROMPT [options]
       agent-action policy check --tool NAME [--args JSON] [...]   (see: agent-action policy check --help)
       agent-action sandbox check [--sandbox-network] [--json]     (what the sandbox can do here)

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
      --sandbox MODE           required | auto (default) | off: run commands in the OS sandbox
                               (bubblewrap); auto runs them unconfined, with a warning, where it fails
      --sandbox-network        let sandboxed commands reach the network
  -v, --version                print the version
  -h, --help                   print this help

Environment: GEMINI_API_KEY (required), GOOGLE_GEMINI_BASE_URL (optional endpoint).
Exit codes: 0 success, 1 error, 41 credentials, 42 bad input, 52 bad configuration,
53 limit reached, 54 fatal tool error, 130 cancelled.
`;

const MODES: Record<string, ApprovalMode> = { default: 'default', auto_edit: 'autoEdit', autoEdit: 'autoEdit', yolo: 'yolo', plan: 'plan' };
const FORMATS: readonly OutputFormat[] = ['text', 'json', 'stream-json'];
const SANDBOX_MODES: readonly SandboxMode[] = ['required', 'auto', 'off'];

/** Pure: argv (without node and script) to a command, or AgentError('input') naming the flag. */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  if (argv[0] === 'policy') {
    if (argv[1] !== 'check') throw new AgentError('input', `unknown command "policy ${argv[1] ?? ''}": did you mean "policy check"?`, { site: { input: 'policy' } });
    return { kind: 'policy-check', argv: argv.slice(2) };
  }
  if (argv[0] === 'sandbox') {
    if (argv[1] !== 'check') throw new AgentError('input', `unknown command "sandbox ${argv[1] ?? ''}": did you mean "sandbox check"?`, { site: { input: 'sandbox' } });
    return { kind: 'sandbox-check', argv: argv.slice(2) };
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
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
        version: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    // node:util says e.g. "Unknown option '--foo'"; keep its words, name the flag.
    const flag = /'([^']+)'/.exec(messageOf(e))?.[1];
    throw new AgentError('input', `${messageOf(e)}. Run agent-action --help for the flags.`, { site: { input: flag } });
  }
  const v = parsed.values;
  if (v.help) return { kind: 'help' };
  if (v.version) return { kind: 'version' };
  if (parsed.positionals.length > 0) {
    throw new AgentError('input', `unexpected argument "${parsed.positionals[0]}": pass the task with -p "..."`, { site: { input: parsed.positionals[0] } });
  }

  const output = (v['output-format'] ?? 'text') as OutputFormat;
  if (!FORMATS.includes(output)) {
    throw new AgentError('input', `--output-format "${v['output-format']}" is not one of ${FORMATS.join(', ')}`, { site: { input: '--output-format' } });
  }
  const modeText = v.yolo ? 'yolo' : (v['approval-mode'] ?? 'default');
  const mode = MODES[modeText];
  if (!mode) {
    throw new AgentError('input', `--approval-mode "${modeText}" is not one of default, auto_edit, yolo, plan`, { site: { input: '--approval-mode' } });
  }
  if (v.yolo && v['approval-mode'] && v['approval-mode'] !== 'yolo') {
    throw new AgentError('input', `--yolo contradicts --approval-mode ${v['approval-mode']}`, { site: { input: '--yolo' } });
  }
  const sandbox = SANDBOX_MODES.find((m) => m === (v.sandbox ?? 'auto'));
  if (!sandbox) throw new AgentError('input', `--sandbox "${v.sandbox}" is not one of ${SANDBOX_MODES.join(', ')}`, { site: { input: '--sandbox' } });
  return {
    kind: 'run',
    prompt: v.prompt,
    output,
    model: v.model,
    mode,
    maxTurns: parsePositiveInt(v['max-turns'], '--max-turns') ?? 100,
    timeoutMinutes: parsePositiveInt(v['timeout-minutes'], '--timeout-minutes'),
    cwd: v.cwd,
    policies: v.policy ?? [],
    adminPolicies: v['admin-policy'] ?? [],
    sandbox,
    sandboxNetwork: v['sandbox-network'] ?? false,
  };
}

function parsePositiveInt(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new AgentError('input', `${flag} "${text}" is not a whole number of at least 1`, { site: { input: flag } });
  }
  return Number(text);
}
