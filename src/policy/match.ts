import { stableStringify } from '../common/json.js';
import { prefixMatches } from './command-prefix.js';
import { isCommandSpecific, type TieredRule } from './rule.js';
import type { ShellPart } from './shell-split.js';
import type { ApprovalMode, PolicyContext, PolicyQuery } from './types.js';

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
export function argsText(args: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const k of Object.keys(args).sort()) {
    const v = args[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    pairs.push(`\0${JSON.stringify(k)}:${stableStringify(v)}\0`);
  }
  return `{${pairs.join(',')}}`;
}

/** `namesServer`: the rule has `mcpName`, so the tool's short name on its server counts too. */
export function toolNameMatches(pattern: string, s: Subject, namesServer = false): boolean {
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

export interface MatchOptions {
  mode: ApprovalMode;
  context: PolicyContext;
  /** Text of the arguments, computed at most once per subject. */
  argsText: () => string;
}

export function ruleMatches(rule: TieredRule, s: Subject, o: MatchOptions): boolean {
  if (rule.modes && rule.modes.length > 0 && !rule.modes.includes(o.mode)) return false;
  // interactive = true: only where a person can be asked; interactive = false: only where nobody can.
  if (rule.interactive !== undefined && rule.interactive !== (o.context !== 'headless')) return false;
  if (rule.subagent !== undefined && rule.subagent !== s.subagent) return false;
  if (rule.mcpName !== undefined) {
    if (s.mcpServer === undefined || (rule.mcpName !== '*' && rule.mcpName !== s.mcpServer)) return false;
  }
  if (!rule.toolNames.some((t) => toolNameMatches(t, s, rule.mcpName !== undefined))) return false;
  if (rule.toolAnnotations) {
    const have = s.annotations;
    if (!have) return false;
    for (const [k, v] of Object.entries(rule.toolAnnotations)) if (have[k] !== v) return false;
  }
  // After `PATH=/tmp/x;` no rule that allows by command text can vouch for what `git` then runs.
  if (s.part && s.environmentChanged && rule.decision === 'allow' && isCommandSpecific(rule)) return false;
  if (rule.argsPattern && !rule.argsPattern.test(o.argsText())) return false;
  if (rule.commandPrefixes) {
    const part = s.part;
    if (!part || !rule.commandPrefixes.some((p) => prefixMatches(p, part, rule.decision, s.environmentChanged === true))) return false;
  }
  if (rule.commandRegex && !(s.part && rule.commandRegex.test(o.argsText()))) return false;
  return true;
}

/** The first rule that matches, in the engine's order (highest final priority first). */
export function firstMatch(
  rules: readonly TieredRule[],
  s: Subject,
  mode: ApprovalMode,
  context: PolicyContext,
  only?: (r: TieredRule) => boolean,
): TieredRule | undefined {
  let text: string | undefined;
  const o: MatchOptions = { mode, context, argsText: () => (text ??= argsText(s.args)) };
  for (const r of rules) if ((!only || only(r)) && ruleMatches(r, s, o)) return r;
  return undefined;
}
