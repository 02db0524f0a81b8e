/**
 * Which configured MCP servers may start: Gemini CLI's `mcp.allowed` / `mcp.excluded` settings
 * (and `--allowed-mcp-server-names`). Pure.
 */
import type { McpConfigProblem } from './config.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Gemini CLI's `mcp.allowed` / `mcp.excluded` (and `--allowed-mcp-server-names`): which servers may start. */
export interface McpSelection {
  /** Non-empty: only these start. */
  allowed?: readonly string[];
  excluded?: readonly string[];
}

/** Pure: `mcp.allowed` and `mcp.excluded` of a settings object; problems name the field. */
export function parseMcpSelection(
  value: unknown,
  label: string,
): { selection: McpSelection; problems: McpConfigProblem[] } {
  const problems: McpConfigProblem[] = [];
  if (value === undefined) return { selection: {}, problems };
  if (!isRecord(value))
    return {
      selection: {},
      problems: [{ path: `${label} mcp`, severity: 'warning', message: 'must be an object; ignored' }],
    };
  const list = (field: 'allowed' | 'excluded'): string[] | undefined => {
    const v = value[field];
    if (v === undefined) return undefined;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    problems.push({
      path: `${label} mcp.${field}`,
      severity: 'warning',
      message: 'must be a list of server names; ignored',
    });
    return undefined;
  };
  const allowed = list('allowed');
  const excluded = list('excluded');
  return { selection: { ...(allowed && { allowed }), ...(excluded && { excluded }) }, problems };
}

/** Pure: why a server does not start under the selection, or undefined when it may (Gemini CLI's isBlockedBySettings). */
export function blockedBySelection(name: string, s: McpSelection): string | undefined {
  if (s.allowed && s.allowed.length > 0 && !s.allowed.includes(name))
    return `not among the allowed MCP servers (${s.allowed.join(', ')})`;
  if (s.excluded?.includes(name)) return 'listed in mcp.excluded';
  return undefined;
}
