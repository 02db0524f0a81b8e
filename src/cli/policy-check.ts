import { parseArgs } from 'node:util';
import { AgentError, isAgentError, messageOf } from '../common/errors.js';
import { formatPriority } from '../policy/decide.js';
import { loadPolicyWithDiagnostics, type PolicySource } from '../policy/load.js';
import { formatDiagnostic } from '../policy/rule.js';
import type { ApprovalMode, PolicyContext, PolicyQuery, TierName } from '../policy/types.js';
import { resolveFlagPaths } from './flag-paths.js';
import { describeError } from './output.js';

export interface PolicyCheckIo {
  stdout(s: string): void;
  stderr(s: string): void;
}

const USAGE = `usage: agent-action policy check --tool NAME [--args JSON] [--server MCP_SERVER] [--annotations JSON] [--subagent NAME]
    [--mode default|auto_edit|yolo|plan] [--context action|interactive|headless]
    [--no-defaults] [--default-policy PATH]... [--workspace-policy PATH]... [--policy PATH]... [--admin-policy PATH]...
    [--json]`;

const HELP = `${USAGE}

Which decision a tool call would get, and which rule gave it (file, line, tier, priority), with the
same engine the agent runs. Exit 0 when it decided, 42 for bad flags, 52 for a bad policy file.

  --tool NAME             the tool's name, e.g. run_shell_command, read_file, write_file
  --args JSON             the call's arguments as a JSON object, e.g. '{"command":"npm test"}'
  --server NAME           the MCP server the tool comes from
  --annotations JSON      the MCP tool's annotations, e.g. '{"readOnlyHint":true}'
  --subagent NAME         the subagent that makes the call
  --mode MODE             the approval mode (default: default)
  --context CONTEXT       whose defaults apply when no rule matches (default: action)
  --no-defaults           leave out the shipped default policies
  --default-policy PATH   a file or folder for the Default tier (repeatable); also --workspace-policy,
  --policy PATH           --policy (User tier) and --admin-policy (Admin tier)
  --json                  print {"decision", "rule", "reason"} as JSON
  -h, --help              print this help
`;

const MODES: Readonly<Record<string, ApprovalMode>> = {
  default: 'default',
  auto_edit: 'autoEdit',
  autoEdit: 'autoEdit',
  yolo: 'yolo',
  plan: 'plan',
};
const CONTEXTS: readonly PolicyContext[] = ['action', 'interactive', 'headless'];
const TIER_FLAGS: ReadonlyArray<readonly [string, TierName]> = [
  ['default-policy', 'default'],
  ['workspace-policy', 'workspace'],
  ['policy', 'user'],
  ['admin-policy', 'admin'],
];

/**
 * `agent-action policy check`: which decision a call would get, and which rule gave it.
 * argv is what follows `policy check`. Exit 0 when it decided (or printed its help), 52 for a bad
 * policy file, 42 for bad flags or a policy path that does not exist.
 */
export async function runPolicyCheck(argv: string[], io: PolicyCheckIo, cwd: string = process.cwd()): Promise<number> {
  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(argv);
    if (flags === 'help') return (io.stdout(HELP), 0);
    for (const [flag, tier] of TIER_FLAGS)
      resolveFlagPaths(
        `--${flag}`,
        (flags.tiers[tier] ?? []).filter((p) => typeof p === 'string'),
        cwd,
      );
  } catch (e) {
    io.stderr(`agent-action policy check: ${messageOf(e)}\n${USAGE}\n`);
    return 42;
  }
  try {
    const { engine, warnings } = await loadPolicyWithDiagnostics({
      context: flags.context,
      tiers: flags.tiers,
      useBuiltinDefaults: flags.defaults,
    });
    for (const w of warnings) io.stderr(`${formatDiagnostic(w)}\n`);
    const v = await engine.decide(flags.query, flags.mode);
    if (flags.json) {
      const rule = v.rule && { source: v.rule.source, line: v.rule.line, tier: v.rule.tier, priority: v.rule.priority };
      io.stdout(`${JSON.stringify({ decision: v.decision, rule, reason: v.reason })}\n`);
    } else {
      const where = v.rule
        ? `rule: ${v.rule.source}${v.rule.line ? `:${v.rule.line}` : ''} (tier ${v.rule.tier}, priority ${formatPriority(v.rule.priority)})`
        : `rule: none matched; the ${flags.context} context's default applied`;
      io.stdout(`${v.decision}\n${where}\nreason: ${v.reason}\n`);
    }
    return 0;
  } catch (e) {
    io.stderr(`agent-action policy check: ${isAgentError(e) ? describeError(e) : messageOf(e)}\n`);
    return isAgentError(e) ? e.exitCode : 1;
  }
}

function parseFlags(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      tool: { type: 'string' },
      args: { type: 'string' },
      server: { type: 'string' },
      annotations: { type: 'string' },
      subagent: { type: 'string' },
      mode: { type: 'string' },
      context: { type: 'string' },
      'no-defaults': { type: 'boolean' },
      'default-policy': { type: 'string', multiple: true },
      'workspace-policy': { type: 'string', multiple: true },
      policy: { type: 'string', multiple: true },
      'admin-policy': { type: 'string', multiple: true },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help' as const;
  const bad = (flag: string, why: string) =>
    new AgentError('input', `--${flag}: ${why}`, { site: { input: `--${flag}` } });
  if (positionals.length > 0) throw new AgentError('input', `unexpected argument "${positionals[0]}"`);
  if (!values.tool) throw bad('tool', 'is required (the tool name, e.g. run_shell_command)');
  const jsonObject = (flag: string, text: string | undefined): Record<string, unknown> | undefined => {
    if (text === undefined) return undefined;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw bad(flag, `is not JSON: ${messageOf(e)}`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw bad(flag, 'must be a JSON object, e.g. {"command":"ls"}');
    return v as Record<string, unknown>;
  };
  const mode = MODES[values.mode ?? 'default'];
  if (!mode) throw bad('mode', `must be default, auto_edit, yolo or plan, not "${values.mode}"`);
  const context = (values.context ?? 'action') as PolicyContext;
  if (!CONTEXTS.includes(context))
    throw bad('context', `must be action, interactive or headless, not "${values.context}"`);
  const annotations = jsonObject('annotations', values.annotations);
  const query: PolicyQuery = {
    toolName: values.tool,
    args: jsonObject('args', values.args) ?? {},
    ...(values.server !== undefined && { mcpServer: values.server }),
    ...(annotations && { annotations }),
    ...(values.subagent !== undefined && { subagent: values.subagent }),
  };
  const tiers: Partial<Record<TierName, PolicySource[]>> = {};
  for (const [flag, tier] of TIER_FLAGS) {
    const paths = values[flag as 'policy'];
    if (paths && paths.length > 0) tiers[tier] = paths;
  }
  return { query, mode, context, tiers, defaults: !values['no-defaults'], json: values.json === true };
}
