/**
 * MCP servers a session is given (an editor's ACP `session/new`; settings.json later). This is the
 * seam the MCP client (issue #13) plugs into: an McpConnector starts the servers and returns their
 * tools, named `mcp_<server>_<tool>` as Gemini CLI names them, for the session's registry. Until a
 * connector is passed, faces accept the servers, record them with the session (names only, never
 * secret values) and say that they were not started.
 */
import type { Tool } from './define-tool.js';

/** One server, in the shape of a settings.json `mcpServers` entry (values included: handle with care). */
export interface McpServerSpec {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  /** stdio */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** http and sse */
  url?: string;
  headers?: Record<string, string>;
}

export interface McpConnection {
  tools: Tool[];
  /** A server that would not start, or a tool that could not be declared: shown, not fatal. */
  warnings: string[];
  /** Stops every server the connection started. */
  close(): Promise<void>;
}

export type McpConnector = (specs: readonly McpServerSpec[], o: { root: string; signal: AbortSignal }) => Promise<McpConnection>;
