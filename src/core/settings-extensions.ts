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
import { mergeMcpServers, parseMcpServers, type McpServerConfig } from '../tools/mcp/config.js';
import { parseMcpSelection, type McpSelection } from '../tools/mcp/selection.js';
import { whyNotPassable } from '../sandbox/command-env.js';
import type { GeminiExtension } from './gemini-extensions.js';

export interface ExtensionSettings {
  servers: McpServerConfig[];
  /** Tools no request offers: the Gemini CLI extensions' `excludeTools` names. */
  excludeTools: string[];
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
  /** Gemini CLI extensions (gemini-extensions.ts): their servers rank below every settings file's. */
  extensions?: readonly GeminiExtension[];
  /** `--allowed-mcp-server-names`: replaces `mcp.allowed`. */
  allowedNames?: readonly string[];
  /** What `$VAR` in a settings file's `env` and `headers` may name: the environment every command sees. */
  env: Readonly<Record<string, string>>;
  /** Servers whose network is on whatever their settings say (the Action's `mcp-network` input), and where that was said. */
  network?: { names: readonly string[]; label: string };
}

export function readExtensionSettings(o: ReadExtensionOptions): ExtensionSettings {
  const warnings: string[] = [];
  const lists: McpServerConfig[][] = [];
  const hooks: HookGroup[] = [];
  const policy: ExtensionSettings['policy'] = { workspace: [], user: [] };
  let allowed: { names: readonly string[]; tier: 'workspace' | 'user'; label: string } | undefined;
  const excluded: Array<{ name: string; tier: 'workspace' | 'user'; label: string }> = [];
  for (const e of o.extensions ?? []) lists.push(e.servers);
  const fromExtensions = excludedByExtensions(o.extensions ?? []);
  for (const r of fromExtensions.rules) policy[r.tier].push(r.source);
  for (const f of o.layers) {
    const file = { value: f.value };
    if (f.origin !== 'workflow') {
      const parsed = parseMcpServers(file.value.mcpServers, {
        source: { label: f.label, origin: f.origin },
        env: o.env,
      });
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
  const servers = withNetwork(mergeMcpServers(lists), o.network, warnings);
  for (const s of servers) warnings.push(...emptyVariableWarnings(s));

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
  return { servers, excludeTools: fromExtensions.names, selection, hooks, policy, warnings };
}

/**
 * An extension's `excludeTools`: a name leaves that tool out of every request (as Gemini CLI's
 * registry does); `run_shell_command(prefix)` denies commands with that prefix (priority 900, in
 * the tier of the extension's origin), which Gemini CLI documents but no longer enforces.
 */
function excludedByExtensions(extensions: readonly GeminiExtension[]) {
  const names: string[] = [];
  const rules: Array<{ tier: 'workspace' | 'user'; source: PolicySource }> = [];
  for (const e of extensions)
    for (const entry of e.excludeTools) {
      const m = /^run_shell_command\((.+)\)$/s.exec(entry.trim());
      if (!m) {
        names.push(entry.trim());
        continue;
      }
      const inline = `[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ${JSON.stringify(m[1].trim())}\ndecision = "deny"\npriority = 900\n`;
      rules.push({
        tier: e.origin === 'repository' ? 'workspace' : 'user',
        source: { inline, label: `${e.label}/gemini-extension.json excludeTools` },
      });
    }
  return { names, rules };
}

/** Pure: the servers with the network on that `network` names; a name no server has is a warning. */
function withNetwork(
  servers: McpServerConfig[],
  network: ReadExtensionOptions['network'],
  warnings: string[],
): McpServerConfig[] {
  if (!network) return servers;
  for (const name of network.names)
    if (!servers.some((s) => s.name === name))
      warnings.push(`${network.label} names ${name}, but no MCP server is called that (ignored)`);
  return servers.map((s) => (network.names.includes(s.name) ? { ...s, network: true } : s));
}

/**
 * Pure: one warning per `$VAR` of a server that came out empty, naming the server, the variable
 * and the field, and what to do (never the value of anything).
 */
function emptyVariableWarnings(s: McpServerConfig): string[] {
  return (s.emptyVariables ?? []).map(({ variable, field }) => {
    const why = whyNotPassable(variable);
    const fix =
      s.source.origin === 'workflow'
        ? `set ${variable} in this step's \`env:\``
        : s.source.origin === 'repository'
          ? why
            ? `${variable} ${why}; configure this server in the workflow's own input, with the value in the step's \`env:\``
            : `a repository's settings see only the variables every command gets: name ${variable} in the \`sandbox-env\` input`
          : `${variable} is not set in this environment`;
    return `MCP server ${s.name} (${s.source.label}): $${variable} in ${field} is empty, so the server gets empty text there; ${fix}`;
  });
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
