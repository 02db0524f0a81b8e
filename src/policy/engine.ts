import { AgentError } from '../common/errors.js';
import { quoteWord } from './command-prefix.js';
import { decide, isShellCall, type DecideSetting } from './decide.js';
import { createRuleIndex } from './rule-index.js';
import { checkRegex } from './regex-check.js';
import { ALWAYS_SOURCE, type Rule, type TieredRule } from './rule.js';
import { loadBashGrammar, splitShell, type ShellPart } from './shell/split.js';
import {
  TIER_BASE,
  type AddedRule,
  type ApprovalMode,
  type PolicyContext,
  type PolicyEngine,
  type PolicyQuery,
  type TierName,
} from './types.js';

/** Rules added by "always" approvals: Workspace tier, priority 950 (Gemini CLI's always-allow fraction). */
const ALWAYS_TIER: TierName = 'workspace';
const ALWAYS_PRIORITY = 950;

/** From strictest to most permissive: an approval in one mode also holds in the modes after it. */
const PERMISSIVENESS: readonly ApprovalMode[] = ['plan', 'default', 'autoEdit', 'yolo'];

/** Tools whose second word picks what they do (`git push` vs `git log`): an approval covers both words. */
const SUBCOMMAND_TOOLS = new Set([
  'git',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'cargo',
  'go',
  'docker',
  'kubectl',
  'gh',
  'pip',
  'pip3',
  'make',
  'dotnet',
  'mvn',
  'gradle',
  'bundle',
  'rake',
  'poetry',
  'uv',
  'deno',
  'bun',
]);

/** Places rules in their tiers and sorts them once: highest final priority first, ties in load order. */
export function placeRules(
  entries: ReadonlyArray<{ tier: TierName; rules: readonly Rule[] }>,
  startOrder = 0,
): TieredRule[] {
  let order = startOrder;
  const placed: TieredRule[] = [];
  for (const { tier, rules } of entries) {
    for (const r of rules)
      placed.push({ ...r, tier, finalPriority: TIER_BASE[tier] + r.priority / 1000, order: order++ });
  }
  return sortRules(placed);
}

const sortRules = (rules: TieredRule[]): TieredRule[] =>
  rules.sort((a, b) => b.finalPriority - a.finalPriority || a.order - b.order);

export interface EngineOptions {
  /** The workspace root, absolute: shell redirections may write inside it (outside .git/, .github/, .gemini/). Without it every absolute target counts as outside. */
  workspace?: string;
  /**
   * Whether commands really run in the OS sandbox, as the runtime found it (its probe): what rules
   * with `sandboxed` match on. Awaited by the first decision; absent, or a probe that failed: not.
   */
  sandboxed?: PromiseLike<boolean> | boolean;
}

/** An engine over already-validated rules. A decision on a shell command awaits the bash grammar itself. */
export function createPolicyEngine(
  rules: readonly TieredRule[],
  context: PolicyContext,
  options: EngineOptions = {},
): PolicyEngine {
  // One setting per mode, made once: a decision allocates no options object of its own.
  const settings = new Map<ApprovalMode, DecideSetting>();
  let sandboxed: boolean | undefined = typeof options.sandboxed === 'boolean' ? options.sandboxed : undefined;
  const settingFor = (mode: ApprovalMode, inSandbox: boolean): DecideSetting => {
    let setting = settings.get(mode);
    if (!setting)
      settings.set(
        mode,
        (setting = {
          mode,
          context,
          sandboxed: inSandbox,
          ...(options.workspace !== undefined && { workspace: options.workspace }),
        }),
      );
    return setting;
  };
  // A probe that failed is no sandbox: `sandboxed = true` rules then never match (fail closed).
  const readSandboxed = async (): Promise<boolean> =>
    (sandboxed ??= await Promise.resolve(options.sandboxed ?? false).then(
      (v) => v === true,
      () => false,
    ));
  let index = createRuleIndex(sortRules([...rules]));
  const added: AddedRule[] = [];
  // Stryker disable next-line ArrowFunction: equivalent; NaN orders compare as equal, and the stable sort keeps each approval after the rules before it
  let nextOrder = rules.reduce((m, r) => Math.max(m, r.order + 1), 0);

  const add = (a: AddedRule) => {
    index = createRuleIndex(
      sortRules([
        ...index.rules,
        {
          ...ruleOfAdded(a),
          tier: ALWAYS_TIER,
          finalPriority: TIER_BASE[ALWAYS_TIER] + ALWAYS_PRIORITY / 1000,
          order: nextOrder++,
        },
      ]),
    );
    added.push(a);
  };

  return {
    context,
    decide: async (query, mode) => decide(index, settingFor(mode, await readSandboxed()), query),
    async allowAlways(query, mode) {
      if (isShellCall(query)) await loadBashGrammar();
      const a = narrowedRule(query, mode);
      add(a);
      return a;
    },
    restoreAdded(rules) {
      for (const a of rules) add(a);
    },
    get added() {
      return added;
    },
  };
}

