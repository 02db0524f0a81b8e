import type { FunctionCallingConfigMode, GenerateContentResponse, GoogleGenAI } from '@google/genai/web';
import { classifyModelError } from './classify.js';
import { ModelFailure, type ModelChunk, type ModelClient, type ModelRequest } from './client.js';
import { GOOGLE_TOKEN_URL, type GoogleCredentials } from './google-credentials.js';
import { answersToolResults, parseBlockedFinish, parseReplyFailure, type ReplySummary } from './reply-check.js';
import { parseUsage, type UsageMetadata } from './usage.js';
import type { Part } from './wire.js';

export interface GeminiClientOptions {
  /** The Gemini API's key, or with `vertex: { auth: 'api-key' }` a Vertex AI key (express mode). */
  apiKey: string;
  /** Vertex AI instead of the Gemini API. */
  vertex?: VertexTarget;
  /** Defaults to GOOGLE_GEMINI_BASE_URL (GOOGLE_VERTEX_BASE_URL for Vertex AI), then the SDK's own endpoint. */
  baseUrl?: string;
  model: string;
  /** A stream that sends nothing for this long is aborted and fails as `network`. Default 5 min. */
  idleTimeoutMs?: number;
  /** Ask for thought summaries. Default: on for thinking models (2.5 and later). */
  includeThoughts?: boolean;
}

/**
 * Vertex AI: with an API key (express mode: no project, `publishers/google/models/...`), or with
 * Application Default Credentials for a project and location (`projects/P/locations/L/publishers/...`).
 * `credentials` is the parsed ADC file (google-credentials.ts); absent, google-auth-library looks
 * for credentials itself (gcloud's file, a metadata server). `tokenUri`: a service-account key's own
 * token endpoint, which the library would ignore.
 */
export type VertexTarget =
  | { auth: 'api-key' }
  | { auth: 'adc'; project: string; location: string; credentials?: GoogleCredentials; tokenUri?: string };

const DEFAULT_IDLE_MS = 5 * 60_000;
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * The Gemini client over @google/genai (the only file that imports it). One request per `stream`
 * call, no SDK retries (the loop owns retry policy), no automatic function calling or continuation.
 * Every failure leaves as a ModelFailure; a finished reply that cannot be used (reply-check.ts)
 * fails after its last chunk, so the usage it reported reaches the caller first.
 *
 * The SDK's fetch build (`@google/genai/web`): the same GoogleGenAI, Models and request code as its
 * Node build, on the runtime's own fetch, with API-key auth only. The Node build adds what an
 * API-key run never uses (google-auth-library and gaxios, file uploads, the Live API's `ws`), which
 * was most of what a run compiled before its first request (~40% of the SDK chunk) and ~10 MiB of a
 * run's memory. Only the User-Agent's language label differs (`gl-node/web`).
 *
 * The SDK is imported with the first request, not with this file: `--version`, `--help`,
 * `policy check` or a run that fails before asking the model never need it. The bundler puts it in
 * a chunk of its own (scripts/build.mjs).
 *
 * Vertex AI with a Vertex key runs on the same fetch build. Vertex AI with Google Cloud credentials
 * is the one case for the Node build: only it carries google-auth-library (token exchange, signed
 * JWTs, Workload Identity Federation). It is imported only when that is chosen, a chunk of its own.
 */
let sdkModule: Promise<typeof import('@google/genai/web')> | undefined;
const importSdk = () => (sdkModule ??= import('@google/genai/web'));

/**
 * Starts importing the SDK now, without waiting: a run calls this first, so that the SDK's files
 * are read while the run reads its configuration, not after. Never fails: a broken SDK chunk is
 * reported by the first request, which awaits the same import.
 */
export function preloadGeminiSdk(): void {
  importSdk().catch(() => undefined);
}

export function createGeminiClient(opts: GeminiClientOptions): ModelClient & { readonly model: string } {
  let sdk: Promise<GoogleGenAI> | undefined;
  const client = (): Promise<GoogleGenAI> => (sdk ??= createSdkClient(opts));
  const idleMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_MS;

  async function* stream(req: ModelRequest): AsyncGenerator<ModelChunk> {
    // Before the try: a bundle that cannot load its SDK chunk is broken, not a network failure to retry.
    const ai = await client();
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
    // The SDK's ApiError drops response headers; this per-request fetch keeps Retry-After.
    let retryAfterHeader: string | null = null;
    const fetchKeepingRetryAfter: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!res.ok) retryAfterHeader = res.headers.get('retry-after');
      return res;
    };
    const thinking = opts.includeThoughts ?? /gemini-(2\.5|[3-9])/.test(req.model);
    let finished = false;
    try {
      arm();
      const responses = await ai.models.generateContentStream({
        model: req.model,
        contents: req.contents,
        config: {
          systemInstruction: req.systemInstruction,
          ...(req.tools.length ? { tools: [{ functionDeclarations: req.tools }] } : {}),
          ...(req.toolConfig && req.tools.length
            ? {
                toolConfig: {
                  functionCallingConfig: { ...req.toolConfig, mode: req.toolConfig.mode as FunctionCallingConfigMode },
                },
              }
            : {}),
          ...(req.maxOutputTokens ? { maxOutputTokens: req.maxOutputTokens } : {}),
          ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
          ...(req.responseJsonSchema
            ? { responseMimeType: 'application/json', responseJsonSchema: req.responseJsonSchema }
            : {}),
          ...(thinking ? { thinkingConfig: { includeThoughts: true } } : {}),
          abortSignal: ctrl.signal,
          automaticFunctionCalling: { disable: true },
          automaticContinuation: false,
          httpOptions: { fetch: fetchKeepingRetryAfter },
        },
      });
      yield* readReply(responses, req.contents, { arrived: () => clearTimeout(timer), consumed: arm });
      finished = true;
    } catch (e) {
      finished = true;
      throw classifyModelError(e, { aborted: req.signal.aborted, stalled, retryAfterHeader });
    } finally {
      // The caller stopped reading part-way (a loop detected in the text): close the request too.
      if (!finished) ctrl.abort(new Error('the caller stopped reading the stream'));
      clearTimeout(timer);
      req.signal.removeEventListener('abort', onAbort);
    }
  }

  return { model: opts.model, stream };
}

