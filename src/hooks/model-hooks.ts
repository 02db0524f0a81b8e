/**
 * BeforeModel, BeforeToolSelection and AfterModel around each model request: a ModelClient that
 * wraps the real one, so the loop needs no hook points for them. Requests and responses go to the
 * hooks in Gemini CLI's stable form (hooks reference, "Stable Model API": text-only `messages`).
 *
 * BeforeModel may block the request (with a synthetic `llm_response` it stands in for the model's
 * reply; without one the run ends with the reason), stop the run, or change the request's
 * `messages` (merged as Gemini CLI merges them: text replaced in order, extra messages appended,
 * which is how a hook adds context for one request). Changing `model` or `config` is not supported
 * (a run's model and its cost are the workflow's choice) and is reported. BeforeToolSelection's
 * `toolConfig` restricts which tools the model may call in this request; policy still decides
 * every call. AfterModel runs once per reply (Gemini CLI: per streamed chunk) and may block or stop;
 * replacing the reply is not supported.
 */
import { ModelFailure, type ModelChunk, type ModelClient, type ModelRequest } from '../model/client.js';
import type { Content, Part } from '../model/wire.js';
import { effectiveReason, isBlocking, type MergedOutput } from './aggregate.js';
import type { HookSystem } from './hook-system.js';

type Hooks = Pick<HookSystem, 'fire' | 'requestStop'>;

interface HookMessage {
  role: 'user' | 'model' | 'system';
  content: string;
}

export function wrapModelWithHooks(model: ModelClient, h: Hooks): ModelClient {
  return { stream: (req) => hookedStream(model, req, h) };
}

async function* hookedStream(model: ModelClient, req: ModelRequest, h: Hooks): AsyncGenerator<ModelChunk> {
  const before = await h.fire('BeforeModel', { llm_request: toHookRequest(req) }, { signal: req.signal });
  let request = req;
  if (before.output) {
    stopIfAsked(before.output, h);
    if (isBlocking(before.output.decision)) {
      const synthetic = syntheticChunk(specific(before.output).llm_response);
      if (synthetic) {
        yield synthetic;
        return;
      }
      throw new ModelFailure(
        'bad_request',
        `the model request was blocked by a BeforeModel hook: ${effectiveReason(before.output)}`,
      );
    }
    request = applyRequestChanges(req, specific(before.output).llm_request);
  }
  const selection = await h.fire(
    'BeforeToolSelection',
    { llm_request: toHookRequest(request) },
    { signal: req.signal },
  );
  request = applyToolSelection(request, selection.output);

  const parts: Part[] = [];
  let finishReason: string | undefined;
  for await (const chunk of model.stream(request)) {
    parts.push(...chunk.parts);
    if (chunk.finishReason) finishReason = chunk.finishReason;
    yield chunk;
  }
  const after = await h.fire(
    'AfterModel',
    { llm_request: toHookRequest(request), llm_response: toHookResponse(parts, finishReason) },
    { signal: req.signal },
  );
  if (!after.output) return;
  stopIfAsked(after.output, h);
  if (isBlocking(after.output.decision))
    throw new ModelFailure(
      'bad_request',
      `the model's reply was blocked by an AfterModel hook: ${effectiveReason(after.output)}`,
    );
}

function stopIfAsked(out: MergedOutput, h: Hooks): void {
  if (out.continue !== false) return;
  h.requestStop(effectiveReason(out));
  throw new ModelFailure('aborted', `Agent execution stopped by hook: ${effectiveReason(out)}`);
}

const specific = (o: MergedOutput): Record<string, unknown> =>
  o.hookSpecificOutput && typeof o.hookSpecificOutput === 'object' ? o.hookSpecificOutput : {};

/** Pure: Gemini CLI's toHookLLMRequest: text of each content, non-text parts left out. */
function toHookRequest(req: ModelRequest): { model: string; messages: HookMessage[]; config: Record<string, unknown> } {
  const messages: HookMessage[] = [];
  for (const c of req.contents) {
    const text = c.parts.map((p) => (typeof p.text === 'string' && !p.thought ? p.text : '')).join('');
    if (text) messages.push({ role: c.role === 'model' ? 'model' : 'user', content: text });
  }
  return {
    model: req.model,
    messages,
    config: { ...(req.maxOutputTokens !== undefined && { maxOutputTokens: req.maxOutputTokens }) },
  };
}

function toHookResponse(parts: readonly Part[], finishReason: string | undefined) {
  const texts = parts.flatMap((p) => (typeof p.text === 'string' && !p.thought ? [p.text] : []));
  return { candidates: [{ content: { role: 'model', parts: texts }, ...(finishReason && { finishReason }) }] };
}

/** A hook's `llm_response` as one chunk the loop reads like the model's. */
function syntheticChunk(value: unknown): ModelChunk | undefined {
  const cand = (value as { candidates?: Array<{ content?: { parts?: unknown[] }; finishReason?: string }> } | undefined)
    ?.candidates?.[0];
  const texts = (cand?.content?.parts ?? []).flatMap((p) =>
    typeof p === 'string' ? [p] : typeof (p as Part)?.text === 'string' ? [(p as Part).text as string] : [],
  );
  if (texts.length === 0) return undefined;
  return { parts: [{ text: texts.join('') }], finishReason: cand?.finishReason ?? 'STOP' };
}

/**
 * Pure: a hook's `llm_request.messages` applied to the request's contents as Gemini CLI's
 * fromHookLLMRequest does: the n-th message replaces the text of the n-th content that has text
 * (its other parts kept), messages beyond those are appended. Only for this request.
 */
function applyRequestChanges(req: ModelRequest, change: unknown): ModelRequest {
  const messages = (change as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return req;
  const valid = messages.filter(
    (m): m is HookMessage => typeof m === 'object' && m !== null && typeof (m as HookMessage).content === 'string',
  );
  let next = 0;
  const contents: Content[] = req.contents.map((c) => {
    if (!c.parts.some((p) => typeof p.text === 'string' && !p.thought) || next >= valid.length) return c;
    const m = valid[next++]!;
    return {
      role: m.role === 'model' ? 'model' : 'user',
      parts: [{ text: m.content }, ...c.parts.filter((p) => typeof p.text !== 'string' || p.thought)],
    };
  });
  for (; next < valid.length; next++)
    contents.push({ role: valid[next]!.role === 'model' ? 'model' : 'user', parts: [{ text: valid[next]!.content }] });
  return { ...req, contents };
}

/** Pure: NONE sends no tools; ANY makes the model call one (of the named ones, if any); AUTO with names sends only those. */
function applyToolSelection(req: ModelRequest, out: MergedOutput | undefined): ModelRequest {
  const tc = out && (specific(out).toolConfig as { mode?: string; allowedFunctionNames?: string[] } | undefined);
  if (!tc) return req;
  const names = tc.allowedFunctionNames ?? [];
  if (tc.mode === 'NONE') return { ...req, tools: [] };
  if (tc.mode === 'ANY')
    return { ...req, toolConfig: { mode: 'ANY', ...(names.length && { allowedFunctionNames: names }) } };
  return names.length ? { ...req, tools: req.tools.filter((t) => names.includes(t.name)) } : req;
}
