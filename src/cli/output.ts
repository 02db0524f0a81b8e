/**
 * The CLI's three output formats, as subscribers of the loop's events. They are Gemini CLI's
 * headless formats (`-o text | json | stream-json`, checked against Gemini CLI itself in
 * test/e2e/cli-parity.test.ts), so programs that parse `gemini -p` parse ours. Where ours differ
 * on purpose, README's CLI section says so.
 */
import { stripVTControlCharacters } from 'node:util';
import { EXIT_CODES, type AgentError, type ErrorKind } from '../common/errors.js';
import type { LimitKind, LoopEvent, Outcome, RunStats } from '../core/events.js';
import { roundUsd } from '../model/pricing.js';
import type { ToolErrorCode } from '../tools/define-tool.js';
import type { OutputFormat } from './args.js';
import { streamStatsOf, type SessionMetrics } from './metrics.js';
import { isoTime } from '../common/time.js';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface OutputWriter {
  emit(e: LoopEvent): void;
  /** An error before or outside the loop (bad policy, no key). */
  fail(error: AgentError): void;
}

export interface OutputOptions {
  io: Io;
  metrics: SessionMetrics;
  /** Milliseconds; the run's duration when it fails before the loop reports one. */
  now?: () => number;
  /**
   * A resumed session's totals before this run: the figures printed are this run's, like the
   * token counts (which the metrics count per process).
   */
  before?: { costUsd: number; durationMs: number };
}

/** Gemini CLI's error type names (its Fatal*Error classes); ours where it has no counterpart. */
const ERROR_TYPES: Readonly<Record<ErrorKind, string>> = {
  general: 'Error',
  internal: 'Error',
  auth: 'FatalAuthenticationError',
  input: 'FatalInputError',
  config: 'FatalConfigError',
  limit: 'FatalTurnLimitedError',
  fatal_tool: 'FatalToolExecutionError',
  cancelled: 'FatalCancellationError',
};
const LIMIT_TYPES: Readonly<Record<LimitKind, string>> = {
  turns: 'FatalTurnLimitedError',
  time: 'FatalTimeLimitError',
  tokens: 'FatalTokenLimitError',
  cost: 'FatalCostLimitError',
  loop: 'FatalLoopDetectedError',
};
/** Our tool error codes as Gemini CLI's ToolErrorType values. */
const TOOL_ERROR_TYPES: Readonly<Record<ToolErrorCode, string>> = {
  invalid_args: 'invalid_tool_params',
  not_found: 'file_not_found',
  outside_workspace: 'path_not_in_workspace',
  denied: 'policy_violation',
  timeout: 'execution_failed',
  failed: 'execution_failed',
  fatal: 'execution_failed',
  cancelled: 'cancelled',
};
const OUTCOME_EXIT: Readonly<Record<Exclude<Outcome['status'], 'error'>, number>> = {
  success: 0,
  awaiting_approval: 0,
  limit: EXIT_CODES.limit,
  cancelled: EXIT_CODES.cancelled,
};

/** The process exit code for an outcome (Gemini CLI's table). */
export function exitCodeOf(o: Outcome): number {
  return o.status === 'error' ? o.error.exitCode : OUTCOME_EXIT[o.status];
}

/**
 * An error's whole text, each problem once: policy errors carry the first diagnostic in the
 * message and all of them in `details`.
 */
export function describeError(e: AgentError): string {
  return [e.message, ...e.details.filter((d) => !e.message.includes(d))].join('\n');
}

/** `error` of a result: Gemini CLI reports `{ type, message }`. */
function outcomeError(o: Outcome): { type: string; message: string; code: number } | undefined {
  switch (o.status) {
    case 'error':
      return { type: ERROR_TYPES[o.error.kind], message: describeError(o.error), code: o.error.exitCode };
    case 'limit':
      return { type: LIMIT_TYPES[o.which], message: o.message, code: exitCodeOf(o) };
    case 'cancelled':
      return { type: ERROR_TYPES.cancelled, message: 'the run was cancelled', code: exitCodeOf(o) };
    default:
      return undefined;
  }
}

const failureOf = (e: AgentError) => ({ type: ERROR_TYPES[e.kind], message: describeError(e), code: e.exitCode });

/** Model text reaches a terminal or a parser: strip escape sequences, as Gemini CLI does. */
const clean = (text: string) => stripVTControlCharacters(text);

export function createOutputWriter(format: OutputFormat, o: OutputOptions): OutputWriter {
  if (format === 'stream-json') return streamJsonWriter(o);
  if (format === 'json') return jsonWriter(o);
  return textWriter(o.io);
}

