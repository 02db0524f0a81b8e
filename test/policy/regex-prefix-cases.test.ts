/**
 * The literal start of a rule pattern, case by case beside the generated comparison in
 * regex-prefix.test.ts: escapes that are plain characters, groups looked into, parentheses and bars
 * inside classes or escaped, and the anchor positions a text gives. A literal that is too long would
 * skip a match; one that is too short only costs time, and is caught here.
 */
import { describe, expect, it } from 'vitest';
import { createArgsText, createPrefixedRegex, leadingLiteral } from '../../src/policy/regex-prefix.js';

describe('leadingLiteral', () => {
  it.each<[string, string]>([
    ['\\^\\$\\.\\|\\?\\*\\+\\(\\)\\[\\]\\{\\}\\/\\"\\\'\\:\\=\\-\\\\x', '^$.|?*+()[]{}/"\':=-\\x'],
    ['a\\x4g', 'a'], // not two hex digits: not read as a character
    ['a\\u12g', 'a'],
    ['a\\x41\\u00e9', 'aAé'],
    ['a\\sb', 'a'],
    ['(?:ab)c', 'abc'],
    ['(?:a(?:b)c)d', 'abcd'],
    ['(?:ab*)c', 'a'], // the group's literal is not all of it: stop there
    ['(?:ab){2}c', ''],
    ['(?:a\\)b)c', 'a)bc'], // an escaped parenthesis does not close the group
    ['(?:a[(])b', 'a'], // nor does one in a class open another
    ['(?:a[)]b)c', 'a'],
    ['a[|]b', 'a'], // a bar in a class is no alternation
    ['a[\\]|]b', 'a'],
    ['a\\|b', 'a|b'],
    ['(?:a|b)|c', ''],
    ['ab(?:c|d)', 'ab'],
    ['x(a)|b', ''],
    ['a\\-0041', 'a-0041'], // only \u takes four hex digits
    ['a\\-41', 'a-41'],
    ['(?:a[bc(]d)e', 'a'], // a class ends at its ], not at the next character
    ['a[bc|]d', 'a'],
    ['x(?:(?:y)|z)', 'x'], // a bar inside nested groups is not top-level
    ['x(?:(?:y))|z', ''], // one after them is
  ])('/%s/ starts with %j', (source, literal) => {
    expect(leadingLiteral(new RegExp(source))).toBe(literal);
  });
});

describe('createPrefixedRegex', () => {
  it('keeps the pattern and its literal; tests only where the literal occurs', () => {
    const regex = /"command":"git (log|status)/;
    const r = createPrefixedRegex(regex);
    expect([r.regex === regex, r.literal]).toEqual([true, '"command":"git ']);
    expect(r.test(createArgsText('{"command":"git status"}'))).toBe(true);
    expect(r.test(createArgsText('{"command":"git push","x":"git log"}'))).toBe(false);
    expect(r.test(createArgsText('{"x":"command","command":"git push","command":"git log"}'))).toBe(true);
    expect(r.test(createArgsText('{"x":"y","command":"git log"}'))).toBe(true);
  });

  it('a literal without "key": is its own anchor', () => {
    const r = createPrefixedRegex(/abc\d/);
    expect(r.literal).toBe('abc');
    expect([
      r.test(createArgsText('xxabc1')),
      r.test(createArgsText('abcx abc')),
      r.test(createArgsText('ab abc9')),
    ]).toEqual([true, false, true]);
  });

  it('a pattern without a literal is tested as it is', () => {
    const r = createPrefixedRegex(/[ab]c/);
    expect(r.literal).toBe('');
    expect([r.test(createArgsText('xbc')), r.test(createArgsText('xcb'))]).toEqual([true, false]);
  });
});

describe('createArgsText', () => {
  it('every position of an anchor, overlapping ones too, found once and kept', () => {
    const t = createArgsText('aaXaa');
    expect(t.text).toBe('aaXaa');
    expect(t.positions('aa')).toEqual([0, 3]);
    expect(t.positions('a')).toEqual([0, 1, 3, 4]);
    expect(createArgsText('aaa').positions('aa')).toEqual([0, 1]);
    expect(t.positions('b')).toEqual([]);
    expect(t.positions('aa')).toBe(t.positions('aa'));
  });
});
