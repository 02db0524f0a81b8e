/**
 * The write pacer: GitHub's guidance (80 content-creating requests a minute, 500 an hour) as two
 * sliding windows, on a clock the test steps. Nothing here sleeps.
 */
import { describe, expect, it } from 'vitest';
import { createWritePacer, waitForSlotMs } from '../../../src/action/triage/write-pacer.js';
import { createSteppedClock } from '../../support/triage-fixtures.js';

describe('waitForSlotMs', () => {
  const budget = { perMinute: 3, perHour: 5 };
  it.each([
    ['no earlier write', [], 1_000, 0],
    ['two in the minute, room for a third', [0, 500], 1_000, 0],
    ['three in the minute: until the oldest is a minute old', [0, 500, 900], 1_000, 59_000],
    ['the oldest just left the minute', [0, 500, 900], 60_000, 0],
    ['one millisecond before it leaves', [0, 500, 900], 59_999, 1],
    [
      'five in the hour, none in the minute: until the oldest is an hour old',
      [0, 100_000, 200_000, 300_000, 400_000],
      1_000_000,
      2_600_000,
    ],
    ['only the hour full', [0, 3_000_000, 3_500_000, 3_580_000, 3_590_000], 3_595_000, 5_000],
    ['both windows full: the longer wait', [0, 3_000_000, 3_560_000, 3_580_000, 3_590_000], 3_595_000, 25_000],
  ])('%s', (_name, times, now, wait) => {
    expect(waitForSlotMs(times, now, budget)).toBe(wait);
  });
});

describe('createWritePacer', () => {
  it('grants writes in call order, sleeping on the injected clock only when a window is full', async () => {
    const clock = createSteppedClock(0);
    const pacer = createWritePacer({ perMinute: 2, perHour: 3 }, clock);
    const granted: number[] = [];
    await Promise.all([1, 2, 3, 4].map((n) => pacer.take().then(() => granted.push(n))));
    expect(granted).toEqual([1, 2, 3, 4]);
    // 1 and 2 at 0; 3 when the minute frees (60 s); 4 is the hour's 4th: an hour after the first.
    expect(clock.sleeps).toEqual([60_000, 3_540_000]);
    expect(pacer.stats()).toEqual({ writes: 4, waitedMs: 3_600_000 });
  });

  it('a budget of 80 a minute lets 80 through at once and holds the 81st for a minute', async () => {
    const clock = createSteppedClock(0);
    const pacer = createWritePacer({ perMinute: 80, perHour: 500 }, clock);
    for (let i = 0; i < 80; i++) await pacer.take();
    expect(clock.sleeps).toEqual([]);
    await pacer.take();
    expect(clock.sleeps).toEqual([60_000]);
  });
});
