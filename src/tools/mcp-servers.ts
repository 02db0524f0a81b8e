/**
 * MCP servers an editor gives a session (ACP `session/new` and `session/load`), as the protocol
 * sends them. The ACP session hands them to the MCP client (tools/mcp/) with the project's own
 * servers, and the session file keeps them without any env or header value.
 */

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
