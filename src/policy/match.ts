import { stableStringify } from '../common/json.js';
import { parseCommandPrefix, prefixMatches, type CommandPrefix, type PrefixTarget } from './command-prefix.js';
import { createArgsText, createPrefixedRegex, type ArgsText, type PrefixedRegex } from './regex-prefix.js';
import { isCommandSpecific, type TieredRule } from './rule.js';
import type { ShellPart } from './shell/split.js';
import type { ApprovalMode, Decision, PolicyContext, PolicyQuery } from './types.js';

/** What one rule is tested against: a whole call, or one sub-command of a shell call. */
export interface Subject {
  /** The call's name and its aliases (legacy names; for MCP tools the `mcp_<server>_<tool>` form too). */
  names: readonly string[];
  mcpServer?: string;
  /**
   * The tool's name on its server, when the call is named `mcp_<server>_<tool>`. Only a rule that
   * names the server (`mcpName`) matches on it, as in Gemini CLI: a rule for `read_file` must never
   * match another server's tool that happens to be called `read_file`.
   */
  mcpShortName?: string;
  annotations?: Readonly<Record<string, unknown>>;
  subagent?: string;
  args: Record<string, unknown>;
  /** For shell calls: the sub-command under test. Command rules match nothing without one. */
  part?: ShellPart;
  /** The command line sets variables that later commands may see (PATH=...; x): prefixes do not vouch for them. */
  environmentChanged?: boolean;
}

/** Old names Gemini CLI still honours in policy files, both ways. */
const ALIASES: ReadonlyArray<readonly [string, string]> = [['search_file_content', 'grep_search']];

export function subjectOf(q: PolicyQuery): Subject {
  const names = new Set([q.toolName]);
  for (const [a, b] of ALIASES) {
    if (q.toolName === a) names.add(b);
    if (q.toolName === b) names.add(a);
  }
  // Without a server, an `mcp_<server>_<tool>` name still says which server it is (up to the first `_`).
  const mcpServer = q.mcpServer ?? (/^mcp_([^_]+)_./.exec(q.toolName)?.[1] || undefined);
  let mcpShortName: string | undefined;
  if (mcpServer !== undefined) {
    const fqn = `mcp_${mcpServer}_`;
    // Rules may name an MCP tool either way: fully qualified, or short with mcpName.
    if (q.toolName.startsWith(fqn)) mcpShortName = q.toolName.slice(fqn.length);
    else names.add(`${fqn}${q.toolName}`);
  }
  // Gemini CLI lets rules name a subagent as if it were a tool.
  const agent = q.args.agent_name;
  if (q.toolName === 'invoke_agent' && typeof agent === 'string') names.add(agent);
  return {
    names: [...names],
    ...(mcpServer !== undefined && { mcpServer }),
    ...(mcpShortName !== undefined && { mcpShortName }),
    ...(q.annotations && { annotations: q.annotations }),
    ...(q.subagent !== undefined && { subagent: q.subagent }),
    args: q.args,
  };
}

/**
 * Arguments as `argsPattern` sees them: keys sorted at every level, and each top-level `"key":value`
 * pair framed by NUL characters, as Gemini CLI does, so patterns like `\x00"file_path":"..."\x00`
 * can anchor on one whole argument. A NUL inside a value is escaped by JSON, so frames cannot be forged.
 */
function argsText(args: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const k of Object.keys(args).sort()) {
    const v = args[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    pairs.push(`\0${JSON.stringify(k)}:${stableStringify(v)}\0`);
  }
  return `{${pairs.join(',')}}`;
}

/** `namesServer`: the rule has `mcpName`, so the tool's short name on its server counts too. */
function toolNameMatches(pattern: string, s: Subject, namesServer: boolean): boolean {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent; a fast path, the glob below also matches every name with an empty head
  if (pattern === '*') return true;
  if (pattern === 'mcp_*') return s.mcpServer !== undefined;
  const server = /^mcp_(.+)_\*$/.exec(pattern)?.[1];
  if (server !== undefined) return s.mcpServer === server;
  const names = namesServer && s.mcpShortName !== undefined ? [...s.names, s.mcpShortName] : s.names;
  if (pattern.endsWith('*')) {
    const head = pattern.slice(0, -1);
    return names.some((n) => n.startsWith(head));
  }
  return names.includes(pattern);
}

