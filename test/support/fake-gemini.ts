/**
 * A fake Gemini API on 127.0.0.1 that speaks the real REST wire format, for tests and benchmarks,
 * and answers the way the real API does: function calls without ids, a thought signature on a
 * turn's first call, usage on every chunk (a running total), no `parts` in an empty reply, and
 * MALFORMED_FUNCTION_CALL finishes (`malformedCall`). Real recorded streams replay as they were
 * recorded (`recorded(file, index)`).
 *
 *   const fake = await startFakeGemini([
 *     reply([text('Let me look.'), call('read_file', { file_path: 'a.ts' })]),
 *     fault.status(429, { retryAfter: '7' }),
 *     reply([text('Done.')], { usage: usage(120, 8) }),
 *   ]);
 *   createGeminiClient({ apiKey: 'k', baseUrl: fake.baseUrl, model: 'gemini-2.5-flash' });
 *   ...
 *   fake.requests[1].body.contents   // what the model received, parsed
 *   await fake.close();
 *
 * Routes: POST /v1beta/models/{model}:streamGenerateContent?alt=sse (SSE `data: {json}\r\n\r\n`
 * frames) and POST /v1beta/models/{model}:generateContent (one JSON body: the chunks merged). Vertex
 * AI's shapes too, as the SDK sends them with `vertexai: true`:
 * /v1beta1/projects/{project}/locations/{location}/publishers/google/models/{model}:{method} (Google
 * Cloud credentials: an `Authorization: Bearer` header, else 401 UNAUTHENTICATED as Vertex answers)
 * and /v1beta1/publishers/google/models/{model}:{method} (express mode: a Vertex API key, else 401);
 * their frames carry what Vertex adds (`createTime`, `responseId`, usage's `trafficType`).
 * Each request takes the next scripted reply; when the script runs out the server answers 500
 * "fake-gemini: script exhausted", so a test that asks more than it scripted fails loudly.
 * Replies are plain JSON, so a script can be written by one process and served by another
 * (`startFakeGemini(JSON.parse(...))`).
 *
 * Conversations running at once (a triage shard with triage-concurrency > 1) ask in no fixed
 * order: `routeBy(keyOf)` names each request's conversation (from its first user message, say) and
 * `pushFor(key, ...)` scripts that conversation alone; requests of a key with no script of its own
 * take from the shared script.
 *
 * The next-speaker check's requests (structured output asking for `next_speaker`) are a side channel: they are recorded in `utilityRequests`, not `requests`, and answered
 * from their own script (`pushUtility`), or, when it is empty, with `{"next_speaker":"user"}` at no
 * token cost (`DEFAULT_VERDICT`): a run that ends with text is judged done unless a test scripts
 * otherwise, so the scripts, request counts and token totals of tests that do not exercise the
 * check stay as they are. Tests of the check script its answers (`speaker(...)`, which has usage).
 *
 * Faults: status (429 with Retry-After, 4xx, 5xx with a Google error body), reset (frames, then the
 * socket is destroyed), malformed (frames, then a frame that is not JSON), errorFrame (frames, then
 * an `{"error": ...}` object mid-stream), hang (frames, then silence until the client gives up).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A GenerateContentResponse as the API sends it: `content` may lack `parts`, a candidate `content`. */
export interface WireChunk {
  candidates?: Array<{ content?: { role: 'model'; parts?: WirePart[] }; finishReason?: string; index?: number }>;
  usageMetadata?: WireUsage;
  promptFeedback?: { blockReason?: string };
  modelVersion?: string;
}
export type WirePart = Record<string, unknown>;
export interface WireUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
  /** The API's per-modality details (promptTokensDetails, cacheTokensDetails), kept as recorded. */
  [detail: string]: unknown;
}

export type FakeReply =
  | { kind: 'chunks'; chunks: WireChunk[] }
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: unknown }
  | { kind: 'reset'; before: WireChunk[] }
  | { kind: 'malformed'; before: WireChunk[] }
  | { kind: 'errorFrame'; before: WireChunk[]; code: number; status: string; message: string }
  | { kind: 'hang'; before: WireChunk[] }
  /** In-process only: the reply waits for `gate` (another conversation's request, say). */
  | { kind: 'gated'; gate: Promise<void>; reply: FakeReply };

