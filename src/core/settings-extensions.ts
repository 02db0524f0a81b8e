/**
 * The parts of settings.json files that extend a run (MCP servers, `mcp.allowed`/`mcp.excluded`,
 * hooks), read for a face: the Action passes its trusted snapshot (and its `mcp-servers` input),
 * the CLI the user's and the project's files. Also the policy rules those settings imply, as
 * Gemini CLI derives them: a server with `trust: true` has its tools allowed (priority 200), a
 * server named in `mcp.allowed` (or `--allowed-mcp-server-names`) too (priority 100), one in
 * `mcp.excluded` denied (priority 900); all but the deny in every mode except plan. Each rule sits
 * in the tier of the file that asked for it: a repository's settings in the Workspace tier (under
 * the workflow's own policy), the user's or the workflow's in the User tier. Gemini CLI puts them
 * all in its User tier.
 */
import type { SettingsLayer } from '../context/run-settings.js';
import { parseHooks, type HookGroup } from '../hooks/config.js';
import type { PolicySource } from '../policy/load.js';
import {
  mergeMcpServers,
  parseMcpSelection,
  parseMcpServers,
  type McpSelection,
  type McpServerConfig,
} from '../tools/mcp/config.js';
import { expandVariables } from '../tools/mcp/env-expand.js';

export interface ExtensionSettings {
  servers: McpServerConfig[];
  selection: McpSelection;
  hooks: HookGroup[];
  /** Rules the settings imply, by tier. */
  policy: { workspace: PolicySource[]; user: PolicySource[] };
  warnings: string[];
}

export interface ReadExtensionOptions {
  /**
   * The run's settings scopes, lowest precedence first (the user's file, then the project's; the
   * repository's, then the workflow's `settings` input). A workflow scope's `mcpServers` come in
   * `inputServers` (resolved from the step's environment), so its own are not read here.
   */
  layers: readonly SettingsLayer[];
  /** Servers the workflow adds (the Action's `mcp-servers` input, already resolved): they win by name. */
  inputServers?: readonly McpServerConfig[];
  /** `--allowed-mcp-server-names`: replaces `mcp.allowed`. */
  allowedNames?: readonly string[];
  /** What `$VAR` in a settings file's `env` and `headers` may name: the environment every command sees. */
  env: Readonly<Record<string, string>>;
}

export function readExtensionSettings(o: ReadExtensionOptions): ExtensionSettings {
  const warnings: string[] = [];
  const lists: McpServerConfig[][] = [];
  const hooks: HookGroup[] = [];
  const policy: ExtensionSettings['policy'] = { workspace: [], user: [] };
  let allowed: { names: readonly string[]; tier: 'workspace' | 'user'; label: string } | undefined;
  const excluded: Array<{ name: string; tier: 'workspace' | 'user'; label: string }> = [];
  for (const f of o.layers) {
    const file = { value: f.value };
    if (f.origin !== 'workflow') {
      const expand = (v: string) => expandVariables(v, o.env).value;
      const parsed = parseMcpServers(file.value.mcpServers, { source: { label: f.label, origin: f.origin }, expand });
      warnings.push(...parsed.problems.map((p) => `${f.label} ${p.path}: ${p.message}`));
      lists.push(parsed.servers);
    }
    const sel = parseMcpSelection(file.value.mcp, f.label);
    warnings.push(...sel.problems.map((p) => `${p.path}: ${p.message}`));
    const tier = f.origin === 'repository' ? 'workspace' : 'user';
    if (sel.selection.allowed) allowed = { names: sel.selection.allowed, tier, label: `${f.label} mcp.allowed` };
    for (const name of sel.selection.excluded ?? []) excluded.push({ name, tier, label: `${f.label} mcp.excluded` });
    const h = parseHooks(file.value.hooks, f.label);
    warnings.push(...h.problems.map((p) => `${f.label} ${p.path}: ${p.message}`));
    hooks.push(...h.groups);
  }
  if (o.inputServers) lists.push([...o.inputServers]);
  if (o.allowedNames) allowed = { names: o.allowedNames, tier: 'user', label: '--allowed-mcp-server-names' };
  const servers = mergeMcpServers(lists);

  for (const s of servers) {
    if (!s.trust) continue;
    const tier = s.source.origin === 'repository' ? 'workspace' : 'user';
    policy[tier].push(
      serverRule(s.name, { decision: 'allow', priority: 200, label: `${s.source.label} mcpServers.${s.name}.trust` }),
    );
  }
  for (const name of allowed?.names ?? [])
    policy[allowed!.tier].push(serverRule(name, { decision: 'allow', priority: 100, label: allowed!.label }));
  for (const e of excluded)
    policy[e.tier].push(serverRule(e.name, { decision: 'deny', priority: 900, label: e.label }));
  const selection: McpSelection = {
    ...(allowed && { allowed: allowed.names }),
    ...(excluded.length && { excluded: excluded.map((e) => e.name) }),
  };
  return { servers, selection, hooks, policy, warnings };
}

/** Pure: Gemini CLI's settings-derived rule for one server (or `*`: every server), as inline TOML. */
export function serverRule(
  name: string,
  { decision, priority, label }: { decision: 'allow' | 'deny'; priority: number; label: string },
): PolicySource {
  const toolName = name === '*' ? 'mcp_*' : `mcp_${name}_*`;
  const modes = decision === 'allow' ? 'modes = ["default", "autoEdit", "yolo"]\n' : '';
  const inline = `[[rule]]\ntoolName = ${JSON.stringify(toolName)}\nmcpName = ${JSON.stringify(name)}\ndecision = "${decision}"\npriority = ${priority}\n${modes}`;
  return { inline, label };
}
