import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LoopEvent } from '../../src/core/events.js';
import { instructionAfter, realClock, retryDelayMs, withRetry, type RetryDeps } from '../../src/core/retry.js';
import { ModelFailure, type InvalidReply, type ModelFailureKind } from '../../src/model/client.js';
import { fakeClock } from './helpers.js';

// Every expected number here is a literal from the retry policy: rate limits 8 retries, server
// errors 4, network errors 4, unusable output 3 (Gemini CLI's, waiting 1 s, 2 s, 4 s), the rest none.

const fail = (kind: ModelFailureKind, opts: { retryAfterMs?: number } = {}) =>
  new ModelFailure(kind, `${kind} failure`, opts);

/** An attempt function that throws the given failures in order, then returns 'done'. */
function script(failures: ModelFailure[], onAttempt?: (progress: { visible: boolean }, n: number) => void) {
  let n = 0;
  const attempt = async (progress: { visible: boolean }) => {
    onAttempt?.(progress, n);
    const f = failures[n++];
    if (f) throw f;
    return 'done';
  };
  return { attempt, attempts: () => n };
}

function deps(over: Partial<RetryDeps> = {}) {
  const events: LoopEvent[] = [];
  const clock = fakeClock();
  const d: RetryDeps & { clock: typeof clock } = {
    clock,
    random: () => 0.5,
    signal: new AbortController().signal,
    emit: (e) => void events.push(e),
    remainingMs: () => undefined,
    ...over,
  } as RetryDeps & { clock: typeof clock };
  return { deps: d, events, clock };
}

const repeat = (n: number, kind: ModelFailureKind, opts?: { retryAfterMs?: number }) =>
  Array.from({ length: n }, () => fail(kind, opts));

describe('withRetry: each kind spends its own budget, up to its limit and no further', () => {
  it.each([
    ['rate_limited', 8],
    ['server', 4],
    ['network', 4],
    ['invalid_output', 3],
  ] as const)('%s: retry number %i happens and the call succeeds', async (kind, limit) => {
    const s = script(repeat(limit, kind));
    const { deps: d, events } = deps();
    await expect(withRetry(s.attempt, d)).resolves.toEqual({ ok: true, value: 'done' });
    expect(s.attempts()).toBe(limit + 1);
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(limit);
  });

  it.each([
    ['rate_limited', 8],
    ['server', 4],
    ['network', 4],
    ['invalid_output', 3],
  ] as const)(
    '%s: one failure more than %i retries gives up with that failure, without sleeping again',
    async (kind, limit) => {
      const failures = repeat(limit + 1, kind);
      const s = script(failures);
      const { deps: d, clock } = deps();
      const r = await withRetry(s.attempt, d);
      expect(r).toEqual({ ok: false, failure: failures[limit] });
      expect(s.attempts()).toBe(limit + 1);
      expect(clock.sleeps).toHaveLength(limit);
    },
  );

  it.each(['bad_request', 'auth', 'safety', 'aborted'] as const)('%s is never retried', async (kind) => {
    const failures = [fail(kind)];
    const s = script(failures);
    const { deps: d, events, clock } = deps();
    await expect(withRetry(s.attempt, d)).resolves.toEqual({ ok: false, failure: failures[0] });
    expect(s.attempts()).toBe(1);
    expect(events).toEqual([]);
    expect(clock.sleeps).toEqual([]);
  });

  it('budgets are separate: 8 rate limits, 4 server, 4 network and 2 unusable replies, interleaved, still succeed', async () => {
    const failures = [
      ...repeat(2, 'invalid_output'),
      ...repeat(4, 'rate_limited', { retryAfterMs: 1 }),
      ...repeat(4, 'server'),
      ...repeat(4, 'rate_limited', { retryAfterMs: 1 }),
      ...repeat(4, 'network'),
    ];
    const s = script(failures);
    const { deps: d, events } = deps();
    await expect(withRetry(s.attempt, d)).resolves.toEqual({ ok: true, value: 'done' });
    const retries = events.filter((e): e is Extract<LoopEvent, { type: 'retry' }> => e.type === 'retry');
    // `attempt` counts every retry of this call, across kinds.
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
    expect(retries.map((r) => r.reason)).toEqual(failures.map((f) => f.kind));
  });

  it('a kind that has spent its budget fails even after other kinds came in between', async () => {
    const failures = [
      fail('invalid_output'),
      fail('server'),
      fail('invalid_output'),
      fail('network'),
      fail('invalid_output'),
      fail('invalid_output'),
    ];
    const s = script(failures);
    const { deps: d } = deps();
    await expect(withRetry(s.attempt, d)).resolves.toEqual({ ok: false, failure: failures[5] });
    expect(s.attempts()).toBe(6);
  });

  it('emits one retry event per retry, with the kind and the wait, before sleeping', async () => {
    const s = script([fail('server'), fail('rate_limited', { retryAfterMs: 7_000 })]);
    const { deps: d, events, clock } = deps({ random: () => 0 });
    const order: string[] = [];
    d.emit = (e) => {
      events.push(e);
      order.push(`emit ${e.type}`);
    };
    const sleep = clock.sleep;
    clock.sleep = (ms, signal) => {
      order.push(`sleep ${ms}`);
      return sleep(ms, signal);
    };
    await withRetry(s.attempt, d);
    expect(events).toEqual([
      { type: 'retry', attempt: 1, reason: 'server', waitMs: 500 },
      { type: 'retry', attempt: 2, reason: 'rate_limited', waitMs: 7_000 },
    ]);
    expect(order).toEqual(['emit retry', 'sleep 500', 'emit retry', 'sleep 7000']);
  });
});