export interface RecordedRequest {
  model: string;
  method: 'streamGenerateContent' | 'generateContent';
  /** The parsed request body: contents, systemInstruction, tools, generationConfig. */
  body: {
    contents: Array<{ role: string; parts: WirePart[] }>;
    systemInstruction?: { parts: Array<{ text?: string }> };
    tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
    generationConfig?: Record<string, unknown>;
    [k: string]: unknown;
  };
  apiKey: string | undefined;
  /** The request's path (which API shape it used). */
  path: string;
  /** The Authorization header (Vertex AI with Google Cloud credentials). */
  authorization: string | undefined;
  /** Vertex AI requests: the project and location of the path (absent in express mode). */
  vertex?: { project?: string; location?: string };
}

export interface FakeGemini {
  /** Pass as `baseUrl` (or GOOGLE_GEMINI_BASE_URL). */
  baseUrl: string;
  /** The conversation's requests (not the structured-output side channel). */
  requests: RecordedRequest[];
  /** Structured-output requests (the next-speaker check), in order. */
  utilityRequests: RecordedRequest[];
  /** Append replies to the script. */
  push(...replies: FakeReply[]): void;
  /** Append replies for structured-output requests; when none is left they are answered DEFAULT_VERDICT. */
  pushUtility(...replies: FakeReply[]): void;
  /** Replies not yet used. */
  remaining(): number;
  /** Resolves once the server has received `count` requests (at once if it already has): wait on this, not a timer. */
  untilRequests(count: number): Promise<void>;
  /** Resolves once a request matching `test` has arrived (at once if one has). */
  until(test: (r: RecordedRequest) => boolean): Promise<void>;
  /** Names the conversation a request belongs to (undefined: the shared script). */
  routeBy(keyOf: (r: RecordedRequest) => string | undefined): void;
  /** Replies for one conversation only, in order. */
  pushFor(key: string, ...replies: FakeReply[]): void;
  close(): Promise<void>;
}

// ---- builders -----------------------------------------------------------------------------

export const text = (t: string): WirePart => ({ text: t });
export const thought = (t: string, signature?: string): WirePart => ({
  text: t,
  thought: true,
  ...(signature ? { thoughtSignature: signature } : {}),
});
/** A function call as the Gemini API sends it: with no `id` (the API sends none; callers make their own). */
export const call = (name: string, args: Record<string, unknown> = {}): WirePart => ({ functionCall: { name, args } });
export const usage = (prompt: number, output: number, extra: Partial<WireUsage> = {}): WireUsage => ({
  promptTokenCount: prompt,
  candidatesTokenCount: output,
  totalTokenCount: prompt + output + (extra.thoughtsTokenCount ?? 0),
  ...extra,
});

/**
 * The thought signature `reply` gives a turn's first function call, as a thinking model does (the
 * API wants it back, verbatim, on that part). Real ones are opaque base64; this one names its call.
 */
export const fakeSignature = (name: string): string => `fake-signature/${name}`;

/**
 * A streamed reply, shaped as the API streams (test/fixtures/gemini-cli-recorded shows it): one
 * chunk per part; `finishReason` (default STOP; `null` leaves it off) on the last; usage on every
 * chunk as a running total that ends at `usage` (default usage(10, 5)), so only the last chunk's
 * is the reply's; the first function call part carries a thoughtSignature (fakeSignature) unless a
 * part already has one; no parts at all is a candidate whose content has no `parts`.
 */
export function reply(parts: WirePart[], opts: { finishReason?: string | null; usage?: WireUsage } = {}): FakeReply {
  return { kind: 'chunks', chunks: chunksOf(signFirstCall(parts), opts) };
}

/**
 * The API's answer when the model botched a function call: its thoughts, if any, each chunk
 * counting the prompt and `thoughtTokens` (default 8), then a candidate with no content and
 * finishReason MALFORMED_FUNCTION_CALL whose usage counts the prompt alone, fewer tokens than the
 * chunks before it (recorded: a thought chunk at 12,352 in total, then the finish at 12,282).
 */
export function malformedCall(
  thoughts: WirePart[] = [],
  opts: { promptTokens?: number; thoughtTokens?: number } = {},
): FakeReply {
  const prompt = opts.promptTokens ?? 10;
  const thinking = opts.thoughtTokens ?? 8;
  const before = thoughts.map((p): WireChunk => ({
    candidates: [{ content: { role: 'model', parts: [p] }, index: 0 }],
    usageMetadata: { promptTokenCount: prompt, thoughtsTokenCount: thinking, totalTokenCount: prompt + thinking },
  }));
  const finish: WireChunk = {
    candidates: [{ finishReason: 'MALFORMED_FUNCTION_CALL', index: 0 }],
    usageMetadata: { promptTokenCount: prompt, totalTokenCount: prompt },
  };
  return { kind: 'chunks', chunks: [...before, finish] };
}

