/**
 * BeforeTool, AfterTool and Notification for the scheduler (its CallHooks interface), with the
 * inputs and the reading of answers of Gemini CLI's coreToolHookTriggers and hook-utils.
 */
import { stoppedByHook, type CallHooks, type HookedCall } from '../scheduler/call-hooks.js';
import type { PendingApproval } from '../scheduler/types.js';
import type { ToolOutput } from '../tools/define-tool.js';
import { additionalContextOf, effectiveReason, isBlocking } from './aggregate.js';
import type { HookSystem } from './hook-system.js';

const EDIT_TOOLS = new Set(['write_file', 'replace']);

export function createCallHooks(h: Pick<HookSystem, 'active' | 'fire' | 'requestStop'>): CallHooks {
  const rewrites = new Map<string, string[]>();
  return {
    async beforeTool(call, signal) {
      if (!h.active) return { kind: 'proceed' };
      const { output } = await h.fire(
        'BeforeTool',
        { tool_name: call.name, tool_input: call.args, ...mcpContext(call) },
        { subject: call.name, signal },
      );
      if (!output) return { kind: 'proceed' };
      if (output.continue === false) {
        h.requestStop(effectiveReason(output));
        return { kind: 'stop', reason: effectiveReason(output) };
      }
      if (isBlocking(output.decision)) return { kind: 'block', reason: effectiveReason(output) };
      const ask = output.decision === 'ask' ? { ask: output.systemMessage ?? '' } : {};
      if (!output.toolInput) return { kind: 'proceed', ...ask };
      rewrites.set(call.id, Object.keys(output.toolInput));
      return { kind: 'proceed', args: { ...call.args, ...output.toolInput }, ...ask };
    },

    async afterTool(call, out, signal) {
      if (!h.active) return { output: out };
      const modified = rewrites.get(call.id);
      rewrites.delete(call.id);
      // Gemini CLI tells the model when a hook changed what it asked for.
      const base = modified?.length
        ? {
            ...out,
            forModel: `${out.forModel}\n\n[System] Tool input parameters (${modified.join(', ')}) were modified by a hook before execution.`,
          }
        : out;
      const response = {
        llmContent: base.forModel,
        returnDisplay: base.forHuman ?? '',
        ...(base.error && { error: { type: base.error.code, message: base.error.message } }),
      };
      const { output } = await h.fire(
        'AfterTool',
        { tool_name: call.name, tool_input: call.args, tool_response: response, ...mcpContext(call) },
        { subject: call.name, signal },
      );
      if (!output) return { output: base };
      if (output.continue === false) {
        const reason = effectiveReason(output);
        h.requestStop(reason);
        return { output: failed(stoppedByHook(reason)), stop: reason };
      }
      if (isBlocking(output.decision)) return { output: failed(`Tool result blocked: ${effectiveReason(output)}`) };
      const context = additionalContextOf(output);
      return {
        output: context ? { ...base, forModel: `${base.forModel}\n\n<hook_context>${context}</hook_context>` } : base,
      };
    },

    async notify(pending, call) {
      if (!h.active) return;
      const type = call.mcp
        ? 'mcp'
        : call.name === 'run_shell_command'
          ? 'exec'
          : EDIT_TOOLS.has(call.name)
            ? 'edit'
            : 'info';
      await h.fire(
        'Notification',
        {
          notification_type: 'ToolPermission',
          message: `Tool ${pending.title} requires ${NEEDS[type]}`,
          details: detailsOf(type, pending, call),
        },
        { subject: 'ToolPermission' },
      );
    },
  };
}

const NEEDS = { mcp: 'MCP', exec: 'execution', edit: 'editing', info: 'information' } as const;

/** Gemini CLI's toSerializableDetails, from what a waiting call carries. */
function detailsOf(type: keyof typeof NEEDS, p: PendingApproval, call: HookedCall): Record<string, unknown> {
  const base = { type, title: p.title, tool_name: call.name, tool_input: call.args };
  if (type === 'exec')
    return {
      ...base,
      command: call.args.command,
      rootCommand: typeof call.args.command === 'string' ? call.args.command.trim().split(/\s+/)[0] : undefined,
    };
  if (type === 'mcp')
    return { ...base, serverName: call.mcp!.server, toolName: call.mcp!.tool, toolDisplayName: call.name };
  if (type === 'edit') return { ...base, filePath: call.args.file_path, fileDiff: p.preview };
  return base;
}

function mcpContext(call: HookedCall): { mcp_context?: Record<string, unknown> } {
  return call.mcp
    ? { mcp_context: { ...call.mcp.context, server_name: call.mcp.server, tool_name: call.mcp.tool } }
    : {};
}

function failed(message: string): ToolOutput {
  return { forModel: message, forHuman: message.slice(0, 160), error: { code: 'failed', message } };
}