function streamJsonWriter({ io, metrics, now = Date.now, before }: OutputOptions): OutputWriter {
  const startedAt = now();
  // Gemini CLI's key order: type, timestamp, then the event's own fields.
  const line = (type: string, fields: Record<string, unknown>) =>
    io.stdout(`${JSON.stringify({ type, timestamp: isoTime(), ...fields })}\n`);
  const stats = (s: RunStats | undefined) => ({
    ...streamStatsOf(metrics.snapshot(), s ? s.durationMs - (before?.durationMs ?? 0) : now() - startedAt),
    cost_usd: roundUsd((s?.costUsd ?? 0) - (s ? (before?.costUsd ?? 0) : 0)),
  });
  return {
    fail: (error) => {
      const { code: _code, ...err } = failureOf(error);
      line('result', { status: 'error', error: err, stats: stats(undefined) });
    },
    emit(e) {
      metrics.observe(e);
      const common = commonFields(e);
      if (common) return line(common.type, common.fields);
      switch (e.type) {
        case 'init':
          return line('init', { session_id: e.sessionId, model: e.model });
        case 'subagent': {
          // Ours: a sub-agent's events, nested under the invoke_agent call that runs it.
          const inner = nestedFields(e.event);
          return inner ? line('subagent', { parent_tool_id: e.parentId, agent: e.agent, event: inner }) : undefined;
        }
        case 'retry':
          return line('error', {
            severity: 'warning',
            message: `retrying the model request (${e.reason}), attempt ${e.attempt}, in ${e.waitMs} ms`,
          });
        case 'approval_request':
          return line('approval_request', {
            session_id: e.sessionId,
            calls: e.calls.map((c) => ({ tool_id: c.id, tool_name: c.name, parameters: c.args, rule: c.rule })),
          });
        case 'result': {
          const error = outcomeError(e.outcome);
          const status = e.outcome.status === 'awaiting_approval' ? 'awaiting_approval' : error ? 'error' : 'success';
          const { code: _code, ...err } = error ?? { code: 0 };
          return line('result', { status, ...(error ? { error: err } : {}), stats: stats(e.stats) });
        }
        default:
          return undefined; // thought, tool_state, compressed: not part of Gemini CLI's vocabulary
      }
    },
  };
}

/** The stream-json fields of the events a sub-agent's stream shares with the main one. */
function commonFields(e: LoopEvent): { type: string; fields: Record<string, unknown> } | undefined {
  switch (e.type) {
    case 'message':
      return {
        type: 'message',
        fields: {
          role: e.role,
          content: e.role === 'assistant' ? clean(e.text) : e.text,
          ...(e.delta ? { delta: true } : {}),
        },
      };
    case 'tool_use':
      return { type: 'tool_use', fields: { tool_name: e.name, tool_id: e.id, parameters: e.args } };
    case 'tool_result':
      return {
        type: 'tool_result',
        fields: {
          tool_id: e.id,
          status: e.ok ? 'success' : 'error',
          output: e.output,
          ...(e.error ? { error: { type: TOOL_ERROR_TYPES[e.error.code], message: e.error.message } } : {}),
        },
      };
    case 'warning':
      return { type: 'error', fields: { severity: 'warning', message: e.message } };
    default:
      return undefined;
  }
}

/** A sub-agent's event inside a `subagent` line: its start, its messages and calls, its end with its own totals. */
function nestedFields(e: LoopEvent): Record<string, unknown> | undefined {
  const common = commonFields(e);
  if (common) return { type: common.type, ...common.fields };
  if (e.type === 'init') return { type: 'init', session_id: e.sessionId, model: e.model };
  if (e.type !== 'result') return undefined;
  const error = outcomeError(e.outcome);
  const { code: _code, ...err } = error ?? { code: 0 };
  const s = e.stats;
  return {
    type: 'result',
    status: e.outcome.status === 'awaiting_approval' ? 'awaiting_approval' : error ? 'error' : 'success',
    ...(error ? { error: err } : {}),
    stats: {
      total_tokens: s.totalTokens,
      input_tokens: s.inputTokens,
      output_tokens: s.outputTokens,
      duration_ms: s.durationMs,
      tool_calls: s.toolCalls,
      cost_usd: roundUsd(s.costUsd),
    },
  };
}

/**
 * One object at the end, Gemini CLI's keys in its order: session_id, response (the final turn's
 * text), stats (its SessionMetrics, plus cost_usd), error, warnings. Like Gemini CLI, no newline after.
 */
function jsonWriter({ io, metrics, before }: OutputOptions): OutputWriter {
  let sessionId: string | undefined;
  const warnings: string[] = [];
  const print = (o: Record<string, unknown>) => io.stdout(JSON.stringify(o, null, 2));
  return {
    fail: (error) => print({ ...(sessionId ? { session_id: sessionId } : {}), error: failureOf(error) }),
    emit(e) {
      metrics.observe(e);
      if (e.type === 'init') sessionId = e.sessionId;
      if (e.type === 'warning') warnings.push(e.message);
      if (e.type !== 'result') return;
      const o = e.outcome;
      const error = outcomeError(o);
      print({
        session_id: sessionId,
        ...(o.status === 'success' ? { response: clean(o.finalText) } : {}),
        stats: { ...metrics.snapshot(), cost_usd: roundUsd(e.stats.costUsd - (before?.costUsd ?? 0)) },
        ...(o.status === 'awaiting_approval' ? { pending: o.pending } : {}),
        ...(error ? { error } : {}),
        ...(warnings.length ? { warnings } : {}),
      });
    },
  };
}

/**
 * The model's text as it streams, each turn's text ending its line (Gemini CLI's TextOutput):
 * a newline is added at a turn boundary and at the end only when the text did not end with one.
 */
function textWriter(io: Io): OutputWriter {
  let atLineStart = true;
  const write = (text: string) => {
    if (!text) return;
    io.stdout(text);
    atLineStart = text.endsWith('\n');
  };
  const endLine = () => (atLineStart ? undefined : write('\n'));
  return {
    fail: (error) => io.stderr(`Error: ${describeError(error)}\n`),
    emit(e) {
      if (e.type === 'message' && e.role === 'assistant') write(clean(e.text));
      else if (e.type === 'tool_use') endLine();
      else if (e.type === 'warning') io.stderr(`Warning: ${clean(e.message)}\n`);
      else if (e.type === 'tool_result' && !e.ok) io.stderr(`[${e.name}] ${clean(e.error?.message ?? e.output)}\n`);
      else if (e.type === 'result') {
        endLine();
        const error = outcomeError(e.outcome);
        if (error) io.stderr(`Error: ${error.message}\n`);
      }
    },
  };
}
