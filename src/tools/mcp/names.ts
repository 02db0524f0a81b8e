/**
 * How an MCP tool is named for the model and for policy, exactly as Gemini CLI names it
 * (`generateValidName` in its mcp-tool.ts): `mcp_<server>_<tool>`, every character other than
 * letters, digits, `_`, `-`, `.` and `:` replaced by `_`, a leading `_` when the name would not
 * start with a letter or `_`, and a name over 63 characters cut to its first 30 and last 30 with
 * `...` between. Two tools that end up with the same name: the one registered later replaces the
 * earlier (Gemini CLI's registry overwrites too); we register in configuration order, so which one
 * wins does not depend on which server answered first, and the loser is reported.
 */

const MAX_FUNCTION_NAME_LENGTH = 64;

export function mcpToolName(server: string, tool: string): string {
  const base = `${server}_${tool}`;
  // As Gemini CLI does: a server named `mcp_x` gets no second prefix.
  let name = base.startsWith('mcp_') ? base : `mcp_${base}`;
  name = name.replace(/[^a-zA-Z0-9_\-.:]/g, '_');
  if (/^[^a-zA-Z_]/.test(name)) name = `_${name}`;
  if (name.length > MAX_FUNCTION_NAME_LENGTH - 1) name = `${name.slice(0, 30)}...${name.slice(-30)}`;
  return name;
}
