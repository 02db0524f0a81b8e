import { ModelFailure, type ModelClient, type ModelRequest } from '../model/client.js';
import type { Content, FunctionCall, Part, Usage } from '../model/wire.js';
import type { Emit } from './events.js';

/** One finished model turn. */
export interface TurnReply {
  content: Content;
  /** The turn's function calls, each with an id (ours where the model sent none). */
  calls: FunctionCall[];
  /** Non-thought text, concatenated. */
  text: string;
  finishReason?: string;
  usage?: Usage;
}

/** Set while a turn streams: whether anything reached the user (drives the replay rule). */
export interface TurnProgress {
  visible: boolean;
}

/**
 * Stream one model call, translating chunks into events as they arrive (assistant text as message
 * deltas, thought summaries as thought events). Parts are kept verbatim; only adjacent plain-text
 * parts (a part with nothing but `text`, or `text` + `thought`) are joined, which loses nothing.
 * Throws ModelFailure; an empty reply is `invalid_output`. Pass `emit` undefined to stay silent.
 */
export async function runTurn(model: ModelClient, req: ModelRequest, emit: Emit | undefined, progress: TurnProgress, callPrefix: string): Promise<TurnReply> {
  const parts: Part[] = [];
  let finishReason: string | undefined;
  let usage: Usage | undefined;
  let text = '';
  for await (const chunk of model.stream(req)) {
    for (const part of chunk.parts) {
      if (typeof part.text === 'string' && part.text && emit) {
        if (part.thought) emit({ type: 'thought', text: part.text });
        else {
          emit({ type: 'message', role: 'assistant', text: part.text, delta: true });
          progress.visible = true;
        }
      }
      if (typeof part.text === 'string' && !part.thought) text += part.text;
      appendPart(parts, part);
    }
    if (chunk.finishReason) finishReason = chunk.finishReason;
    if (chunk.usage) usage = chunk.usage;
  }
  const meaningful = parts.filter((p) => !(Object.keys(p).length === 1 && p.text === ''));
  if (meaningful.length === 0) {
    throw new ModelFailure('invalid_output', `the model returned an empty reply${finishReason ? ` (finishReason ${finishReason})` : ''}`);
  }
  const calls = meaningful.flatMap((p, i) =>
    p.functionCall ? [{ ...p.functionCall, id: p.functionCall.id || `${callPrefix}-${i}`, args: p.functionCall.args ?? {} }] : [],
  );
  return {
    content: { role: 'model', parts: meaningful },
    calls,
    text,
    ...(finishReason ? { finishReason } : {}),
    ...(usage ? { usage } : {}),
  };
}

const isPlainText = (p: Part): boolean => typeof p.text === 'string' && Object.keys(p).every((k) => k === 'text' || k === 'thought');

function appendPart(parts: Part[], part: Part): void {
  const last = parts.at(-1);
  if (last && isPlainText(last) && isPlainText(part) && Boolean(last.thought) === Boolean(part.thought)) {
    parts[parts.length - 1] = { ...last, text: `${last.text}${part.text}` };
  } else parts.push({ ...part });
}
