/**
 * The building blocks of the linear-time scanners, one by one. The character classes are checked
 * against the regular expression classes they stand for (JavaScript's `\s`, `.`, `\w`, `[A-Za-z]`)
 * over every UTF-16 code unit, so each range boundary is covered; the tables against answers
 * worked out by hand.
 */
import { describe, expect, it } from 'vitest';
import {
  createBracketCloseTable,
  createNextTable,
  createWorkMeter,
  isAsciiLetter,
  isLineEnd,
  isSpace,
  isWordChar,
  matchesAt,
  Pieces,
} from '../../src/context/linear-scan.js';

/** The code units where `test` and the regex class disagree (none, when they agree). */
function disagreements(test: (c: number) => boolean, re: RegExp): string[] {
  const out: string[] = [];
  for (let c = 0; c <= 0xffff; c++) if (test(c) !== re.test(String.fromCharCode(c))) out.push(c.toString(16));
  return out;
}

describe('character classes', () => {
  it("isSpace is JavaScript's \\s on every code unit", () => {
    expect(disagreements(isSpace, /^\s$/)).toEqual([]);
  });

  it('isLineEnd is exactly what `.` does not match', () => {
    expect(disagreements(isLineEnd, /^(?!.)[\s\S]$/)).toEqual([]);
    expect([0x0a, 0x0d, 0x2028, 0x2029].every(isLineEnd)).toBe(true);
  });

  it('isWordChar is \\w on every code unit', () => {
    expect(disagreements(isWordChar, /^\w$/)).toEqual([]);
  });

  it('isAsciiLetter is [A-Za-z] on every code unit', () => {
    expect(disagreements(isAsciiLetter, /^[A-Za-z]$/)).toEqual([]);
  });
});

describe('matchesAt', () => {
  it('matches a lower-case word at an index, ignoring ASCII case in the text', () => {
    expect(matchesAt('x<DeTaILs>', 2, 'details')).toBe(true);
    expect(matchesAt('<AZ', 1, 'az')).toBe(true);
    expect(matchesAt('<details', 0, 'details')).toBe(false);
  });

  it('folds only A-Z: the characters next to them stay as they are', () => {
    // '@' + 32 is '`' and '[' + 32 is '{': folding them would make these match.
    expect(matchesAt('@', 0, '`')).toBe(false);
    expect(matchesAt('[', 0, '{')).toBe(false);
    expect(matchesAt('`', 0, '`')).toBe(true);
    // The word is expected in lower case; an upper-case word never matches.
    expect(matchesAt('abc', 0, 'ABC')).toBe(false);
  });

  it('a word that runs past the end of the text does not match; one that ends at the end does', () => {
    expect(matchesAt('ab', 1, 'b')).toBe(true);
    expect(matchesAt('ab', 0, 'ab')).toBe(true);
    expect(matchesAt('ab', 1, 'bc')).toBe(false);
    expect(matchesAt('ab', 2, '')).toBe(true);
    expect(matchesAt('ab', 2, 'b')).toBe(false);
  });
});

describe('createNextTable', () => {
  it('answers the first stop at or after each index, and the length when there is none', () => {
    const meter = createWorkMeter();
    const t = createNextTable('a<b<c', (c) => c === 0x3c, meter);
    expect([0, 1, 2, 3, 4, 5, 9].map((i) => t.from(i))).toEqual([1, 1, 3, 3, 5, 5, 5]);
  });

  it('is built once, on first use', () => {
    const meter = createWorkMeter();
    const t = createNextTable('abcde', () => false, meter);
    expect(meter.steps).toBe(0);
    expect(t.from(0)).toBe(5);
    expect(t.from(2)).toBe(5);
    expect(meter.steps).toBe(5);
  });

  it('on an empty text every index answers 0', () => {
    const t = createNextTable('', () => true, createWorkMeter());
    expect([t.from(0), t.from(3)]).toEqual([0, 0]);
  });
});

describe('createBracketCloseTable', () => {
  const closeOf = (text: string, i = 0) => createBracketCloseTable(text, createWorkMeter()).from(i);

  it.each<[string, number, number]>([
    ['a]b', 0, 1],
    [']', 0, 0],
    ['ab', 0, -1],
    ['a]b]', 2, 3],
    ['a]', 2, -1],
    ['a]', 7, -1],
    // A backslash escapes the next character: an escaped `]` does not close.
    ['x\\]y]', 0, 4],
    ['\\]]', 0, 2],
    ['\\]]', 1, 1],
    ['\\\\]', 0, 2],
    // A backslash before a line end, or as the last character, ends the bracket unclosed.
    ['x\\\ny]', 0, -1],
    ['x\\\ry]', 0, -1],
    ['x\\\u2028y]', 0, -1],
    ['x\\\u2029y]', 0, -1],
    ['ab\\', 0, -1],
    ['a\\b', 0, -1],
    ['a\\b]', 0, 3],
    // A plain line end does not stop it (the callers limit lines themselves).
    ['a\nb]', 0, 3],
  ])('%j from %i: %i', (text, from, expected) => {
    expect(closeOf(text, from)).toBe(expected);
  });

  it('is built once, on first use', () => {
    const meter = createWorkMeter();
    const t = createBracketCloseTable('ab]', meter);
    expect(meter.steps).toBe(0);
    expect([t.from(0), t.from(2)]).toEqual([2, 2]);
    expect(meter.steps).toBe(3);
  });
});

describe('Pieces', () => {
  it('joins what was pushed, in order, and counts its characters; empty pieces are skipped', () => {
    const meter = createWorkMeter();
    const out = new Pieces(meter);
    out.push('ab');
    out.push('');
    out.push('c');
    expect(out.toString()).toBe('abc');
    expect(meter.steps).toBe(3);
  });
});
