import { classifyHttpFailure, classifyModelError, classifyStreamError } from './classify.js';
import { ModelFailure, parseFinishFailure, type ModelChunk, type ModelClient, type ModelRequest } from './client.js';
import { readServerSentEvents } from './sse.js';
import { parseUsage, type UsageMetadata } from './usage.js';
import type { Part } from './wire.js';

export interface GeminiClientOptions {
  apiKey: string;
  /** Defaults to GOOGLE_GEMINI_BASE_URL, then Google's endpoint. */
  baseUrl?: string;
  model: string;
  /** A stream that sends nothing for this long is aborted and fails as `network`. Default 5 min. */
  idleTimeoutMs?: number;
  /** Ask for thought summaries. Default: on for thinking models (2.5 and later). */
  includeThoughts?: boolean;
}

const DEFAULT_IDLE_MS = 5 * 60_000;
const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
const API_VERSION = 'v1beta';

/**
 * The Gemini API's REST wire, spoken directly: one `streamGenerateContent?alt=sse` POST per
 * `stream` call, read as server-sent events, over the runtime's fetch. No retries (the loop owns
 * retry policy), no automatic function calling or continuation. Every failure leaves as a
 * ModelFailure.
 *
 * Why not @google/genai: the SDK and what it pulls in (google-auth-library, gaxios, node-fetch,
 * ws, protobufjs, web-streams-polyfill) were three quarters of the CLI bundle and most of what a
 * run loaded and compiled before its first request, for one POST and a line format. The request
 * body is the SDK's own, byte for byte in meaning: test/model/wire-parity.test.ts sends the same
 * requests through the SDK (a dev dependency) and compares what the server received.
 */
export function createGeminiClient(opts: GeminiClientOptions): ModelClient & { readonly model: string } {
  const baseUrl = (opts.baseUrl ?? (process.env.GOOGLE_GEMINI_BASE_URL || DEFAULT_BASE_URL)).replace(/\/+$/, '');
  const idleMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  const headers = { 'content-type': 'application/json', 'x-goog-api-key': opts.apiKey };

  async function* stream(req: ModelRequest): AsyncGenerator<ModelChunk> {
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(req.signal.reason);
    if (req.signal.aborted) onAbort();
    else req.signal.addEventListener('abort', onAbort, { once: true });
    let stalled = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = true;
        ctrl.abort(new Error('stream idle timeout'));
      }, idleMs);
    };
    const thinking = opts.includeThoughts ?? /gemini-(2\.5|[3-9])/.test(req.model);
    let finished = false;
    try {
      arm();
      const res = await fetch(`${baseUrl}/${API_VERSION}/${modelPath(req.model)}:streamGenerateContent?alt=sse`, {
        method: 'POST',
        headers,
        body: JSON.stringify(requestBody(req, thinking)),
        signal: ctrl.signal,
      });
      if (!res.ok) throw classifyHttpFailure(res.status, await res.text(), res.headers.get('retry-after'));
      if (!res.body) throw new ModelFailure('invalid_output', 'the model answered with no body');
      // Any bytes count as life: the idle timer restarts on each read, not only on whole events.
      for await (const data of readServerSentEvents(res.body, arm)) yield toChunk(parseEvent(data));
      finished = true;
    } catch (e) {
      finished = true;
      throw classifyModelError(e, { aborted: req.signal.aborted, stalled });
    } finally {
      // The caller stopped reading part-way: close the request too, so the socket does not linger.
      if (!finished) ctrl.abort(new Error('the caller stopped reading the stream'));
      clearTimeout(timer);
      req.signal.removeEventListener('abort', onAbort);
    }
  }

  return { model: opts.model, stream };
}

/** `models/<id>` as the REST path wants it; a name that already says `models/` or `tunedModels/` is kept. */
const modelPath = (model: string): string => (/^(models|tunedModels)\//.test(model) ? model : `models/${model}`);

/** GenerateContentRequest as the REST API reads it (the SDK's field order). */
function requestBody(req: ModelRequest, thinking: boolean) {
  const generationConfig = {
    ...(req.maxOutputTokens ? { maxOutputTokens: req.maxOutputTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.responseJsonSchema ? { responseMimeType: 'application/json', responseJsonSchema: req.responseJsonSchema } : {}),
    ...(thinking ? { thinkingConfig: { includeThoughts: true } } : {}),
  };
  return {
    contents: req.contents,
    systemInstruction: { parts: [{ text: req.systemInstruction }], role: 'user' },
    ...(req.tools.length ? { tools: [{ functionDeclarations: req.tools }] } : {}),
    ...(req.toolConfig && req.tools.length ? { toolConfig: { functionCallingConfig: req.toolConfig } } : {}),
    ...(Object.keys(generationConfig).length ? { generationConfig } : {}),
  };
}

interface WireResponse {
  candidates?: Array<{ content?: { parts?: Part[] }; finishReason?: string }>;
  usageMetadata?: UsageMetadata;
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  error?: { code?: number; message?: string; status?: string };
}

/** One event's data: a GenerateContentResponse, or an error object the server sent mid-stream. */
function parseEvent(data: string): WireResponse {
  const res = JSON.parse(data) as WireResponse;
  if (res === null || typeof res !== 'object') throw new ModelFailure('invalid_output', `malformed response stream: an event is not a JSON object (${data.slice(0, 80)})`);
  if (res.error && typeof res.error === 'object') throw classifyStreamError(res.error);
  return res;
}

/** One response -> our chunk, reading parts as they came. */
function toChunk(res: WireResponse): ModelChunk {
  const block = res.promptFeedback?.blockReason;
  if (block) throw new ModelFailure('safety', `the prompt was blocked (${block})${res.promptFeedback?.blockReasonMessage ? `: ${res.promptFeedback.blockReasonMessage}` : ''}`);
  const cand = res.candidates?.[0];
  const finishReason = cand?.finishReason ? String(cand.finishReason) : undefined;
  const failure = parseFinishFailure(finishReason);
  if (failure) throw failure;
  const usage = parseUsage(res.usageMetadata);
  return {
    parts: Array.isArray(cand?.content?.parts) ? cand.content.parts : [],
    ...(finishReason ? { finishReason } : {}),
    ...(usage ? { usage } : {}),
  };
}
