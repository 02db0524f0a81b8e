/**
 * Gemini CLI's session metrics, kept the way Gemini CLI keeps them: per model request (a decorator
 * around the model client times each call and reads its usage) and per tool call (from the loop's
 * events). The `json` output prints them whole as `stats`; `stream-json` prints the token digest.
 * The CLI keeps its own count rather than reading RunStats because Gemini CLI's figures are per
 * request and per call (latency, errors by type, durations, decisions), which the loop does not track.
 */
import type { LoopEvent } from '../core/events.js';
import { isModelFailure, type ModelClient, type ModelRequest } from '../model/client.js';
import type { Usage } from '../model/wire.js';

/** Gemini CLI's `tokens` block. */
interface TokenMetrics {
  /** Prompt tokens not served from the cache. */
  input: number;
  prompt: number;
  candidates: number;
  total: number;
  cached: number;
  thoughts: number;
  /** Tool-use prompt tokens. The agent declares no server-side tools, so the API reports none. */
  tool: number;
}

interface RoleMetrics {
  totalRequests: number;
  totalErrors: number;
  totalLatencyMs: number;
  tokens: TokenMetrics;
}

interface ModelMetrics {
  api: { totalRequests: number; totalErrors: number; totalLatencyMs: number; errorsByType: Record<string, number> };
  tokens: TokenMetrics;
  roles: Record<string, RoleMetrics>;
}

type Decisions = { accept: number; reject: number; modify: number; auto_accept: number };

interface ToolMetrics {
  totalCalls: number;
  totalSuccess: number;
  totalFail: number;
  totalDurationMs: number;
  totalDecisions: Decisions;
  byName: Record<string, { count: number; success: number; fail: number; durationMs: number; decisions: Decisions }>;
}

/** Gemini CLI's `SessionMetrics` as its `-o json` prints it, without `files` (see README). */
export interface SessionMetricsJson {
  models: Record<string, ModelMetrics>;
  tools: ToolMetrics;
}

/** One finished model request. */
interface ApiCall {
  model: string;
  /** Gemini CLI's LLM role: `main` for the agent's turns, `utility_compressor` for compression. */
  role: string;
  latencyMs: number;
  usage?: Usage;
  /** The failure kind when the request failed (rate_limited, server, auth, ...). */
  error?: string;
}

export interface SessionMetrics {
  /** The client, timed: every request lands in `recordApiCall`. */
  wrap(client: ModelClient): ModelClient;
  recordApiCall(call: ApiCall): void;
  /** Tool calls: durations from `executing` to the result, decisions from the scheduler's states. */
  observe(e: LoopEvent): void;
  snapshot(): SessionMetricsJson;
}

const emptyTokens = (): TokenMetrics => ({
  input: 0,
  prompt: 0,
  candidates: 0,
  total: 0,
  cached: 0,
  thoughts: 0,
  tool: 0,
});
const emptyDecisions = (): Decisions => ({ accept: 0, reject: 0, modify: 0, auto_accept: 0 });

function addTokens(t: TokenMetrics, u: Usage): void {
  t.prompt += u.inputTokens;
  t.candidates += u.outputTokens;
  t.total += u.totalTokens;
  t.cached += u.cachedTokens;
  t.thoughts += u.thoughtTokens;
  t.input = Math.max(0, t.prompt - t.cached);
}