describe('withRetry: waits that cannot be afforded', () => {
  it('waits out a Retry-After of exactly 10 minutes, and refuses one a millisecond longer', async () => {
    const ok = script([fail('rate_limited', { retryAfterMs: 600_000 })]);
    const a = deps();
    await expect(withRetry(ok.attempt, a.deps)).resolves.toEqual({ ok: true, value: 'done' });
    expect(a.clock.sleeps).toEqual([600_000]);

    const quota = fail('rate_limited', { retryAfterMs: 600_001 });
    const tooLong = script([quota]);
    const b = deps();
    await expect(withRetry(tooLong.attempt, b.deps)).resolves.toEqual({ ok: false, failure: quota });
    expect(b.clock.sleeps).toEqual([]);
    expect(b.events).toEqual([]);
  });

  it('stops at the time limit when the wait would reach it, and waits when it ends a millisecond before', async () => {
    const crossing = fail('rate_limited', { retryAfterMs: 5_000 });
    const s1 = script([crossing]);
    const a = deps({ remainingMs: () => 5_000 });
    await expect(withRetry(s1.attempt, a.deps)).resolves.toEqual({ ok: false, timeLimit: true, failure: crossing });
    expect(a.clock.sleeps).toEqual([]);
    expect(a.events).toEqual([]);

    const s2 = script([fail('rate_limited', { retryAfterMs: 5_000 })]);
    const b = deps({ remainingMs: () => 5_001 });
    await expect(withRetry(s2.attempt, b.deps)).resolves.toEqual({ ok: true, value: 'done' });
    expect(b.clock.sleeps).toEqual([5_000]);
  });

  it('an exhausted budget is a plain failure, not a time limit, even with little time left', async () => {
    const last = fail('invalid_output');
    const s = script([fail('invalid_output'), fail('invalid_output'), fail('invalid_output'), last]);
    const { deps: d } = deps({ remainingMs: () => 1_000_000 });
    await expect(withRetry(s.attempt, d)).resolves.toEqual({ ok: false, failure: last });
  });
});