/**
 * A rule with its patterns compiled once: what is tested per call, after the index picked it. Every
 * field is always present (undefined when unused), so all of them share one shape and the per-call
 * test stays monomorphic.
 */
export interface CompiledRule {
  rule: TieredRule;
  /** Its place in the sorted rules: the first match is the lowest. */
  at: number;
  decision: Decision;
  subagent: string | undefined;
  annotations: Readonly<Record<string, unknown>> | undefined;
  argsPattern: PrefixedRegex | undefined;
  commandRegex: PrefixedRegex | undefined;
  prefixes: CommandPrefix[] | undefined;
  /** Allows by command text: a changed environment voids it for later sub-commands. */
  allowsByText: boolean;
}

export function compileRule(rule: TieredRule, at: number): CompiledRule {
  return {
    rule,
    at,
    decision: rule.decision,
    subagent: rule.subagent,
    annotations: rule.toolAnnotations,
    argsPattern: rule.argsPattern ? createPrefixedRegex(rule.argsPattern) : undefined,
    commandRegex: rule.commandRegex ? createPrefixedRegex(rule.commandRegex) : undefined,
    prefixes: rule.commandPrefixes?.map(parseCommandPrefix),
    allowsByText: rule.decision === 'allow' && isCommandSpecific(rule),
  };
}

/**
 * The approval mode and context a decision is made in. The engine keeps one per mode and hands the
 * same object to every lookup of a decision, so the per-rule tests allocate nothing.
 */
export interface MatchScope {
  readonly mode: ApprovalMode;
  readonly context: PolicyContext;
  /** Commands run in the OS sandbox (the runtime's probe, never a call's text): `sandboxed` rules match on it. */
  readonly sandboxed?: boolean;
}

/** What does not change between two calls with the same names, server, mode and context (tested once per shape: see rule-index.ts). */
export function staticMatch(c: CompiledRule, s: Subject, scope: MatchScope): boolean {
  const rule = c.rule;
  if (rule.modes && rule.modes.length > 0 && !rule.modes.includes(scope.mode)) return false;
  // interactive = true: only where a person can be asked; interactive = false: only where nobody can.
  if (rule.interactive !== undefined && rule.interactive !== (scope.context !== 'headless')) return false;
  if (rule.sandboxed !== undefined && rule.sandboxed !== (scope.sandboxed === true)) return false;
  if (rule.mcpName !== undefined) {
    if (s.mcpServer === undefined || (rule.mcpName !== '*' && rule.mcpName !== s.mcpServer)) return false;
  }
  return rule.toolNames.some((t) => toolNameMatches(t, s, rule.mcpName !== undefined));
}

/** The rest, per call: subagent, annotations, and what the arguments or the sub-command say. Loops, not closures: it runs for every candidate. */
export function callMatch(c: CompiledRule, s: Subject, text: LazyArgsText): boolean {
  if (c.subagent !== undefined && c.subagent !== s.subagent) return false;
  if (c.annotations && !annotationsMatch(c.annotations, s.annotations)) return false;
  // After `PATH=/tmp/x;` no rule that allows by command text can vouch for what `git` then runs.
  if (s.part && s.environmentChanged && c.allowsByText) return false;
  if (c.argsPattern && !c.argsPattern.test(text.get())) return false;
  if (c.prefixes) {
    if (!hasPart(s)) return false;
    let any = false;
    for (const p of c.prefixes) {
      if (prefixMatches(p, s, c.decision)) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  if (c.commandRegex && !(s.part && c.commandRegex.test(text.get()))) return false;
  return true;
}

const hasPart = (s: Subject): s is Subject & PrefixTarget => s.part !== undefined;

function annotationsMatch(
  want: Readonly<Record<string, unknown>>,
  have: Readonly<Record<string, unknown>> | undefined,
): boolean {
  if (!have) return false;
  for (const [k, v] of Object.entries(want)) if (have[k] !== v) return false;
  return true;
}

/** The arguments' text, built the first time a pattern needs it. */
export class LazyArgsText {
  private text: ArgsText | undefined;
  constructor(private readonly args: Record<string, unknown>) {}
  get(): ArgsText {
    return (this.text ??= createArgsText(argsText(this.args)));
  }
}
