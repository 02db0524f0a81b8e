/**
 * One tool of an MCP server as a tool of ours: a plain object with Gemini CLI's name
 * (`mcp_<server>_<tool>`), the server's description and input schema (made acceptable to the
 * Gemini API as Gemini CLI makes it), a `prepare` that checks the arguments against that schema
 * and says which server the call goes to (policy decides by it), and a `run` that calls the server
 * and maps its result (result.ts).
 */
import type { TSchema } from 'typebox';
import type { Tool as McpToolDef } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailure, type McpCallInfo, type Tool } from '../define-tool.js';
import { oneLine } from '../../common/text.js';
import { guardRun } from '../tool-output.js';
import { compileLenient } from './lenient-validator.js';
import { interpretedArgsCheck } from '../tool-schema.js';
import type { McpConnection } from './connection.js';
import { toolOutputOf } from './result.js';
import { redactSecrets } from '../../common/redact.js';

/** Gemini CLI's default per request: 10 minutes. */
const DEFAULT_MCP_CALL_TIMEOUT_MS = 10 * 60_000;

export interface McpToolSource {
  server: string;
  def: McpToolDef;
  /** The live connection, or why there is none now (the server exited). */
  connection(): McpConnection | { unavailable: string };
  timeoutMs?: number;
  /** For hooks' mcp_context: command, args, cwd or url. */
  context: Record<string, unknown>;
}

export function createMcpTool(name: string, s: McpToolSource): Tool {
  const schema = sanitizeSchema(s.def.inputSchema ?? { type: 'object', properties: {} });
  const check = compileLenient(s.def.inputSchema ?? {});
  const annotations =
    s.def.annotations && typeof s.def.annotations === 'object'
      ? { ...(s.def.annotations as Record<string, unknown>) }
      : undefined;
  const mcp: McpCallInfo = {
    server: s.server,
    tool: s.def.name,
    ...(annotations && { annotations }),
    context: s.context,
  };
  return {
    name,
    kind: annotations?.readOnlyHint === true ? 'read' : 'other',
    description: s.def.description ?? '',
    params: schema as unknown as TSchema,
    // In a registry (a sub-agent's): the server's schema is checked interpreted, never compiled to code.
    checkArgs: interpretedArgsCheck(schema as unknown as TSchema),
    prepare(args, env) {
      const input = (args ?? {}) as Record<string, unknown>;
      if (typeof input !== 'object' || Array.isArray(input))
        throw new ToolFailure('invalid_args', `invalid arguments for ${name}: the arguments must be an object`);
      const problem = check(input);
      if (problem) throw new ToolFailure('invalid_args', `invalid arguments for ${name}: ${problem}`);
      const shown = redactSecrets(JSON.stringify(input), env.secrets);
      return {
        title: `call ${s.def.name} on MCP server ${s.server} ${oneLine(shown, 100)}`,
        paths: [],
        policyArgs: input,
        preview: redactSecrets(JSON.stringify(input, null, 2), env.secrets),
        mcp,
        run: ({ signal, onProgress }) =>
          guardRun(signal, async () => {
            const c = s.connection();
            if ('unavailable' in c)
              throw new ToolFailure('failed', `${name} is unavailable: MCP server ${s.server} ${c.unavailable}`);
            let result;
            try {
              result = await c.call(s.def.name, input, {
                signal,
                timeoutMs: s.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
                onProgress,
              });
            } catch (e) {
              if (signal.aborted) throw e;
              const text = redactSecrets(e instanceof Error ? e.message : String(e), env.secrets);
              const timedOut = /timed out|RequestTimeout|-32001/i.test(text);
              throw new ToolFailure(timedOut ? 'timeout' : 'failed', `${name} failed: ${text}`);
            }
            return toolOutputOf(s.def.name, result, env.secrets);
          }),
      };
    },
  };
}

/**
 * Pure: the input schema as the Gemini API takes it, as Gemini CLI prepares it: no `$schema`, and
 * a `type: [T, "null"]` pair becomes `type: T` with `nullable: true`, at every level.
 */
function sanitizeSchema(schema: unknown): Record<string, unknown> {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(v)) {
      if (k === '$schema') continue;
      out[k] = walk(val);
    }
    const type = out.type;
    if (Array.isArray(type) && type.length === 2 && type.includes('null')) {
      const other = type.find((t) => t !== 'null');
      if (typeof other === 'string') {
        out.type = other;
        out.nullable = true;
      }
    }
    return out;
  };
  const out = walk(schema);
  return typeof out === 'object' && out !== null && !Array.isArray(out)
    ? (out as Record<string, unknown>)
    : { type: 'object', properties: {} };
}
