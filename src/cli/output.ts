/**
 * The CLI's three output formats, as subscribers of the loop's events. The vocabulary is Gemini
 * CLI's headless one (`-o json`, `-o stream-json`), so programs that parse `gemini -p` parse ours.
 */
import type { AgentError } from '../common/errors.js';
import type { LoopEvent, Outcome, RunStats } from '../core/events.js';
import type { OutputFormat } from './args.js';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface OutputWriter {
  emit(e: LoopEvent): void;
  /** The user's prompt, echoed as the first message in stream-json. */
  prompt(text: string): void;
  /** An error before or outside the loop (bad policy, no key). */
  fail(error: AgentError): void;
}

const now = () => new Date().toISOString();

export function statsJson(s: RunStats) {
  return {
    total_tokens: s.totalTokens,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    cached: s.cachedTokens,
    input: Math.max(0, s.inputTokens - s.cachedTokens),
    duration_ms: s.durationMs,
    tool_calls: s.toolCalls,
    models: Object.fromEntries(
      Object.entries(s.models).map(([m, t]) => [m, { total_tokens: t.totalTokens, input_tokens: t.inputTokens, output_tokens: t.outputTokens, requests: t.requests }]),
    ),
    cost_usd: s.costUsd,
  };
}

/** `error` of a result: Gemini CLI reports `{ type, message }`. */
export function outcomeError(o: Outcome): { type: string; message: string } | undefined {
  switch (o.status) {
    case 'error':
      return { type: o.error.kind, message: o.error.message };
    case 'limit':
      return { type: `limit_${o.which}`, message: o.message };
    case 'cancelled':
      return { type: 'cancelled', message: 'the run was cancelled' };
    default:
      return undefined;
  }
}

const resultStatus = (o: Outcome) => (o.status === 'success' ? 'success' : o.status === 'awaiting_approval' ? 'awaiting_approval' : 'error');

export function createOutputWriter(format: OutputFormat, io: Io): OutputWriter {
  if (format === 'stream-json') return streamJsonWriter(io);
  if (format === 'json') return jsonWriter(io);
  return textWriter(io);
}

function streamJsonWriter(io: Io): OutputWriter {
  const line = (o: Record<string, unknown>) => io.stdout(`${JSON.stringify({ ...o, timestamp: now() })}\n`);
  return {
    prompt: (text) => line({ type: 'message', role: 'user', content: text }),
    fail: (error) => line({ type: 'result', status: 'error', error: { type: error.kind, message: error.message } }),
    emit(e) {
      switch (e.type) {
        case 'init':
          return line({ type: 'init', session_id: e.sessionId, model: e.model });
        case 'message':
          return line({ type: 'message', role: e.role, content: e.text, ...(e.delta ? { delta: true } : {}) });
        case 'tool_use':
          return line({ type: 'tool_use', tool_name: e.name, tool_id: e.id, parameters: e.args });
        case 'tool_result':
          return line({
            type: 'tool_result',
            tool_id: e.id,
            status: e.ok ? 'success' : 'error',
            output: e.output,
            ...(e.error ? { error: { type: e.error.code, message: e.error.message } } : {}),
          });
        case 'warning':
          return line({ type: 'error', severity: 'warning', message: e.message });
        case 'retry':
          return line({ type: 'error', severity: 'warning', message: `retrying the model request (${e.reason}), attempt ${e.attempt}, in ${e.waitMs} ms` });
        case 'approval_request':
          return line({
            type: 'approval_request',
            session_id: e.sessionId,
            calls: e.calls.map((c) => ({ tool_id: c.id, tool_name: c.name, parameters: c.args, rule: c.rule })),
          });
        case 'result': {
          const error = outcomeError(e.outcome);
          return line({ type: 'result', status: resultStatus(e.outcome), ...(error ? { error } : {}), stats: statsJson(e.stats) });
        }
        default:
          return undefined; // thought, tool_state, compressed: not part of Gemini CLI's vocabulary
      }
    },
  };
}

function jsonWriter(io: Io): OutputWriter {
  let response = '';
  const tools = { totalCalls: 0, totalSuccess: 0, totalFail: 0, byName: {} as Record<string, { count: number; success: number; fail: number }> };
  const names = new Map<string, string>();
  let sessionId: string | undefined;
  return {
    prompt: () => undefined,
    fail: (error) => io.stdout(`${JSON.stringify({ error: { type: error.kind, message: error.message, code: error.exitCode } }, null, 2)}\n`),
    emit(e) {
      if (e.type === 'init') sessionId = e.sessionId;
      if (e.type === 'message' && e.role === 'assistant') response += e.text;
      if (e.type === 'tool_use') names.set(e.id, e.name);
      if (e.type === 'tool_result') {
        const name = names.get(e.id) ?? e.name;
        const t = (tools.byName[name] ??= { count: 0, success: 0, fail: 0 });
        t.count++;
        tools.totalCalls++;
        if (e.ok) (t.success++, tools.totalSuccess++);
        else (t.fail++, tools.totalFail++);
      }
      if (e.type === 'result') {
        const s = e.stats;
        const error = outcomeError(e.outcome);
        const { models: _perModel, ...flat } = statsJson(s);
        const out = {
          session_id: sessionId,
          response,
          status: resultStatus(e.outcome),
          stats: {
            models: Object.fromEntries(
              Object.entries(s.models).map(([m, t]) => [m, { api: { totalRequests: t.requests }, tokens: { prompt: t.inputTokens, candidates: t.outputTokens, total: t.totalTokens } }]),
            ),
            tools,
            ...flat,
          },
          ...(e.outcome.status === 'awaiting_approval' ? { pending: e.outcome.pending } : {}),
          ...(error ? { error } : {}),
        };
        io.stdout(`${JSON.stringify(out, null, 2)}\n`);
      }
    },
  };
}

function textWriter(io: Io): OutputWriter {
  let endsWithNewline = true;
  return {
    prompt: () => undefined,
    fail: (error) => io.stderr(`Error: ${error.message}\n${error.details.map((d) => `  ${d}\n`).join('')}`),
    emit(e) {
      if (e.type === 'message' && e.role === 'assistant') {
        io.stdout(e.text);
        if (e.text) endsWithNewline = e.text.endsWith('\n');
      } else if (e.type === 'warning') {
        io.stderr(`Warning: ${e.message}\n`);
      } else if (e.type === 'tool_result' && !e.ok) {
        io.stderr(`[${e.name}] ${e.error?.message ?? e.output}\n`);
      } else if (e.type === 'result') {
        if (!endsWithNewline) io.stdout('\n');
        const error = outcomeError(e.outcome);
        if (error) io.stderr(`Error: ${error.message}\n`);
      }
    },
  };
}
