import { messageOf } from '../common/errors.js';
import { ModelFailure, type ModelFailureKind } from './client.js';

/** What the transport saw besides the error itself. */
export interface FailureContext {
  /** The caller's signal fired. */
  aborted: boolean;
  /** Our idle timer fired: the stream went quiet. */
  stalled: boolean;
  /** `Retry-After` of the failed response, if any. */
  retryAfterHeader?: string | null;
  /** For parsing an HTTP-date Retry-After. */
  now?: number;
}

interface ApiErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<{ '@type'?: string; retryDelay?: string; reason?: string }>;
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Status code -> kind. 408 and 429 before the 4xx/5xx ranges. */
function kindOfStatus(status: number): ModelFailureKind {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'network';
  if (status === 401 || status === 403) return 'auth';
  if (status >= 500) return 'server';
  return 'bad_request';
}

/**
 * Any error out of the SDK (or our own stream handling) -> one ModelFailure. The SDK's ApiError
 * carries the status and the JSON error body in its message; transport errors are undici's
 * TypeErrors with a coded cause; a malformed SSE frame surfaces as a SyntaxError.
 */
export function classifyModelError(e: unknown, ctx: FailureContext): ModelFailure {
  if (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ModelFailure')
    return e as ModelFailure;
  if (ctx.aborted) return new ModelFailure('aborted', 'the request was cancelled', { cause: e });
  if (ctx.stalled)
    return new ModelFailure('network', 'the model stream stalled (no data within the idle timeout)', { cause: e });
  const name = (e as { name?: unknown } | null)?.name;
  const status = (e as { status?: unknown } | null)?.status;
  if (name === 'ApiError' && typeof status === 'number') {
    const body = tryErrorBody(messageOf(e));
    let kind = kindOfStatus(status);
    // Gemini answers a bad key with 400 INVALID_ARGUMENT; its ErrorInfo reason says so, and so does
    // the message where a proxy or an older endpoint drops the details.
    if (body?.details?.some((d) => d.reason === 'API_KEY_INVALID' || d.reason === 'API_KEY_SERVICE_BLOCKED'))
      kind = 'auth';
    if (status === 400 && /\bAPI key not valid\b/i.test(body?.message ?? '')) kind = 'auth';
    const retryAfterMs = parseRetryAfter(ctx.retryAfterHeader, ctx.now ?? Date.now()) ?? retryDelayOf(body);
    const text = body?.message
      ? `${status}${body.status ? ` ${body.status}` : ''}: ${body.message}`
      : `HTTP ${status}: ${messageOf(e)}`;
    return new ModelFailure(kind, text, { status, retryAfterMs, cause: e });
  }
  if (name === 'SyntaxError' || /exception parsing stream chunk|Incomplete JSON segment/.test(messageOf(e))) {
    return new ModelFailure('invalid_output', `malformed response stream: ${messageOf(e)}`, {
      invalid: 'malformed_stream',
      cause: e,
    });
  }
  if (name === 'AbortError' || name === 'TimeoutError')
    return new ModelFailure('network', `request timed out: ${messageOf(e)}`, { cause: e });
  const code = causeCode(e);
  const detail = code ? `${messageOf(e)} (${code})` : messageOf(e);
  // Everything else is a transport problem (reset, refused, "terminated", "fetch failed"):
  // retried on the network budget, which never spends the invalid-output one.
  return new ModelFailure('network', `network error: ${detail}`, { cause: e });
}

function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  }
  return undefined;
}

/** The `error` object of a JSON error body inside an ApiError message, if there is one. */
function tryErrorBody(message: string): ApiErrorBody | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed = JSON.parse(message.slice(start)) as { error?: ApiErrorBody } | ApiErrorBody[];
    const obj = Array.isArray(parsed) ? (parsed[0] as { error?: ApiErrorBody }) : parsed;
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
