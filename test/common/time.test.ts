import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/common/time.js';

// isoTime is Date#toISOString without Date's string methods: the reference here is toISOString itself.
describe('isoTime', () => {
  it('gives the same text as toISOString across the whole range of dates', () => {
    const edges = [
      0, -1, 1, 999, 1000, -62198755200000, -62198755200001, 253402300799999, 253402300800000, 8.64e15, -8.64e15,
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const samples = Array.from({ length: 5000 }, () => Math.round((random() * 2 - 1) * 8.64e15));
    const years = Array.from({ length: 400 }, (_, i) => Date.UTC(1800 + i, 1, 28, 23, 59, 59, 999) + 1);
    for (const ms of [...edges, ...samples, ...years]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('takes a Date, and is now when given nothing', () => {
    const d = new Date(Date.UTC(2026, 11, 7, 14, 8, 40, 5));
    expect(isoTime(d)).toBe('2026-12-07T14:08:40.005Z');
    const before = Date.now();
    const now = Date.parse(isoTime());
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('refuses an invalid date as toISOString does', () => {
    expect(() => isoTime(new Date('not a date'))).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
