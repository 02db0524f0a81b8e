/**
 * `tools.core`, `tools.exclude` and `tools.allowed` of the run's settings, as Gemini CLI reads them:
 * - `tools.core` lists the built-in tools offered (the rest are never declared to the model); an
 *   entry may be `run_shell_command(git)`, which offers the tool and allows only commands that
 *   start with `git` (every other command is denied);
 * - `tools.exclude` names tools never offered (MCP tools by their full name too), and denies them;
 * - `tools.allowed` names tools (or `run_shell_command(npm test)` command prefixes) that skip
 *   confirmation: allow rules.
 * Each rule is ranked as Gemini CLI ranks it (exclude 400, allowed 300, core 250; the narrowing
 * deny just under its allows) in the tier of the scope that set it: the repository's settings in
 * the Workspace tier, the workflow's `settings` input (or the CLI user's file) in the User tier.
 * So the admin policy always wins, and a settings allow never beats a deny rule of the
 * repository's own policy files (rule.belowWorkspaceDenies), whatever its rank.
 */
import type { SettingsLayer } from '../context/run-settings.js';
import type { PolicySource } from '../policy/load.js';
import type { Rule } from '../policy/rule.js';
import type { ApprovalMode } from '../policy/types.js';

export interface ToolSettings {
  /** The merged `tools.core`: undefined offers every built-in tool. */
  core?: readonly string[];
  /** The merged `tools.exclude` (the union of every scope's). */
  exclude: readonly string[];
  policy: { workspace: PolicySource[]; user: PolicySource[] };
  warnings: string[];
}

const SHELL = 'run_shell_command';
/** Gemini CLI's other names of the shell tool (SHELL_TOOL_NAMES). */
const SHELL_NAMES = new Set([SHELL, 'ShellTool']);
const NON_PLAN: readonly ApprovalMode[] = ['default', 'autoEdit', 'yolo'];
const PRIORITY = { exclude: 400, allowed: 300, core: 250 } as const;
/** `name(args)`: Gemini CLI's legacy form; args narrow only the shell tool. */
const NARROWED = /^([A-Za-z0-9_-]+)\((.*)\)$/s;

/** Pure: the tool settings of each scope (lowest precedence first) and of their merge. */
export function readToolSettings(
  layers: readonly SettingsLayer[],
  merged: Readonly<Record<string, unknown>>,
): ToolSettings {
  const warnings: string[] = [];
  const policy: ToolSettings['policy'] = { workspace: [], user: [] };
  for (const layer of layers) {
    const tier = layer.origin === 'repository' ? policy.workspace : policy.user;
    const lists = toolLists(layer.value, layer.label, warnings);
    const rules: Rule[] = [];
    const source = (key: string) => `${layer.label} tools.${key}`;
    for (const name of lists.exclude ?? []) rules.push(excludeRule(name, source('exclude')));
    if (lists.allowed)
      rules.push(...allowRules(lists.allowed, { priority: PRIORITY.allowed, source: source('allowed'), narrow: true }));
    if (lists.core)
      rules.push(
        ...allowRules(lists.core, { priority: PRIORITY.core, source: source('core'), narrow: true, modes: NON_PLAN }),
      );
    if (rules.length) tier.push({ rules, label: `${layer.label} tools` });
  }
  const all = toolLists(merged, 'settings', []);
  return { ...(all.core && { core: all.core }), exclude: all.exclude ?? [], policy, warnings };
}

/** `tools.core`, `tools.exclude`, `tools.allowed` of one value, each a list of strings or left out with a warning. */
function toolLists(value: Readonly<Record<string, unknown>>, label: string, warnings: string[]) {
  const tools = value.tools;
  const out: { core?: string[]; exclude?: string[]; allowed?: string[] } = {};
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) return out;
  for (const key of ['core', 'exclude', 'allowed'] as const) {
    const list = (tools as Record<string, unknown>)[key];
    if (list === undefined) continue;
    if (Array.isArray(list) && list.every((x) => typeof x === 'string' && x.trim() !== ''))
      out[key] = list.map((x: string) => x.trim());
    else warnings.push(`${label} tools.${key}: expected a list of tool names; ignored`);
  }
  return out;
}