/** The SDK's client for the backend chosen: the fetch build unless Google Cloud credentials are needed. */
async function createSdkClient(opts: GeminiClientOptions): Promise<GoogleGenAI> {
  const env = opts.vertex ? process.env.GOOGLE_VERTEX_BASE_URL : process.env.GOOGLE_GEMINI_BASE_URL;
  const baseUrl = opts.baseUrl ?? (env || undefined);
  const httpOptions = baseUrl ? { baseUrl } : {};
  const v = opts.vertex;
  if (v?.auth !== 'adc') {
    const { GoogleGenAI } = await importSdk();
    return v
      ? new GoogleGenAI({ vertexai: true, apiKey: opts.apiKey, httpOptions })
      : new GoogleGenAI({ apiKey: opts.apiKey, apiVersion: 'v1beta', httpOptions });
  }
  const node = await import('@google/genai/node');
  const googleAuthOptions = {
    scopes: [CLOUD_PLATFORM_SCOPE],
    ...(v.credentials && { credentials: v.credentials }),
    ...(v.tokenUri && { clientOptions: { transporterOptions: { fetchImplementation: toTokenUri(v.tokenUri) } } }),
  };
  // The same Models and request code as the fetch build's client: only its auth differs.
  const ai = new node.GoogleGenAI({
    vertexai: true,
    project: v.project,
    location: v.location,
    googleAuthOptions,
    httpOptions,
  });
  return ai as unknown as GoogleGenAI;
}

/**
 * google-auth-library posts a service account's signed JWT to Google's token endpoint whatever the
 * key file's `token_uri` says (Python's google-auth and gcloud honour it): this fetch sends it there.
 */
function toTokenUri(tokenUri: string): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return fetch(url === GOOGLE_TOKEN_URL ? tokenUri : input, init);
  };
}

/**
 * The SDK's responses as our chunks, the reply judged once the stream has ended (reply-check.ts).
 * `arrived` and `consumed` bracket the time the caller holds each chunk (the idle timer's pause).
 */
async function* readReply(
  responses: AsyncIterable<GenerateContentResponse>,
  contents: ModelRequest['contents'],
  idle: { arrived(): void; consumed(): void },
): AsyncGenerator<ModelChunk> {
  const reply: ReplySummary & { parts: Part[] } = { parts: [] };
  for await (const res of responses) {
    idle.arrived();
    const chunk = toChunk(res);
    if (chunk.usage) reply.usage = chunk.usage;
    const blocked = blockedFailure(res, chunk);
    if (blocked) {
      // Nothing of a blocked reply is shown; what it cost still counts.
      if (chunk.usage) yield { parts: [], usage: chunk.usage };
      throw blocked;
    }
    reply.parts.push(...chunk.parts);
    if (chunk.finishReason) reply.finishReason = chunk.finishReason;
    yield chunk;
    idle.consumed();
  }
  const unusable = parseReplyFailure(reply, { answersToolResults: answersToolResults(contents) });
  if (unusable) throw unusable;
}

/** One SDK response -> our chunk, reading parts (never the `.text` getter). `parts` may be absent. */
function toChunk(res: GenerateContentResponse): ModelChunk {
  const cand = res.candidates?.[0];
  const finishReason = cand?.finishReason ? String(cand.finishReason) : undefined;
  const usage = parseUsage(res.usageMetadata as UsageMetadata | undefined);
  return {
    parts: (cand?.content?.parts ?? []) as Part[],
    ...(finishReason ? { finishReason } : {}),
    ...(usage ? { usage } : {}),
  };
}

/** A blocked prompt or reply, as the failure it is (carrying what the request cost). */
function blockedFailure(res: GenerateContentResponse, chunk: ModelChunk): ModelFailure | undefined {
  const block = res.promptFeedback?.blockReason;
  if (!block) return parseBlockedFinish(chunk.finishReason, chunk.usage);
  const why = res.promptFeedback?.blockReasonMessage;
  return new ModelFailure(
    'safety',
    `the prompt was blocked (${block})${why ? `: ${why}` : ''}`,
    chunk.usage ? { usage: chunk.usage } : {},
  );
}
