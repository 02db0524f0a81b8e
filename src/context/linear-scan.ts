/**
 * Building blocks for scanning text written by strangers in time linear in its length. JavaScript's
 * regular expressions backtrack: a pattern like `!\[[^\]]*\]` tried at each of 30,000 `![` in a
 * 64 KB comment rescans the rest of the text each time (seconds of blocked event loop, on every run
 * on that thread). Here every "where is the next X" question is answered from a table built once,
 * right to left, so each question costs O(1) however often it is asked.
 *
 * A `WorkMeter` counts the characters the scanners examine; tests assert on it (work done), not
 * on the clock.
 */

export interface WorkMeter {
  steps: number;
}

export const createWorkMeter = (): WorkMeter => ({ steps: 0 });

/** JavaScript's `\s`: what the earlier regexes meant by whitespace. */
export function isSpace(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Line terminators: what `.` does not match. */
export const isLineEnd = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/** `[A-Za-z0-9_]`: the word characters of `\b`. */
export const isWordChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;

export const isAsciiLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** ASCII lower case of one UTF-16 unit (other units unchanged, so indexes never shift). */
const lowerAscii = (c: number): number => (c >= 0x41 && c <= 0x5a ? c + 32 : c);

/**
 * For every index i, the first index j >= i where `stop` holds (text.length when none): one pass
 * from the right, so any number of lookups cost O(n) in total. Built on first use.
 */
export interface NextTable {
  from(i: number): number;
}

export function createNextTable(text: string, stop: (c: number) => boolean, meter: WorkMeter): NextTable {
  let table: Int32Array | undefined;
  const build = () => {
    const t = new Int32Array(text.length + 1);
    t[text.length] = text.length;
    for (let i = text.length - 1; i >= 0; i--) t[i] = stop(text.charCodeAt(i)) ? i : t[i + 1];
    meter.steps += text.length;
    return t;
  };
  return {
    from(i) {
      table ??= build();
      // Stryker disable next-line EqualityOperator: table[text.length] is text.length, so `>` answers the same
      return i >= text.length ? text.length : table[i];
    },
  };
}

/**
 * For bracketed text with backslash escapes, `(?:[^\]\\]|\\.)*\]`: from index i, the index of the
 * closing `]`, or -1 when the text ends, or a backslash stands before a line end, first. A table
 * again: scanning from i and from any later token boundary meet, so the answers share a pass.
 */
export function createBracketCloseTable(text: string, meter: WorkMeter): NextTable {
  let table: Int32Array | undefined;
  const build = () => {
    const n = text.length;
    const t = new Int32Array(n + 2).fill(-1);
    for (let i = n - 1; i >= 0; i--) {
      const c = text.charCodeAt(i);
      if (c === 0x5d) t[i] = i;
      // A backslash last in the text reads NaN after it (no line end) and lands on t[n + 1], which is -1.
      else if (c === 0x5c) t[i] = isLineEnd(text.charCodeAt(i + 1)) ? -1 : t[i + 2];
      else t[i] = t[i + 1];
    }
    meter.steps += n;
    return t;
  };
  return {
    from(i) {
      table ??= build();
      // Stryker disable next-line EqualityOperator: table[text.length] is -1, so `>` answers the same
      return i >= text.length ? -1 : table[i];
    },
  };
}

/** Case-insensitive ASCII match of `word` at index i. */
export function matchesAt(text: string, i: number, word: string): boolean {
  // Stryker disable next-line ConditionalExpression,ArithmeticOperator: a fast path; past the end charCodeAt is NaN, which equals no character of the word
  if (i + word.length > text.length) return false;
  for (let k = 0; k < word.length; k++) if (lowerAscii(text.charCodeAt(i + k)) !== word.charCodeAt(k)) return false;
  return true;
}

/** Output assembled from pieces: no repeated slicing of the whole text (that is quadratic too). */
export class Pieces {
  private readonly parts: string[] = [];
  constructor(private readonly meter: WorkMeter) {}
  push(s: string): void {
    // Stryker disable next-line ConditionalExpression: pushing an empty piece changes neither the output nor the count
    if (s) {
      this.parts.push(s);
      this.meter.steps += s.length;
    }
  }
  toString(): string {
    return this.parts.join('');
  }
}