function signFirstCall(parts: WirePart[]): WirePart[] {
  const first = parts.findIndex((p) => p.functionCall);
  if (first < 0 || parts.some((p) => p.thoughtSignature)) return parts;
  const name = (parts[first].functionCall as { name: string }).name;
  return parts.map((p, i) => (i === first ? { ...p, thoughtSignature: fakeSignature(name) } : p));
}

function chunksOf(parts: WirePart[], opts: { finishReason?: string | null; usage?: WireUsage } = {}): WireChunk[] {
  const finishReason = opts.finishReason === null ? undefined : (opts.finishReason ?? 'STOP');
  const u = opts.usage ?? usage(10, 5);
  if (parts.length === 0)
    return [
      {
        candidates: [{ content: { role: 'model' }, ...(finishReason ? { finishReason } : {}), index: 0 }],
        usageMetadata: u,
      },
    ];
  return parts.map((p, i) => {
    const last = i === parts.length - 1;
    return {
      candidates: [
        { content: { role: 'model', parts: [p] }, index: 0, ...(last && finishReason ? { finishReason } : {}) },
      ],
      usageMetadata: last ? u : runningUsage(u, (i + 1) / parts.length),
    };
  });
}

/** The running total part-way through a reply: the whole prompt and thoughts, a share of the output. */
function runningUsage(final: WireUsage, share: number): WireUsage {
  if (final.candidatesTokenCount === undefined) return final;
  const output = Math.floor(final.candidatesTokenCount * share);
  const rest = (final.totalTokenCount ?? 0) - final.candidatesTokenCount;
  return { ...final, candidatesTokenCount: output, totalTokenCount: rest + output };
}

/**
 * Replies recorded from the real API by Gemini CLI (`--record-responses`), pinned in
 * test/fixtures/gemini-cli-recorded (its README names the source): each line of `file` is one
 * request's answer, `{"method", "response"}`, a stream's chunks or one generateContent body. The
 * chunks are served exactly as recorded.
 */
