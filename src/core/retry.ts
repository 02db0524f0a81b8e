import { isModelFailure, ModelFailure, type InvalidReply, type ModelFailureKind } from '../model/client.js';
import type { Emit } from './events.js';

export interface Clock {
  now(): number;
  /** Resolves after ms, or rejects when the signal aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /**
   * Calls `fire` after ms unless cancelled first (the run's deadline). Never keeps the process
   * alive on its own. Absent: a real timer.
   */
  setTimer?(ms: number, fire: () => void): () => void;
}

/** A real timer that does not hold the process open: what the deadline uses without a clock's own. */
export function realTimer(ms: number, fire: () => void): () => void {
  const t = setTimeout(fire, ms);
  t.unref();
  return () => clearTimeout(t);
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer: realTimer,
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * Retries per model call, by failure kind. Each kind spends only its own budget, so a burst of 429s
 * or resets never uses up the tries reserved for bad model output, and the reverse. Bad output
 * (a malformed function call, an empty reply) gets Gemini CLI's three retries.
 */
const RETRY_BUDGET: { readonly [K in ModelFailureKind]: number } = {
  rate_limited: 8,
  server: 4,
  network: 4,
  invalid_output: 3,
  bad_request: 0,
  auth: 0,
  safety: 0,
  aborted: 0,
};

/** A Retry-After longer than this is a quota that will not come back within a run: fail now. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * Exponential steps per kind. Jitter spreads out clients that failed together (a 429, an outage);
 * a bad reply is this run's alone, so it waits Gemini CLI's exact 1 s, 2 s, 4 s.
 */
const BACKOFF: { readonly [K in ModelFailureKind]?: { baseMs: number; maxMs: number; jitter: boolean } } = {
  rate_limited: { baseMs: 5_000, maxMs: 60_000, jitter: true },
  server: { baseMs: 1_000, maxMs: 30_000, jitter: true },
  network: { baseMs: 1_000, maxMs: 30_000, jitter: true },
  invalid_output: { baseMs: 1_000, maxMs: 4_000, jitter: false },
};

/**
 * What the retry of a reply that said nothing adds to the system instruction, so that the model
 * does not send the same nothing again (Gemini CLI nudges the same two cases). Other retries send
 * the request unchanged.
 */
const RETRY_NUDGE: { readonly [R in InvalidReply]?: string } = {
  no_response_text: 'Your previous reply was empty: no text and no tool call. Give your answer now, or call a tool.',
  thinking_only:
    'Your previous reply had thoughts but no answer and no tool call. Give your answer now, or call a tool.',
};

/** The system instruction for an attempt that follows `previous` (undefined: the first attempt). Pure. */
export function instructionAfter(systemInstruction: string, previous: ModelFailure | undefined): string {
  const nudge = previous?.invalid && RETRY_NUDGE[previous.invalid];
  return nudge ? `${systemInstruction}\n\n${nudge}` : systemInstruction;
}

/**
 * How long to wait before retry number `attempt` (1-based) of this kind. Retry-After is honoured as
 * given; otherwise exponential backoff, with jitter in [50%, 100%] of the step where the kind has
 * it. Pure given `random`.
 */
export function retryDelayMs(failure: ModelFailure, attempt: number, random: () => number): number {
  if (failure.kind === 'rate_limited' && failure.retryAfterMs !== undefined) return failure.retryAfterMs;
  const b = BACKOFF[failure.kind] ?? { baseMs: 1_000, maxMs: 30_000, jitter: true };
  const step = Math.min(b.maxMs, b.baseMs * 2 ** (attempt - 1));
  return b.jitter ? Math.round(step * (0.5 + 0.5 * random())) : step;
}

export interface RetryDeps {
  clock: Clock;
  random: () => number;
  signal: AbortSignal;
  emit: Emit;
  /** Ms left before the wall-clock limit, or undefined for none. */
  remainingMs: () => number | undefined;
}

export type RetryResult<T> =
  { ok: true; value: T } | { ok: false; failure: ModelFailure } | { ok: false; timeLimit: true; failure: ModelFailure };

/**
 * Call `attempt` until it succeeds, a failure is not retryable, its kind's budget is spent, or the
 * wait would cross the wall-clock limit. `attempt` gets a fresh progress record each time, and the
 * failure that the attempt retries (for `instructionAfter`).
 *
 * Replay rule: if an attempt had already shown assistant text when it failed, the retry is not
 * silent: a warning says the partial text is discarded and the turn is asked again. The partial
 * turn never enters history (a turn is added only once it completed), so the retried request is
 * the same request, a nudge after an empty reply aside.
 */
export async function withRetry<T>(
  attempt: (progress: { visible: boolean }, previous: ModelFailure | undefined) => Promise<T>,
  deps: RetryDeps,
): Promise<RetryResult<T>> {
  const spent: Partial<Record<ModelFailureKind, number>> = {};
  let total = 0;
  let previous: ModelFailure | undefined;
  for (;;) {
    const progress = { visible: false };
    try {
      return { ok: true, value: await attempt(progress, previous) };
    } catch (e) {
      // Only model failures are retried; anything else is a bug and leaves as it came.
      if (!isModelFailure(e)) throw e;
      const failure = e;
      previous = failure;
      if (deps.signal.aborted)
        return { ok: false, failure: new ModelFailure('aborted', 'the run was cancelled', { cause: e }) };
      const used = (spent[failure.kind] ?? 0) + 1;
      if (used > RETRY_BUDGET[failure.kind]) return { ok: false, failure };
      const waitMs = retryDelayMs(failure, used, deps.random);
      if (waitMs > MAX_RETRY_AFTER_MS) return { ok: false, failure };
      const remaining = deps.remainingMs();
      if (remaining !== undefined && waitMs >= remaining) return { ok: false, timeLimit: true, failure };
      spent[failure.kind] = used;
      total++;
      if (progress.visible) {
        deps.emit({
          type: 'warning',
          message: `the model's reply was interrupted after text was shown (${failure.message}); that partial reply is discarded and the turn is asked again`,
        });
      }
      deps.emit({ type: 'retry', attempt: total, reason: failure.kind, waitMs });
      try {
        await deps.clock.sleep(waitMs, deps.signal);
      } catch {
        return { ok: false, failure: new ModelFailure('aborted', 'the run was cancelled while waiting to retry') };
      }
    }
  }
}
