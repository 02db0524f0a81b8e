import { messageOf } from '../common/errors.js';
import { ModelFailure, type ModelFailureKind } from './client.js';

/** What the transport saw besides the error itself. */
export interface FailureContext {
  /** The caller's signal fired. */
  aborted: boolean;
  /** Our idle timer fired: the stream went quiet. */
  stalled: boolean;
}

interface ApiErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<{ '@type'?: string; retryDelay?: string; reason?: string }>;
}

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Status code -> kind. 408 and 429 before the 4xx/5xx ranges. */
function kindOfStatus(status: number): ModelFailureKind {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'network';
  if (status === 401 || status === 403) return 'auth';
  if (status >= 500) return 'server';
  return 'bad_request';
}

/**
 * A response that is not 2xx -> one ModelFailure. The body is Google's JSON error
 * (`{"error": {code, message, status, details}}`) when the API sent it; `Retry-After` or the
 * error's RetryInfo says how long to wait.
 */
export function classifyHttpFailure(status: number, bodyText: string, retryAfterHeader: string | null, now: number = Date.now()): ModelFailure {
  const body = tryErrorBody(bodyText);
  return failureOf(status, body, parseRetryAfter(retryAfterHeader, now), bodyText);
}

/** An `{"error": ...}` object sent as an event mid-stream. */
export function classifyStreamError(error: ApiErrorBody): ModelFailure {
  const status = typeof error.code === 'number' ? error.code : 500;
  return failureOf(status, error, undefined, JSON.stringify(error));
}

function failureOf(status: number, body: ApiErrorBody | undefined, retryAfterMs: number | undefined, raw: string): ModelFailure {
  let kind = kindOfStatus(status);
  // Gemini answers a bad key with 400 INVALID_ARGUMENT; its ErrorInfo reason says so, and so does
  // the message where a proxy or an older endpoint drops the details.
  if (body?.details?.some((d) => d.reason === 'API_KEY_INVALID' || d.reason === 'API_KEY_SERVICE_BLOCKED')) kind = 'auth';
  if (status === 400 && /\bAPI key not valid\b/i.test(body?.message ?? '')) kind = 'auth';
  const text = body?.message ? `${status}${body.status ? ` ${body.status}` : ''}: ${body.message}` : `HTTP ${status}: ${raw.slice(0, 300).trim() || '(no body)'}`;
  return new ModelFailure(kind, text, { status, retryAfterMs: retryAfterMs ?? retryDelayOf(body) });
}

/**
 * Anything thrown while a request was made or its stream read -> one ModelFailure: our own
 * failures pass through; the caller's abort and our idle timer are told apart by the context; a
 * malformed event is invalid output; the rest (undici's TypeErrors with a coded cause: reset,
 * refused, "terminated", "fetch failed") is the network.
 */
export function classifyModelError(e: unknown, ctx: FailureContext): ModelFailure {
  if (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ModelFailure') return e as ModelFailure;
  if (ctx.aborted) return new ModelFailure('aborted', 'the request was cancelled', { cause: e });
  if (ctx.stalled) return new ModelFailure('network', 'the model stream stalled (no data within the idle timeout)', { cause: e });
  const name = (e as { name?: unknown } | null)?.name;
  if (name === 'SyntaxError') return new ModelFailure('invalid_output', `malformed response stream: ${messageOf(e)}`, { cause: e });
  if (name === 'AbortError' || name === 'TimeoutError') return new ModelFailure('network', `request timed out: ${messageOf(e)}`, { cause: e });
  const code = causeCode(e);
  const detail = code ? `${messageOf(e)} (${code})` : messageOf(e);
  // Retried on the network budget, which never spends the invalid-output one.
  return new ModelFailure('network', `network error: ${detail}`, { cause: e });
}

function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  }
  return undefined;
}

/** The `error` object of a JSON error body, if there is one (some proxies send an array of them). */
function tryErrorBody(text: string): ApiErrorBody | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: ApiErrorBody } | Array<{ error?: ApiErrorBody }>;
    const obj = Array.isArray(parsed) ? parsed[0] : parsed;
    return obj?.error && typeof obj.error === 'object' ? obj.error : undefined;
  } catch {
    return undefined;
  }
}

/** Retry-After as seconds or an HTTP date -> ms. Pure. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** google.rpc.RetryInfo's `retryDelay: "12.5s"` -> ms. */
function retryDelayOf(body: ApiErrorBody | undefined): number | undefined {
  const delay = body?.details?.find((d) => d['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay;
  const m = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}
