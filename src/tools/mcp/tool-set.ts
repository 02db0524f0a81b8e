/**
 * The built-in tools and the MCP servers' tools as one ToolRegistry, for the scheduler and the
 * loop. Built-in tools keep their strict schemas and registry; MCP tools are checked by their own
 * (lenient) schemas in their `prepare`. A call of an MCP tool waits for the servers to have started
 * (a lazy start, or a resumed run whose waiting call is an MCP tool).
 */
import type { FunctionDeclaration } from '../../model/wire.js';
import { declarationOf, ToolFailure, type Tool } from '../define-tool.js';
import { unknownToolMessage, type ToolRegistry } from '../registry.js';
import type { McpManager } from './manager.js';

export interface ToolSet extends ToolRegistry {
  /** Starts the MCP servers if they have not started (lazy); then every tool is known. */
  ready(): Promise<void>;
}

/** An MCP tool as an exclude list may name it: our full name, and the tool's own name on its server. */
export interface McpToolNames {
  name: string;
  serverTool: string;
}

/**
 * `offered`: which MCP tools the model is told of and may call (settings' `tools.exclude`, an
 * extension's `excludeTools`); default all. A tool left out cannot be called either.
 */
export function createToolSet(
  base: ToolRegistry,
  mcp: McpManager | undefined,
  offered: (names: McpToolNames) => boolean = () => true,
): ToolSet {
  if (!mcp) return { ...base, ready: async () => undefined };
  const tools = () => {
    const serverTool = new Map(mcp.status().flatMap((s) => s.tools.map((t) => [t.name, t.serverTool] as const)));
    return mcp.tools().filter((t) => offered({ name: t.name, serverTool: serverTool.get(t.name) ?? t.name }));
  };
  const find = (name: string): Tool | undefined => tools().find((t) => t.name === name);
  const names = () => [...base.names(), ...tools().map((t) => t.name)];
  return {
    get: (name) => base.get(name) ?? find(name),
    names,
    declarations: (): FunctionDeclaration[] => [...base.declarations(), ...tools().map(declarationOf)],
    ready: () => mcp.start(),
    async prepareCall(name, args, env) {
      if (base.get(name)) return base.prepareCall(name, args, env);
      await mcp.start();
      const tool = find(name);
      if (!tool) throw new ToolFailure('not_found', mcp.explainMissing(name) ?? unknownToolMessage(name, names()));
      return await tool.prepare((args ?? {}) as never, env);
    },
  };
}
