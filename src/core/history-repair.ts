import type { Content, FunctionCall, Part } from '../model/wire.js';

export const INTERRUPTED_RESPONSE = 'The call was not executed: the run stopped before its result was recorded.';

const callsOf = (c: Content | undefined): FunctionCall[] =>
  c?.role === 'model' ? c.parts.flatMap((p) => (p.functionCall ? [p.functionCall] : [])) : [];

const synthetic = (call: FunctionCall): Part => ({
  functionResponse: { ...(call.id ? { id: call.id } : {}), name: call.name, response: { error: INTERRUPTED_RESPONSE } },
});

/**
 * Make a history the API accepts: every functionCall of a model turn is answered, in order, by a
 * functionResponse at the start of the next user turn (a synthetic error where none exists),
 * responses that answer no call are dropped, and empty turns are removed. Calls and responses are
 * paired by id when the call has one, else by name in order. Pure; returns how many parts changed.
 *
 * `from`: the contents before this index are already repaired (the output of an earlier call, only
 * appended to since), so only the tail is looked at: the loop repairs before every request, and a
 * long session would otherwise walk its whole history each turn. The result is a new array either way.
 */
export function repairHistory(history: readonly Content[], from = 0): { history: Content[]; repaired: number } {
  const start = Math.min(Math.max(0, from), history.length);
  const out: Content[] = history.slice(0, start);
  let repaired = 0;
  for (let i = start; i < history.length; i++) {
    const content = history[i];
    const prevCalls = callsOf(out.at(-1));
    if (content.role === 'user') {
      const responses = content.parts.filter((p) => p.functionResponse);
      const others = content.parts.filter((p) => !p.functionResponse);
      const paired = pairResponses(prevCalls, responses);
      repaired += paired.synthesized + paired.dropped;
      const parts = [...paired.parts, ...others];
      if (parts.length) out.push(paired.synthesized + paired.dropped ? { ...content, parts } : content);
      continue;
    }
    if (prevCalls.length) {
      // A model turn follows a model turn that called tools: answer those calls first.
      out.push({ role: 'user', parts: prevCalls.map(synthetic) });
      repaired += prevCalls.length;
    }
    if (content.parts.length) out.push(content);
    else repaired++;
  }
  const trailing = callsOf(out.at(-1));
  if (trailing.length) {
    out.push({ role: 'user', parts: trailing.map(synthetic) });
    repaired += trailing.length;
  }
  return { history: out, repaired };
}

function pairResponses(
  calls: FunctionCall[],
  responses: Part[],
): { parts: Part[]; synthesized: number; dropped: number } {
  const left = [...responses];
  const parts: Part[] = [];
  let synthesized = 0;
  for (const call of calls) {
    const at = left.findIndex((p) =>
      call.id ? p.functionResponse?.id === call.id : p.functionResponse?.name === call.name,
    );
    if (at >= 0) parts.push(...left.splice(at, 1));
    else {
      parts.push(synthetic(call));
      synthesized++;
    }
  }
  return { parts, synthesized, dropped: left.length };
}

/**
 * The ids handed to the scheduler for calls the model sent without one are ours, not the model's:
 * drop them from the responses so what goes back matches what came. Pure.
 */
export function alignResponseIds(modelTurn: Content | undefined, responses: readonly Part[]): Part[] {
  const modelIds = new Set(callsOf(modelTurn).flatMap((c) => (c.id ? [c.id] : [])));
  return responses.map((p) => {
    const r = p.functionResponse;
    if (!r?.id || modelIds.has(r.id)) return p;
    const { id: _ours, ...rest } = r;
    return { ...p, functionResponse: rest };
  });
}
