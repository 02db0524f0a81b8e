/**
 * Every request to the model through the one redactor (common/redact.ts): the system instruction
 * and every string of every part, the model's own past calls included (a hostile model writes a
 * secret it read into a call's arguments, encoded, to see it again or to have it logged). Tool
 * results are redacted by their tools already; this is the single place nothing gets past.
 * Thought signatures and inline data are opaque bytes the API checks: they pass as they are.
 */
import { redactorFor } from '../common/redact.js';
import type { ModelClient, ModelRequest } from '../model/client.js';
import type { Content, Part } from '../model/wire.js';

export function withRedaction(model: ModelClient, secrets: readonly string[]): ModelClient {
  return { stream: (req) => model.stream(redactRequest(req, redactorFor(secrets))) };
}

type Redact = (text: string) => string;

/** Pure: the request with every text redacted (a new object; the caller's history is left as it is). */
export function redactRequest(req: ModelRequest, r: Redact): ModelRequest {
  return {
    ...req,
    systemInstruction: r(req.systemInstruction),
    contents: req.contents.map((c): Content => ({ ...c, parts: c.parts.map((p) => redactPart(p, r)) })),
  };
}

function redactPart(p: Part, r: Redact): Part {
  const out: Part = { ...p };
  if (typeof p.text === 'string') out.text = r(p.text);
  if (p.functionCall)
    out.functionCall = {
      ...p.functionCall,
      ...(p.functionCall.args && { args: redactDeep(p.functionCall.args, r) as Record<string, unknown> }),
    };
  if (p.functionResponse)
    out.functionResponse = {
      ...p.functionResponse,
      response: redactDeep(p.functionResponse.response, r) as Record<string, unknown>,
    };
  return out;
}

/** Every string in a JSON value (keys too) redacted. */
function redactDeep(v: unknown, r: Redact): unknown {
  if (typeof v === 'string') return r(v);
  if (Array.isArray(v)) return v.map((x) => redactDeep(x, r));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [r(k), redactDeep(x, r)]));
  return v;
}
