/**
 * Timers a test fires itself, on an event (a command printed "started", wrote its pid), instead of
 * waiting for the wall clock: pass `start` where code takes a StartTimer (ToolEnv.shellTimer).
 */
import type { StartTimer } from '../../src/tools/process-group.js';

interface Pending {
  ms: number;
  fire: () => void;
}

export interface ManualTimer {
  start: StartTimer;
  /** The delays of the timers started and neither fired nor cancelled, in start order. */
  pending(): number[];
  /** Resolves once a timer of `ms` is pending (at once if one is). */
  until(ms: number): Promise<void>;
  /** Fires the pending timers of `ms` now; throws when there is none (the code never started it). */
  fire(ms: number): void;
}

export function createManualTimer(): ManualTimer {
  const pending: Pending[] = [];
  const waiters: Array<{ ms: number; resolve: () => void }> = [];
  const wake = () => {
    for (const w of waiters.filter((x) => pending.some((p) => p.ms === x.ms))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  return {
    start(ms, fire) {
      const p = { ms, fire };
      pending.push(p);
      wake();
      return () => {
        const i = pending.indexOf(p);
        if (i >= 0) pending.splice(i, 1);
      };
    },
    pending: () => pending.map((p) => p.ms),
    until: (ms) =>
      new Promise<void>((resolve) => {
        waiters.push({ ms, resolve });
        wake();
      }),
    fire(ms) {
      const due = pending.filter((p) => p.ms === ms);
      if (due.length === 0)
        throw new Error(`no pending timer of ${ms} ms (pending: ${pending.map((p) => p.ms).join(', ') || 'none'})`);
      for (const p of due) {
        pending.splice(pending.indexOf(p), 1);
        p.fire();
      }
    },
  };
}
