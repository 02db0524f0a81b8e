import { isModelFailure, type ModelClient, type ModelRequest } from '../model/client.js';
import type { Content, FunctionCall, Part, Usage } from '../model/wire.js';
import type { Emit } from './events.js';

/** One finished model turn. */
export interface TurnReply {
  /** The parts as sent; none when the model answered tool results with nothing (its turn ends). */
  content: Content;
  /** The turn's function calls, each with an id (ours: the API sends none). */
  calls: FunctionCall[];
  /** Non-thought text, concatenated. */
  text: string;
  finishReason?: string;
  /** Set when `watchText` stopped the stream part-way: its reason. The content is what arrived. */
  stopped?: string;
}

/** Set while a turn streams: whether anything reached the user (drives the replay rule). */
interface TurnProgress {
  visible: boolean;
}

export interface TurnOptions {
  /** undefined: stay silent (compression, the next-speaker check). */
  emit?: Emit;
  progress: TurnProgress;
  /** Prefix of the ids given to calls that came without one (every call: the API sends no ids). */
  callPrefix: string;
  /**
   * Gets what the request cost, once per attempt: the last usage the stream reported, whether the
   * reply was used or refused as unusable (the API bills both). A stream that broke off counts
   * nothing, as in Gemini CLI.
   */
  countUsage: (usage: Usage) => void;
  /** Sees each piece of assistant text as it arrives; a returned reason stops reading the stream. */
  watchText?: (delta: string) => string | undefined;
}

/**
 * Stream one model call, translating chunks into events as they arrive (assistant text as message
 * deltas, thought summaries as thought events). Parts are kept verbatim (thought signatures
 * included); only adjacent plain-text parts (a part with nothing but `text`, or `text` + `thought`)
 * are joined, which loses nothing. Throws ModelFailure: whether a reply is usable is the model
 * client's judgement (model/reply-check.ts), not this function's.
 */
export async function runTurn(model: ModelClient, req: ModelRequest, o: TurnOptions): Promise<TurnReply> {
  try {
    return await readTurn(model, req, o);
  } catch (e) {
    if (isModelFailure(e) && e.usage) o.countUsage(e.usage);
    throw e;
  }
}

async function readTurn(model: ModelClient, req: ModelRequest, o: TurnOptions): Promise<TurnReply> {
  const parts: Part[] = [];
  let finishReason: string | undefined;
  let usage: Usage | undefined;
  let text = '';
  let stopped: string | undefined;
  reading: for await (const chunk of model.stream(req)) {
    for (const part of chunk.parts) {
      if (typeof part.text === 'string' && part.text && o.emit) {
        if (part.thought) o.emit({ type: 'thought', text: part.text });
        else {
          o.emit({ type: 'message', role: 'assistant', text: part.text, delta: true });
          o.progress.visible = true;
        }
      }
      if (typeof part.text === 'string' && !part.thought) text += part.text;
      appendPart(parts, part);
      if (typeof part.text === 'string' && part.text && !part.thought) stopped = o.watchText?.(part.text);
      if (stopped) break reading;
    }
    if (chunk.finishReason) finishReason = chunk.finishReason;
    if (chunk.usage) usage = chunk.usage;
  }
  if (usage) o.countUsage(usage);
  const meaningful = parts.filter((p) => !(Object.keys(p).length === 1 && p.text === ''));
  const calls = meaningful.flatMap((p, i) =>
    p.functionCall
      ? [{ ...p.functionCall, id: p.functionCall.id || `${o.callPrefix}-${i}`, args: p.functionCall.args ?? {} }]
      : [],
  );
  return {
    content: { role: 'model', parts: meaningful },
    calls,
    text,
    ...(finishReason ? { finishReason } : {}),
    ...(stopped ? { stopped } : {}),
  };
}

const isPlainText = (p: Part): boolean =>
  typeof p.text === 'string' && Object.keys(p).every((k) => k === 'text' || k === 'thought');

function appendPart(parts: Part[], part: Part): void {
  const last = parts.at(-1);
  if (last && isPlainText(last) && isPlainText(part) && Boolean(last.thought) === Boolean(part.thought)) {
    parts[parts.length - 1] = { ...last, text: `${last.text}${part.text}` };
  } else parts.push({ ...part });
}
