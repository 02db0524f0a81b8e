/**
 * Where settings.json hooks meet a tool call, as the scheduler sees them: an injected interface
 * (hooks/ implements it; the scheduler knows nothing of processes) and the pure rules around it.
 *
 * BeforeTool runs after the call is validated and before policy decides. It may block the call
 * (the model gets the reason), stop the run, or rewrite the arguments; a rewritten call is
 * validated again and policy then decides on both the original and the rewritten call, and the
 * stricter verdict stands: a hook can never turn a denied (or asked) call into an allowed one.
 * A call that waits for a human keeps its rewritten arguments, so a resumed run executes exactly
 * what was asked about, without running BeforeTool again. AfterTool runs after the tool, before
 * the result is recorded; it may add context, replace the result, or stop the run.
 */
import type { PolicyEngine, PolicyQuery, PolicyVerdict } from '../policy/types.js';
import type { McpCallInfo, PreparedCall, ToolOutput } from '../tools/define-tool.js';
import type { BatchOptions, PendingApproval } from './types.js';

/** The call as a hook sees it: its name, its arguments now, and its MCP server if it has one. */
export interface HookedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  mcp?: McpCallInfo;
}

type BeforeToolResult =
  | {
      kind: 'proceed';
      /** The merged arguments, when a hook rewrote some. */
      args?: Record<string, unknown>;
      /** A hook answered `ask`: a call policy allows is asked about instead (never the other way). */
      ask?: string;
    }
  | { kind: 'block'; reason: string }
  | { kind: 'stop'; reason: string };

interface AfterToolResult {
  output: ToolOutput;
  /** A hook asked to stop the run (`continue: false`). */
  stop?: string;
}

export interface CallHooks {
  beforeTool(call: HookedCall, signal: AbortSignal): Promise<BeforeToolResult>;
  afterTool(call: HookedCall, output: ToolOutput, signal: AbortSignal): Promise<AfterToolResult>;
  /** A call now waits for a person (Gemini CLI's Notification, ToolPermission). */
  notify(pending: PendingApproval, call: HookedCall): Promise<void>;
}

/** What policy is asked about a prepared call: the server comes from our registry, never from the call's name. */
export function policyQueryOf(name: string, args: Record<string, unknown>, prepared: PreparedCall): PolicyQuery {
  const mcp = prepared.mcp;
  return {
    toolName: name,
    args: prepared.policyArgs ?? args,
    ...(mcp && { mcpServer: mcp.server }),
    ...(mcp?.annotations && { annotations: mcp.annotations }),
  };
}

const STRICTNESS = { allow: 0, ask_user: 1, deny: 2 } as const;

/** One decision path, failing closed, for the original call and (if a hook rewrote it) the rewritten one: the stricter verdict wins. */
export async function decideCall(
  policy: PolicyEngine,
  queries: readonly PolicyQuery[],
  opts: BatchOptions,
): Promise<PolicyVerdict> {
  let worst: PolicyVerdict | undefined;
  for (const q of queries) {
    let v: PolicyVerdict;
    try {
      v = await policy.decide(q, opts.mode);
    } catch (e) {
      v = {
        decision: 'deny',
        rule: null,
        reason: `the policy engine failed on this call (${e instanceof Error ? e.message : String(e)}), so it is denied`,
      };
    }
    if (!worst || STRICTNESS[v.decision] > STRICTNESS[worst.decision]) worst = v;
  }
  return worst!;
}

/** The model's message when a BeforeTool hook blocks a call (Gemini CLI's wording). */
export const blockedByHook = (reason: string) => `Tool execution blocked: ${reason}`;
export const stoppedByHook = (reason: string) => `Agent execution stopped by hook: ${reason}`;
