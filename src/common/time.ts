/**
 * ISO 8601 time stamps in UTC (`2026-12-07T14:08:40.123Z`), the same text as `Date#toISOString`,
 * built from the UTC fields.
 *
 * Why not `toISOString`: on Node 24, the first call of any of Date's string methods, the UTC ones
 * included, makes V8 load ICU's time zone and locale data, which stays resident for the rest of the
 * process. The UTC getters do not. Every CLI run stamps its session and its stream-json events, so
 * this is on the path of every run (bench/results.md: peak memory). ESLint refuses `toISOString`
 * and `toUTCString` in src/.
 */
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `at` as ISO 8601 UTC; now when omitted. Throws a RangeError for an invalid date, as toISOString does. */
export function isoTime(at: Date | number = Date.now()): string {
  const d = typeof at === 'number' ? new Date(at) : at;
  if (Number.isNaN(d.getTime())) throw new RangeError('Invalid time value');
  const y = d.getUTCFullYear();
  // Years outside 0..9999 take a sign and six digits (ECMA-262's expanded years).
  const year = y >= 0 && y <= 9999 ? pad(y, 4) : `${y < 0 ? '-' : '+'}${pad(Math.abs(y), 6)}`;
  const date = `${year}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${date}T${time}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}