export function recorded(file: string, index: number): FakeReply {
  const lines = readFileSync(new URL(`../fixtures/gemini-cli-recorded/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const line = lines[index];
  if (line === undefined)
    throw new Error(`fake-gemini: ${file} has ${lines.length} recorded replies, not one at index ${index}`);
  const { response } = JSON.parse(line) as { method: string; response: WireChunk | WireChunk[] };
  return { kind: 'chunks', chunks: Array.isArray(response) ? response : [response] };
}

/** A next-speaker check's answer, as the structured-output JSON text a model returns. */
export const speaker = (who: 'user' | 'model', reasoning = `the ${who} speaks next`): FakeReply =>
  reply([text(JSON.stringify({ reasoning, next_speaker: who }))], { usage: usage(40, 12) });

/**
 * The next-speaker check's request (structured output whose schema asks for `next_speaker`): the
 * side channel. Other structured requests (an `output-schema` final answer) are the conversation's
 * own turns and take from the main script.
 */
function isNextSpeakerCheck(body: RecordedRequest['body']): boolean {
  const config = body.generationConfig;
  if (config?.responseMimeType !== 'application/json') return false;
  const schema = config.responseJsonSchema as { properties?: Record<string, unknown> } | undefined;
  return schema?.properties?.next_speaker !== undefined;
}

/** The side channel's answer when nothing is scripted: "user" (the run ends), costing no tokens. */
const DEFAULT_VERDICT: FakeReply = reply(
  [text(JSON.stringify({ reasoning: 'not scripted: the fake says the user speaks next', next_speaker: 'user' }))],
  {
    usage: { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 },
  },
);

export const fault = {
  status: (status: number, opts: { retryAfter?: string; message?: string; details?: unknown[] } = {}): FakeReply => ({
    kind: 'status',
    status,
    headers: opts.retryAfter ? { 'retry-after': opts.retryAfter } : {},
    body: {
      error: {
        code: status,
        message: opts.message ?? `fake error ${status}`,
        status: STATUS_NAMES[status] ?? 'UNKNOWN',
        ...(opts.details ? { details: opts.details } : {}),
      },
    },
  }),
  reset: (before: WirePart[] = []): FakeReply => ({
    kind: 'reset',
    before: chunksOf(before, { finishReason: null }).slice(0, before.length),
  }),
  malformed: (before: WirePart[] = []): FakeReply => ({
    kind: 'malformed',
    before: chunksOf(before, { finishReason: null }).slice(0, before.length),
  }),
  errorFrame: (code: number, message: string, before: WirePart[] = []): FakeReply => ({
    kind: 'errorFrame',
    before: chunksOf(before, { finishReason: null }).slice(0, before.length),
    code,
    status: STATUS_NAMES[code] ?? 'UNKNOWN',
    message,
  }),
  hang: (before: WirePart[] = []): FakeReply => ({
    kind: 'hang',
    before: chunksOf(before, { finishReason: null }).slice(0, before.length),
  }),
};

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

// ---- server -------------------------------------------------------------------------------

const METHOD = '(streamGenerateContent|generateContent)';
const ROUTE = new RegExp(`^/v1beta/models/([^/:]+):${METHOD}$`);
const VERTEX_ROUTE = new RegExp(
  `^/v1beta1/(?:projects/([^/]+)/locations/([^/]+)/)?publishers/google/models/([^/:]+):${METHOD}$`,
);

interface Route {
  model: string;
  method: RecordedRequest['method'];
  vertex?: { project?: string; location?: string };
}

function routeOf(pathname: string): Route | undefined {
  const m = ROUTE.exec(pathname);
  if (m) return { model: decodeURIComponent(m[1]), method: m[2] as Route['method'] };
  const v = VERTEX_ROUTE.exec(pathname);
  if (!v) return undefined;
  const where = v[1] ? { project: decodeURIComponent(v[1]), location: decodeURIComponent(v[2]) } : {};
  return { model: decodeURIComponent(v[3]), method: v[4] as Route['method'], vertex: where };
}

/** Vertex refuses a request without credentials of its kind: a bearer token for a project path, a key for express mode. */
function vertexRefusal(route: Route, req: IncomingMessage): string | undefined {
  if (!route.vertex) return undefined;
  if (route.vertex.project)
    return /^Bearer \S+$/.test(header(req, 'authorization') ?? '') ? undefined : 'no bearer token';
  return header(req, 'x-goog-api-key') ? undefined : 'no API key';
}

export async function startFakeGemini(script: FakeReply[] = []): Promise<FakeGemini> {
  const queue = [...script];
  const utilityQueue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const utilityRequests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters: Array<{ ready: () => boolean; resolve: () => void }> = [];
  const keyed = new Map<string, FakeReply[]>();
  let keyOf: (r: RecordedRequest) => string | undefined = () => undefined;
  const wake = () => {
    for (const w of waiters.filter((x) => x.ready())) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  const wait = (ready: () => boolean) =>
    new Promise<void>((resolve) => {
      waiters.push({ ready, resolve });
      wake();
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = routeOf(url.pathname);
    if (req.method !== 'POST' || !route)
      return sendJson(res, 404, {
        error: { code: 404, message: `fake-gemini: no route ${req.method} ${url.pathname}`, status: 'NOT_FOUND' },
      });
    const refused = vertexRefusal(route, req);
    if (refused)
      return sendJson(res, 401, {
        error: {
          code: 401,
          message: `Request had invalid authentication credentials (fake-gemini: ${refused}).`,
          status: 'UNAUTHENTICATED',
        },
      });
    const raw = await readBody(req);
    let body: RecordedRequest['body'];
    try {
      body = JSON.parse(raw) as RecordedRequest['body'];
    } catch {
      return sendJson(res, 400, {
        error: { code: 400, message: 'fake-gemini: request body is not JSON', status: 'INVALID_ARGUMENT' },
      });
    }
    const { method } = route;
    const recorded: RecordedRequest = {
      model: route.model,
      method,
      body,
      apiKey: header(req, 'x-goog-api-key') ?? url.searchParams.get('key') ?? undefined,
      path: url.pathname,
      authorization: header(req, 'authorization'),
      ...(route.vertex && { vertex: route.vertex }),
    };
    const as = route.vertex ? asVertex(route.model) : undefined;
    if (isNextSpeakerCheck(body)) {
      utilityRequests.push(recorded);
      return serve(utilityQueue.shift() ?? DEFAULT_VERDICT, method, res, as);
    }
    requests.push(recorded);
    const key = keyOf(recorded);
    const next = (key !== undefined && keyed.get(key)) || queue;
    const reply = next.shift();
    if (!reply)
      sendJson(res, 500, {
        error: {
          code: 500,
          message: `fake-gemini: script exhausted${key !== undefined && keyed.has(key) ? ` for ${key}` : ''}`,
          status: 'INTERNAL',
        },
      });
    else serve(reply, method, res, as);
    wake(); // after serving: a waiter sees the reply (or the hang) already under way
  };
  // A handler that throws ends that response; the test sees a dropped connection, not an unhandled rejection.
  const server = createServer(
    (req, res) =>
      void handle(req, res).catch((e: unknown) => res.destroy(e instanceof Error ? e : new Error(String(e)))),
  );
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    utilityRequests,
    push: (...replies) => void queue.push(...replies),
    remaining: () => queue.length + [...keyed.values()].reduce((n, q) => n + q.length, 0),
    untilRequests: (count) => wait(() => requests.length >= count),
    until: (test) => wait(() => requests.some(test)),
    routeBy: (f) => void (keyOf = f),
    pushFor: (key, ...replies) => void keyed.set(key, [...(keyed.get(key) ?? []), ...replies]),
    pushUtility: (...replies) => void utilityQueue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `reply`, sent only once `gate` resolves: for tests of conversations that must overlap. */
export const gated = (gate: Promise<void>, r: FakeReply): FakeReply => ({ kind: 'gated', gate, reply: r });

/** A chunk as Vertex AI sends it: the Gemini API's fields plus its own (`createTime`, `responseId`, usage's `trafficType`). */
function asVertex(model: string): (c: WireChunk) => WireChunk {
  const responseId = `fake-${Math.random().toString(36).slice(2, 12)}`;
  const createTime = new Date(0).toISOString();
  return (c) => ({
    ...c,
    ...(c.usageMetadata && { usageMetadata: { ...c.usageMetadata, trafficType: 'ON_DEMAND' } }),
    modelVersion: c.modelVersion ?? model,
    createTime,
    responseId,
  });
}

function serve(
  r: FakeReply,
  method: RecordedRequest['method'],
  res: ServerResponse,
  shape: (c: WireChunk) => WireChunk = (c) => c,
): void {
  if (r.kind === 'gated') return void r.gate.then(() => serve(r.reply, method, res, shape));
  if (r.kind === 'status') return sendJson(res, r.status, r.body ?? {}, r.headers);
  if (method === 'generateContent') {
    if (r.kind !== 'chunks') return void res.socket?.destroy();
    return sendJson(res, 200, shape(mergeChunks(r.chunks)));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const frames = (r.kind === 'chunks' ? r.chunks : r.before).map(shape);
  for (const c of frames) res.write(`data: ${JSON.stringify(c)}\r\n\r\n`);
  switch (r.kind) {
    case 'chunks':
      return void res.end();
    case 'reset':
      // Let the frames leave before the connection dies mid-stream.
      return void setTimeout(() => res.socket?.destroy(), 20);
    case 'malformed':
      res.write('data: {"candidates": [{"content": {"parts": [{"text": "oops"\r\n\r\n');
      return void res.end();
    case 'errorFrame':
      res.write(`data: ${JSON.stringify({ error: { code: r.code, message: r.message, status: r.status } })}\r\n\r\n`);
      return void res.end();
    case 'hang':
      return; // the socket stays open until the client aborts or the server closes
  }
}

/** generateContent's single response: parts concatenated (none: no `parts`), the last finishReason and usage. */
function mergeChunks(chunks: WireChunk[]): WireChunk {
  const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
  const finishReason = chunks
    .map((c) => c.candidates?.[0]?.finishReason)
    .filter(Boolean)
    .at(-1);
  const usageMetadata = chunks
    .map((c) => c.usageMetadata)
    .filter(Boolean)
    .at(-1);
  return {
    candidates: [
      {
        content: { role: 'model', ...(parts.length ? { parts } : {}) },
        index: 0,
        ...(finishReason ? { finishReason } : {}),
      },
    ],
    ...(usageMetadata ? { usageMetadata } : {}),
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(JSON.stringify(body));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
