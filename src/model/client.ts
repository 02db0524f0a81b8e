import type { Content, FunctionDeclaration, Part, Usage } from './wire.js';

/** One request to the model. The client never keeps history: the caller sends all of it. */
export interface ModelRequest {
  model: string;
  systemInstruction: string;
  tools: FunctionDeclaration[];
  contents: Content[];
  signal: AbortSignal;
  maxOutputTokens?: number;
  /** Function calling mode for this request (a BeforeToolSelection hook's `toolConfig`); absent: AUTO. */
  toolConfig?: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
  temperature?: number;
  /** Structured output: the reply is JSON text matching this schema (no tools are sent with it). */
  responseJsonSchema?: Record<string, unknown>;
  /** What the request is for, as Gemini CLI's telemetry names it (`main` when absent). */
  role?: LlmRole;
}

/** Gemini CLI's names for why a request was made (its LlmRole), the ones this project uses. */
export type LlmRole = 'main' | 'subagent' | 'utility_compressor' | 'utility_next_speaker';

/** One streamed chunk: the parts exactly as the API sent them. */
export interface ModelChunk {
  parts: Part[];
  finishReason?: string;
  /**
   * The API sends usage on most chunks, each a running total for the whole request (not a delta,
   * and not always growing: a MALFORMED_FUNCTION_CALL chunk reports less than the one before it).
   * The last chunk that carries usage is what the request cost.
   */
  usage?: Usage;
}

/**
 * The narrow interface core/ talks to. `stream` fails by throwing a `ModelFailure` (and only that):
 * classification happens once, in the implementation, so the loop's retry policy is a table. A
 * reply the API finished but that cannot be used (model/reply-check.ts) fails after its last chunk
 * has been yielded, so what it cost is seen like any other request's.
 */
export interface ModelClient {
  stream(req: ModelRequest): AsyncIterable<ModelChunk>;
}

export type ModelFailureKind =
  | 'rate_limited' // 429 / RESOURCE_EXHAUSTED
  | 'server' // 5xx
  | 'network' // reset, refused, stalled stream, timeout
  | 'bad_request' // 400, 404, ... : the request itself is wrong
  | 'auth' // 401, 403, invalid API key
  | 'safety' // blocked prompt or response
  | 'invalid_output' // malformed stream, malformed function call, empty reply
  | 'aborted'; // the caller's signal

/**
 * Why a reply was `invalid_output`: Gemini CLI's names for its unusable streams (its
 * InvalidStreamError types), which decide what a retry tells the model (core/retry.ts).
 */
export type InvalidReply =
  | 'no_finish_reason'
  | 'no_response_text'
  | 'thinking_only'
  | 'malformed_function_call'
  | 'unexpected_tool_call'
  | 'too_many_tool_calls'
  | 'max_tokens_empty'
  | 'other_empty'
  | 'malformed_stream';

/**
 * The one error a ModelClient throws. A class (not a plain value) because it travels through
 * `throw` inside an async iterator; tell kinds apart by `kind`, and recognise it with
 * `isModelFailure` (by name, so it survives realm and bundle boundaries).
 */
export class ModelFailure extends Error {
  readonly kind: ModelFailureKind;
  readonly status?: number;
  /** From `Retry-After` (or the API's RetryInfo), when the server said how long to wait. */
  readonly retryAfterMs?: number;
  /** For `invalid_output`: what was wrong with the reply. */
  readonly invalid?: InvalidReply;
  /**
   * What the API counted for a request it answered in full before the answer was refused (blocked,
   * or unusable): billed like any other. Absent when the request broke off (reset, error status).
   */
  readonly usage?: Usage;

  constructor(
    kind: ModelFailureKind,
    message: string,
    opts: { status?: number; retryAfterMs?: number; invalid?: InvalidReply; usage?: Usage; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ModelFailure';
    this.kind = kind;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
    if (opts.invalid !== undefined) this.invalid = opts.invalid;
    if (opts.usage !== undefined) this.usage = opts.usage;
  }
}

export const isModelFailure = (e: unknown): e is ModelFailure =>
  typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ModelFailure' && 'kind' in e;