/**
 * The rule an "always" approval of this call implies: same tool, narrowed, this mode and more
 * permissive ones, and, for a sub-agent's call, that sub-agent only (Gemini CLI's `subagent` rule
 * field): a maintainer who trusts the investigator with a command has not trusted the main agent
 * or another sub-agent with it. A shell call needs the bash grammar loaded (allowAlways awaits it).
 */
export function narrowedRule(q: PolicyQuery, mode: ApprovalMode): AddedRule {
  const rule = narrowedCall(q, PERMISSIVENESS.slice(PERMISSIVENESS.indexOf(mode)));
  return q.subagent !== undefined ? { ...rule, subagent: q.subagent } : rule;
}

function narrowedCall(q: PolicyQuery, modes: ApprovalMode[]): AddedRule {
  const toolName =
    q.mcpServer && !q.toolName.startsWith(`mcp_${q.mcpServer}_`) ? `mcp_${q.mcpServer}_${q.toolName}` : q.toolName;
  if (isShellCall(q)) {
    const command = q.args.command;
    const split = splitShell(command);
    const prefixes = split.parts.map(prefixOf);
    const narrowable = split.unknowns.length === 0 && !split.changesEnvironment;
    if (narrowable && prefixes.length > 0 && prefixes.every((p) => p !== undefined)) {
      const unique = [...new Set(prefixes as string[])];
      return { toolName, commandPrefix: unique.length === 1 ? unique[0] : unique, modes };
    }
    // Not narrowable to prefixes: approve exactly this command line.
    return { toolName, argsPattern: exactArg('command', command), modes };
  }
  // One agent approved is not every agent: invoke_agent is narrowed to the agent it named.
  if (q.toolName === 'invoke_agent' && typeof q.args.agent_name === 'string')
    return { toolName, argsPattern: exactArg('agent_name', q.args.agent_name), modes };
  const path = q.args.file_path ?? q.args.dir_path;
  if (typeof path === 'string')
    return { toolName, argsPattern: exactArg(q.args.file_path !== undefined ? 'file_path' : 'dir_path', path), modes };
  return { toolName, modes };
}

/** The first word, and the second for tools with subcommands; none when the command's words are not literal. */
function prefixOf(p: ShellPart): string | undefined {
  if (p.assignments.length > 0 || !p.literal[0]) return undefined;
  const name = p.words[0]!;
  const sub = p.words[1];
  if (!SUBCOMMAND_TOOLS.has(name) || sub === undefined || !/^[A-Za-z][\w:.-]*$/.test(sub)) return quoteWord(name);
  // Stryker disable next-line ConditionalExpression: equivalent; a word that is not literal always holds a character ($ * ? [ { ~ or a quote) the name pattern above refuses
  return p.literal[1] ? `${name} ${sub}` : quoteWord(name);
}

const exactArg = (key: string, value: string): string =>
  `\\x00${`${JSON.stringify(key)}:${JSON.stringify(value)}`.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\x00`;

function ruleOfAdded(a: AddedRule): Rule {
  if (
    typeof a.toolName !== 'string' ||
    a.toolName === '' ||
    !Array.isArray(a.modes) ||
    (a.subagent !== undefined && (typeof a.subagent !== 'string' || a.subagent === ''))
  ) {
    throw new AgentError('general', `a saved "always" rule is malformed: ${JSON.stringify(a)}`);
  }
  let argsPattern: RegExp | undefined;
  if (a.argsPattern !== undefined) {
    const r = checkRegex(a.argsPattern);
    if (!r.ok) throw new AgentError('general', `a saved "always" rule has a bad argsPattern: ${r.message}`);
    argsPattern = r.regex;
  }
  const prefixes =
    a.commandPrefix === undefined
      ? undefined
      : typeof a.commandPrefix === 'string'
        ? [a.commandPrefix]
        : [...a.commandPrefix];
  return {
    toolNames: [a.toolName],
    decision: 'allow',
    priority: ALWAYS_PRIORITY,
    modes: a.modes,
    ...(argsPattern && { argsPattern }),
    ...(prefixes && { commandPrefixes: prefixes }),
    ...(a.subagent !== undefined && { subagent: a.subagent }),
    source: ALWAYS_SOURCE,
    line: 0,
  };
}