describe('withRetry: cancellation and foreign errors', () => {
  it('a failure after the run was cancelled ends as aborted, keeping the failure as its cause, without retrying', async () => {
    const ctrl = new AbortController();
    const original = fail('server');
    const s = script([original, fail('server')], (_p, n) => {
      if (n === 0) ctrl.abort();
    });
    const { deps: d, events } = deps({ signal: ctrl.signal });
    const r = await withRetry(s.attempt, d);
    expect(r.ok).toBe(false);
    const failure = (r as { failure: ModelFailure }).failure;
    expect([failure.kind, failure.message, failure.cause]).toEqual(['aborted', 'the run was cancelled', original]);
    expect(s.attempts()).toBe(1);
    expect(events).toEqual([]);
  });

  it('a cancel while waiting to retry ends as aborted', async () => {
    const ctrl = new AbortController();
    const s = script([fail('server')]);
    const { deps: d, clock } = deps({ signal: ctrl.signal });
    clock.sleep = async () => {
      ctrl.abort();
      throw new Error('aborted');
    };
    const r = await withRetry(s.attempt, d);
    expect(r.ok).toBe(false);
    const failure = (r as { failure: ModelFailure }).failure;
    expect([failure.kind, failure.message]).toEqual(['aborted', 'the run was cancelled while waiting to retry']);
    expect(s.attempts()).toBe(1);
  });

  it('rethrows anything that is not a ModelFailure, untouched and unretried', async () => {
    const bug = new TypeError('a bug in the turn');
    let n = 0;
    const { deps: d } = deps();
    await expect(
      withRetry(async () => {
        n++;
        throw bug;
      }, d),
    ).rejects.toBe(bug);
    expect(n).toBe(1);
  });
});

describe('withRetry: a retry after visible text says so', () => {
  it('warns that the shown partial reply is discarded, once per attempt that showed text, before its retry event', async () => {
    const s = script([fail('network'), fail('network'), fail('network')], (progress, n) => {
      expect(progress).toEqual({ visible: false }); // fresh record each attempt
      if (n === 0 || n === 2) progress.visible = true;
    });
    const { deps: d, events } = deps();
    await withRetry(s.attempt, d);
    expect(events.map((e) => e.type)).toEqual(['warning', 'retry', 'retry', 'warning', 'retry']);
    expect(events[0]).toEqual({
      type: 'warning',
      message:
        "the model's reply was interrupted after text was shown (network failure); that partial reply is discarded and the turn is asked again",
    });
  });

  it('retries silently when nothing was shown', async () => {
    const s = script([fail('server')]);
    const { deps: d, events } = deps();
    await withRetry(s.attempt, d);
    expect(events.map((e) => e.type)).toEqual(['retry']);
  });
});

describe('instructionAfter: a retry after an empty reply tells the model so', () => {
  const invalid = (why: InvalidReply) => new ModelFailure('invalid_output', why, { invalid: why });

  it.each<[string, ModelFailure | undefined, string]>([
    ['the first attempt', undefined, 'Be brief.'],
    [
      'an empty reply',
      invalid('no_response_text'),
      'Be brief.\n\nYour previous reply was empty: no text and no tool call. Give your answer now, or call a tool.',
    ],
    [
      'thoughts and no answer',
      invalid('thinking_only'),
      'Be brief.\n\nYour previous reply had thoughts but no answer and no tool call. Give your answer now, or call a tool.',
    ],
    ['a malformed function call', invalid('malformed_function_call'), 'Be brief.'],
    ['a server error', fail('server'), 'Be brief.'],
  ])('after %s', (_name, previous, expected) => {
    expect(instructionAfter('Be brief.', previous)).toBe(expected);
  });

  it('withRetry hands each attempt the failure it retries', async () => {
    const failures = [invalid('no_response_text'), fail('server')];
    const seen: Array<string | undefined> = [];
    let n = 0;
    const attempt = async (_p: { visible: boolean }, previous: ModelFailure | undefined) => {
      seen.push(previous?.message);
      const f = failures[n++];
      if (f) throw f;
      return 'done';
    };
    await expect(withRetry(attempt, deps().deps)).resolves.toEqual({ ok: true, value: 'done' });
    expect(seen).toEqual([undefined, 'no_response_text', 'server failure']);
  });
});

