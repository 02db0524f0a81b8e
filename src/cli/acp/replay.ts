/**
 * `session/load`: a stored session's history as the updates an editor would have seen live, in
 * order: the person's messages, the model's thoughts and text, and each tool call with how it
 * ended (a call that still waits for an answer shows as pending), and last the plan it had. Pure.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { RunState } from '../../core/run-state.js';
import type { Content, Part } from '../../model/wire.js';
import type { PendingApproval } from '../../scheduler/types.js';
import type { ToolKind } from '../../tools/define-tool.js';
import { planUpdate } from './plan.js';
import { acpKindOf, shownOutput, textContent, titleOfCall } from './updates.js';

type Response = NonNullable<Part['functionResponse']>;

export function replayUpdates(
  state: RunState,
  pending: readonly PendingApproval[],
  toolKind: (name: string) => ToolKind | undefined,
): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  const waiting = new Map(pending.map((p) => [p.id, p]));
  state.history.forEach((content, i) => {
    if (content.role === 'user') {
      const text = textOf(content.parts.filter((p) => !p.functionResponse && !p.thought));
      if (text) out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } });
      return;
    }
    for (const part of content.parts) {
      if (typeof part.text === 'string' && part.text) {
        out.push({
          sessionUpdate: part.thought ? 'agent_thought_chunk' : 'agent_message_chunk',
          content: { type: 'text', text: part.text },
        });
      }
    }
    const responses = responsesAfter(state.history[i + 1]);
    content.parts.forEach((part, n) => {
      const call = part.functionCall;
      if (!call) return;
      const id = call.id || `call-${i}-${n}`;
      const args = call.args ?? {};
      const response = takeResponse(responses, call.id, call.name);
      const base = {
        sessionUpdate: 'tool_call' as const,
        toolCallId: id,
        title: waiting.get(id)?.title ?? titleOfCall(call.name, args),
        kind: acpKindOf(toolKind(call.name)),
        rawInput: args,
      };
      if (!response) {
        out.push({ ...base, status: 'pending' });
        return;
      }
      const error = typeof response.response?.error === 'string' ? response.response.error : undefined;
      const output =
        typeof response.response?.output === 'string'
          ? response.response.output
          : JSON.stringify(response.response ?? {});
      out.push({
        ...base,
        status: error === undefined ? 'completed' : 'failed',
        content: [textContent(shownOutput(error ?? output))],
      });
    });
  });
  if (state.todos?.length) out.push(planUpdate(state.todos));
  return out;
}

function textOf(parts: readonly Part[]): string {
  return parts.map((p) => p.text ?? '').join('');
}

function responsesAfter(next: Content | undefined): Response[] {
  return next?.role === 'user' ? next.parts.flatMap((p) => (p.functionResponse ? [p.functionResponse] : [])) : [];
}

/** The response to a call: by id when the call has one, else the first of its name. */
function takeResponse(responses: Response[], id: string | undefined, name: string): Response | undefined {
  const at = responses.findIndex((r) => (id ? r.id === id : r.name === name));
  return at >= 0 ? responses.splice(at, 1)[0] : undefined;
}
