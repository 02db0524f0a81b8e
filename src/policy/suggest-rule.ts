/**
 * The rule that would allow a denied MCP call, as a TOML snippet the policy engine reads (Gemini
 * CLI's schema): `mcpName` names the server, `toolName` the tool's name on it, so the rule matches
 * that server's tool only, whatever another server calls its tools. Pure.
 */

/** `registered` is the call's name (`mcp_docs_search`); its short form is used when it is the server's prefix plus the tool. */
export function mcpAllowRule(server: string, registered: string): string {
  const prefix = `mcp_${server}_`;
  const toolName =
    registered.startsWith(prefix) && registered.length > prefix.length ? registered.slice(prefix.length) : registered;
  return `[[rule]]\nmcpName = ${JSON.stringify(server)}\ntoolName = ${JSON.stringify(toolName)}\ndecision = "allow"\npriority = 100\n`;
}
