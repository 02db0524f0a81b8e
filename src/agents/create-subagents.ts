/**
 * The sub-agent plug a face passes to prepareAgent: the built-in codebase_investigator and the
 * repository's `.gemini/agents/*.md` (from the trusted configuration root), with the settings'
 * `agents.overrides` applied, each given the tools it may have, and the invoke_agent tool over them.
 * A broken agent file stops the run before any tool runs, like a broken policy file; an agent that
 * asks for a tool this run does not have is refused (a warning, and a clear error if it is called).
 */
import { AgentError } from '../common/errors.js';
import type { SubagentFactory } from '../core/subagent-host.js';
import type { AgentOverride } from '../context/settings.js';
import type { Tool } from '../tools/define-tool.js';
import { codebaseInvestigator } from './codebase-investigator.js';
import { COMPLETE_TASK, createCompleteTaskTool } from './complete-task.js';
import type { AgentDefinition } from './definition.js';
import { createInvokeAgentTool, INVOKE_AGENT, type AgentCatalog } from './invoke-agent.js';
import { formatProblem, readAgentFiles } from './load-agents.js';
import { WRITE_TODOS } from '../tools/builtin/write-todos.js';

const BUILTIN_AGENTS: readonly AgentDefinition[] = [codebaseInvestigator];

/** The tools a definition gets from the parent's, or why it is refused. Pure. */
function resolveAgentTools(
  def: AgentDefinition,
  parentTools: readonly Tool[],
): { tools: Tool[] } | { refused: string } {
  // The plan (write_todos) is the parent's: one checklist per run, which a child must not replace.
  const parent = parentTools.filter(
    (t) => t.name !== INVOKE_AGENT && t.name !== COMPLETE_TASK && t.name !== WRITE_TODOS,
  );
  const picked = new Set<Tool>();
  const missing: string[] = [];
  for (const want of def.tools ?? ['*']) {
    if (want === INVOKE_AGENT) return { refused: `it asks for ${INVOKE_AGENT}, and a sub-agent cannot invoke agents` };
    if (want === COMPLETE_TASK) continue; // every sub-agent has it
    if (want.endsWith('*')) {
      for (const t of parent) if (t.name.startsWith(want.slice(0, -1))) picked.add(t);
      continue;
    }
    const tool = parent.find((t) => t.name === want || t.aliases?.includes(want));
    if (tool) picked.add(tool);
    else missing.push(want);
  }
  if (missing.length) {
    return {
      refused: `it asks for ${missing.join(', ')}, which this run does not offer; a sub-agent never gets a tool the agent that invokes it lacks`,
    };
  }
  return { tools: parent.filter((t) => picked.has(t)).concat(createCompleteTaskTool(def.output)) };
}

/** A definition with the settings' override applied. */
function withOverride(def: AgentDefinition, o: AgentOverride | undefined): AgentDefinition {
  if (!o) return def;
  return {
    ...def,
    ...(o.model ? { model: o.model } : {}),
    ...(o.maxTurns ? { maxTurns: o.maxTurns } : {}),
    ...(o.maxTimeMinutes ? { timeoutMs: o.maxTimeMinutes * 60_000 } : {}),
  };
}

export const createSubagents: SubagentFactory = async (host) => {
  const files = host.configRoot !== undefined ? await readAgentFiles(host.configRoot) : { agents: [], problems: [] };
  const problems = [...files.problems];
  const taken = new Map(BUILTIN_AGENTS.map((d) => [d.name, d.source]));
  for (const def of files.agents) {
    const other = taken.get(def.name);
    if (other)
      problems.push({
        file: def.source,
        line: 1,
        message: `the agent name \`${def.name}\` is already taken (${other})`,
      });
    taken.set(def.name, def.source);
  }
  if (problems.length) {
    const [first] = problems;
    throw new AgentError('config', `bad agent definition: ${formatProblem(first)}`, {
      site: { file: first.file, line: first.line },
      details: problems.map(formatProblem),
    });
  }
  const available = new Map<string, { def: AgentDefinition; tools: Tool[] }>();
  const refused = new Map<string, string>();
  const warnings: string[] = [];
  for (const base of [...BUILTIN_AGENTS, ...files.agents]) {
    const override = host.agentOverrides[base.name];
    if (override?.enabled === false) {
      refused.set(base.name, 'it is disabled in .gemini/settings.json (agents.overrides)');
      continue;
    }
    const def = withOverride(base, override);
    const resolved = resolveAgentTools(def, host.tools);
    if ('refused' in resolved) {
      refused.set(def.name, resolved.refused);
      warnings.push(`sub-agent ${def.name} (${def.source}) is not available: ${resolved.refused}`);
    } else available.set(def.name, { def, tools: resolved.tools });
  }
  for (const name of Object.keys(host.agentOverrides))
    if (!taken.has(name))
      warnings.push(`.gemini/settings.json agents.overrides.${name}: there is no agent of that name`);
  const catalog: AgentCatalog = { available, refused };
  if (available.size === 0) return { tools: [], agents: [], warnings };
  return {
    tools: [createInvokeAgentTool(catalog, host)],
    agents: [...available.values()].map(({ def }) => ({ name: def.name, description: def.description })),
    warnings,
  };
};
