/**
 * Pacing of content-creating requests (labels, comments). GitHub asks integrations to stay under
 * about 80 such requests a minute and 500 an hour, across everything the token does; the plan
 * gives each shard its share (`writes-per-minute`, `writes-per-hour`), and the shard takes a slot
 * before each write. Sliding windows over the times of earlier writes; the clock is injected, so
 * tests step time instead of sleeping. Octokit's throttling plugin still handles the limits
 * GitHub reports (403/429 with retry-after) underneath.
 */
import type { Clock } from '../../core/loop.js';

export interface WriteBudget {
  perMinute: number;
  perHour: number;
}

export interface WritePacer {
  /** Waits until a write fits both windows, then counts it. Writes are granted one at a time, in call order. */
  take(): Promise<void>;
  /** Writes granted, and the total time spent waiting for a slot. */
  stats(): { writes: number; waitedMs: number };
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Pure: how long a write at `now` must wait, given the times of earlier writes (oldest first). */
export function waitForSlotMs(times: readonly number[], now: number, budget: WriteBudget): number {
  const inMinute = times.filter((t) => t > now - MINUTE);
  const inHour = times.filter((t) => t > now - HOUR);
  let wait = 0;
  // The write that must leave the window first: the (count - budget)-th oldest inside it.
  if (inMinute.length >= budget.perMinute)
    wait = Math.max(wait, inMinute[inMinute.length - budget.perMinute] + MINUTE - now);
  if (inHour.length >= budget.perHour) wait = Math.max(wait, inHour[inHour.length - budget.perHour] + HOUR - now);
  return wait;
}

export function createWritePacer(
  budget: WriteBudget,
  clock: Clock,
  signal: AbortSignal = new AbortController().signal,
): WritePacer {
  const times: number[] = [];
  let waitedMs = 0;
  let writes = 0;
  let chain: Promise<void> = Promise.resolve();
  const grant = async () => {
    for (;;) {
      const now = clock.now();
      while (times.length > 0 && times[0] <= now - HOUR) times.shift();
      const wait = waitForSlotMs(times, now, budget);
      if (wait <= 0) {
        times.push(now);
        writes++;
        return;
      }
      waitedMs += wait;
      await clock.sleep(wait, signal);
    }
  };
  return {
    take() {
      const turn = chain.then(grant);
      chain = turn.catch(() => undefined);
      return turn;
    },
    stats: () => ({ writes, waitedMs }),
  };
}