/** A deny for the tool, or for the shell commands that start with the prefix of `run_shell_command(prefix)`. */
function excludeRule(tool: string, source: string): Rule {
  const m = NARROWED.exec(tool);
  const base = { decision: 'deny' as const, priority: PRIORITY.exclude, source, line: 0 };
  if (m && nameOf(m[1]!) === SHELL && m[2]!.trim())
    return { ...base, toolNames: [SHELL], commandPrefixes: [m[2]!.trim()] };
  return { ...base, toolNames: [nameOf(m ? m[1]! : tool)] };
}

const nameOf = (tool: string): string => (SHELL_NAMES.has(tool) ? SHELL : tool);

/**
 * Gemini CLI's mapToolsToRules: a plain name allows the tool; `run_shell_command(prefix)` allows
 * the commands that start with the prefix, and (narrow) denies the tool's other calls just below.
 */
function allowRules(
  tools: readonly string[],
  o: { priority: number; source: string; narrow: boolean; modes?: readonly ApprovalMode[] },
): Rule[] {
  const base = {
    decision: 'allow' as const,
    source: o.source,
    line: 0,
    belowWorkspaceDenies: true,
    ...(o.modes && { modes: o.modes }),
  };
  const rules: Rule[] = [];
  const prefixes: string[] = [];
  let wholeShell = false;
  for (const tool of tools) {
    const m = NARROWED.exec(tool);
    const name = nameOf(m ? m[1]! : tool);
    if (name === SHELL && m && m[2]!.trim()) prefixes.push(m[2]!.trim());
    else {
      if (name === SHELL) wholeShell = true;
      rules.push({ ...base, toolNames: [name], priority: o.priority });
    }
  }
  if (prefixes.length) rules.push({ ...base, toolNames: [SHELL], commandPrefixes: prefixes, priority: o.priority });
  if (prefixes.length && o.narrow && !wholeShell)
    rules.push({
      toolNames: [SHELL],
      decision: 'deny',
      // Gemini CLI's "narrowing enforcement": just under the allows (priority - 0.01).
      priority: o.priority - 0.01,
      source: `${o.source} (only ${prefixes.map((p) => JSON.stringify(p)).join(', ')})`,
      line: 0,
      ...(o.modes && { modes: o.modes }),
    });
  return rules;
}

/**
 * Pure: whether a tool is offered to the model. `builtIn` tools must be in `tools.core` when it is
 * set (by name or as `name(...)`); no tool named in `tools.exclude` is offered.
 */
export function isToolOffered(name: string, builtIn: boolean, s: Pick<ToolSettings, 'core' | 'exclude'>): boolean {
  const names = name === SHELL ? SHELL_NAMES : new Set([name]);
  const listed = (list: readonly string[]) =>
    list.some((t) => names.has(t) || [...names].some((n) => t.startsWith(`${n}(`)));
  if (listed(s.exclude.filter((t) => !NARROWED.test(t)))) return false;
  return !builtIn || s.core === undefined || listed(s.core);
}

/**
 * Pure: whether an MCP tool is offered, as Gemini CLI's registry decides (isActiveTool): an exclude
 * entry of settings' `tools.exclude` or of an extension's `excludeTools` may name it by our full
 * name (`mcp_<server>_<tool>`) or by the tool's own name on its server.
 */
export function isMcpToolOffered(
  t: { name: string; serverTool: string },
  s: Pick<ToolSettings, 'exclude'>,
  extensionExcludes: readonly string[],
): boolean {
  const excluded = new Set([...s.exclude, ...extensionExcludes]);
  return !excluded.has(t.name) && !excluded.has(t.serverTool);
}
