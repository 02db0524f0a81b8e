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
  /** Running totals; the last chunk that carries them is the turn's usage. */
  usage?: Usage;
}

/**
 * The narrow interface core/ talks to. `stream` fails by throwing a `ModelFailure` (and only that):
 * classification happens once, in the implementation, so the loop's retry policy is a table.
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
 * The one error a ModelClient throws. A class (not a plain value) because it travels through
 * `throw` inside an async iterator; tell kinds apart by `kind`, and recognise it with
 * `isModelFailure` (by name, so it survives realm and bundle boundaries).
 */
export class ModelFailure extends Error {
  readonly kind: ModelFailureKind;
  readonly status?: number;
  /** From `Retry-After` (or the API's RetryInfo), when the server said how long to wait. */
  readonly retryAfterMs?: number;

  constructor(kind: ModelFailureKind, message: string, opts: { status?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ModelFailure';
    this.kind = kind;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }
}

export const isModelFailure = (e: unknown): e is ModelFailure => typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ModelFailure' && 'kind' in e;

/** Finish reasons that mean the reply was blocked. */
const BLOCKED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);
/** Finish reasons that mean the model produced something unusable: worth another try. */
const INVALID = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']);

/** The failure a finish reason implies, if any. Pure. */
export function parseFinishFailure(reason: string | undefined): ModelFailure | undefined {
  if (!reason) return undefined;
  if (BLOCKED.has(reason)) return new ModelFailure('safety', `the model's reply was blocked (finishReason ${reason})`);
  if (INVALID.has(reason)) return new ModelFailure('invalid_output', `the model's reply was unusable (finishReason ${reason})`);
  return undefined;
}