describe('retryDelayMs', () => {
  // random() = 0 gives the lower jitter bound (50% of the step), 1 the upper (100%).
  it.each([
    ['rate_limited', 1, 0, 2_500],
    ['rate_limited', 1, 1, 5_000],
    ['rate_limited', 2, 1, 10_000],
    ['rate_limited', 4, 1, 40_000],
    ['rate_limited', 5, 1, 60_000], // 80 s capped at 60 s
    ['rate_limited', 8, 0.5, 45_000],
    ['server', 1, 0, 500],
    ['server', 1, 1, 1_000],
    ['server', 3, 0.5, 3_000],
    ['server', 5, 1, 16_000],
    ['server', 6, 1, 30_000], // 32 s capped at 30 s
    ['network', 1, 1, 1_000],
    ['network', 6, 1, 30_000],
    ['invalid_output', 1, 0, 1_000], // no jitter: a bad reply is this run's alone
    ['invalid_output', 1, 1, 1_000],
    ['invalid_output', 2, 0.5, 2_000],
    ['invalid_output', 3, 0, 4_000],
    ['invalid_output', 4, 1, 4_000], // 8 s capped at 4 s
    ['bad_request', 1, 1, 1_000], // no table entry: the server's backoff
    ['bad_request', 7, 1, 30_000],
  ] as const)('%s retry %i with random %d waits %i ms', (kind, attempt, random, ms) => {
    expect(retryDelayMs(fail(kind), attempt, () => random)).toBe(ms);
  });

  it('rounds to whole milliseconds', () => {
    expect(retryDelayMs(fail('server'), 1, () => 0.3333)).toBe(667);
  });

  it("honours a rate limit's Retry-After exactly, jitter and cap aside", () => {
    expect(retryDelayMs(fail('rate_limited', { retryAfterMs: 7_000 }), 1, () => 0)).toBe(7_000);
    expect(retryDelayMs(fail('rate_limited', { retryAfterMs: 120_000 }), 8, () => 1)).toBe(120_000);
    expect(retryDelayMs(fail('rate_limited', { retryAfterMs: 0 }), 3, () => 1)).toBe(0);
  });

  it("uses backoff for a server error even when it carried a Retry-After: only a rate limit's wait is a quota to honour", () => {
    expect(retryDelayMs(fail('server', { retryAfterMs: 7_000 }), 1, () => 1)).toBe(1_000);
  });
});

describe('realClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Settles `p` into a readable box; a hang shows as `pending` instead of a stuck test. */
  function observe(p: Promise<void>) {
    const box: { state: 'pending' | 'resolved' | 'rejected'; reason?: unknown } = { state: 'pending' };
    p.then(
      () => void (box.state = 'resolved'),
      (e: unknown) => void Object.assign(box, { state: 'rejected', reason: e }),
    );
    return box;
  }

  it('sleeps the given time, then leaves no listener on the signal', async () => {
    vi.useFakeTimers();
    const signal = new AbortController().signal;
    const box = observe(realClock.sleep(5_000, signal));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(box.state).toBe('pending');
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(box.state).toBe('resolved');
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('rejects at once with the reason when the signal is already aborted', async () => {
    vi.useFakeTimers();
    const ctrl = new AbortController();
    const reason = new Error('stop');
    ctrl.abort(reason);
    const box = observe(realClock.sleep(5_000, ctrl.signal));
    await vi.advanceTimersByTimeAsync(0);
    expect(box).toEqual({ state: 'rejected', reason });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the reason on abort mid-sleep, clearing its timer and its listener', async () => {
    vi.useFakeTimers();
    const ctrl = new AbortController();
    const box = observe(realClock.sleep(5_000, ctrl.signal));
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error('cancelled');
    ctrl.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(box).toEqual({ state: 'rejected', reason });
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(ctrl.signal, 'abort')).toHaveLength(0);
  });

  it('tells the time from the system clock', () => {
    vi.useFakeTimers({ now: 1_234_567 });
    expect(realClock.now()).toBe(1_234_567);
  });
});