export function createSessionMetrics(now: () => number = () => performance.now()): SessionMetrics {
  const models: Record<string, ModelMetrics> = {};
  const tools: ToolMetrics = {
    totalCalls: 0,
    totalSuccess: 0,
    totalFail: 0,
    totalDurationMs: 0,
    totalDecisions: emptyDecisions(),
    byName: {},
  };
  /** Per call id: when it started executing, and the decision policy (or a person) took. */
  const calls = new Map<string, { startedAt?: number; decision?: keyof Decisions }>();

  function recordApiCall(c: ApiCall): void {
    const m = (models[c.model] ??= {
      api: { totalRequests: 0, totalErrors: 0, totalLatencyMs: 0, errorsByType: {} },
      tokens: emptyTokens(),
      roles: {},
    });
    const r = (m.roles[c.role] ??= { totalRequests: 0, totalErrors: 0, totalLatencyMs: 0, tokens: emptyTokens() });
    m.api.totalRequests++;
    r.totalRequests++;
    m.api.totalLatencyMs += c.latencyMs;
    r.totalLatencyMs += c.latencyMs;
    if (c.error) {
      m.api.totalErrors++;
      r.totalErrors++;
      m.api.errorsByType[c.error] = (m.api.errorsByType[c.error] ?? 0) + 1;
    }
    if (c.usage) {
      addTokens(m.tokens, c.usage);
      addTokens(r.tokens, c.usage);
    }
  }

  function wrap(client: ModelClient): ModelClient {
    return {
      async *stream(req: ModelRequest) {
        const started = now();
        // A request says what it is for; compression is the one that declares no tools (core/compress.ts).
        const role = req.role ?? (req.tools.length === 0 ? 'utility_compressor' : 'main');
        let usage: Usage | undefined;
        let error: string | undefined = 'aborted';
        try {
          for await (const chunk of client.stream(req)) {
            if (chunk.usage) usage = chunk.usage;
            yield chunk;
          }
          error = undefined;
        } catch (e) {
          error = isModelFailure(e) ? e.kind : 'unknown';
          throw e;
        } finally {
          recordApiCall({
            model: req.model,
            role,
            latencyMs: Math.round(now() - started),
            ...(usage ? { usage } : {}),
            ...(error ? { error } : {}),
          });
        }
      },
    };
  }

  function observe(e: LoopEvent): void {
    if (e.type === 'tool_state') {
      const c = calls.get(e.id) ?? {};
      if (e.status === 'scheduled') c.decision = 'accept';
      if (e.status === 'denied' || e.status === 'cancelled') c.decision ??= 'reject';
      if (e.status === 'executing') c.startedAt = now();
      calls.set(e.id, c);
    } else if (e.type === 'tool_result') {
      const c = calls.get(e.id) ?? {};
      calls.delete(e.id);
      const durationMs = c.startedAt === undefined ? 0 : Math.round(now() - c.startedAt);
      const t = (tools.byName[e.name] ??= {
        count: 0,
        success: 0,
        fail: 0,
        durationMs: 0,
        decisions: emptyDecisions(),
      });
      tools.totalCalls++;
      t.count++;
      tools.totalDurationMs += durationMs;
      t.durationMs += durationMs;
      if (e.ok) {
        tools.totalSuccess++;
        t.success++;
      } else {
        tools.totalFail++;
        t.fail++;
      }
      if (c.decision) {
        tools.totalDecisions[c.decision]++;
        t.decisions[c.decision]++;
      }
    }
  }

  return { wrap, recordApiCall, observe, snapshot: () => structuredClone({ models, tools }) };
}

/** Gemini CLI's `stream-json` result stats: the token digest per model and in total. */
export function streamStatsOf(m: SessionMetricsJson, durationMs: number) {
  const perModel: Record<
    string,
    { total_tokens: number; input_tokens: number; output_tokens: number; cached: number; input: number }
  > = {};
  const sum = { total_tokens: 0, input_tokens: 0, output_tokens: 0, cached: 0, input: 0 };
  for (const [name, { tokens: t }] of Object.entries(m.models)) {
    const row = {
      total_tokens: t.total,
      input_tokens: t.prompt,
      output_tokens: t.candidates,
      cached: t.cached,
      input: t.input,
    };
    perModel[name] = row;
    for (const k of Object.keys(sum) as Array<keyof typeof sum>) sum[k] += row[k];
  }
  return { ...sum, duration_ms: durationMs, tool_calls: m.tools.totalCalls, models: perModel };
}
