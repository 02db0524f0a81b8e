// The literal-start shortcut for rule patterns must give exactly the answer of `regex.test(text)`:
// a literal that is too long (a quantified character, an alternation, a flag) would skip a match and
// let a deny rule miss. Literal extraction is checked case by case; the whole test against V8 on
// generated patterns and texts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createArgsText, createPrefixedRegex, leadingLiteral } from '../../src/policy/regex-prefix.js';

describe('leadingLiteral', () => {
  it.each<[string, string, string?]>([
    ['\\x00"file_path":"src/[^"]*"\\x00', '\u0000"file_path":"src/'],
    ['"command":"(?:git log)(?:\\s|$)', '"command":"git log'],
    ['"command":"(?:make4 [a-z]+)', '"command":"make4 '],
    ['abc', 'abc'],
    ['ab*c', 'a'], // b is optional: the literal stops before it
    ['ab+c', 'a'],
    ['ab?', 'a'],
    ['ab{2}', 'a'],
    ['a\\.b\\dc', 'a.b'], // \d is a class, not a character
    ['\\u0041\\x42c', 'ABc'],
    ['abc|abd', ''], // top-level alternation: no common start is proven
    ['(?:ab|ac)d', ''],
    ['(?:ab)+c', ''], // a repeated group
    ['(?:ab)?c', ''],
    ['(ab)c', ''], // capturing groups are not looked into
    ['^abc', ''],
    ['[ab]c', ''],
    ['a\\1', 'a'],
    ['a\\0b', 'a'],
    ['a\\bc', 'a'],
    ['ab', '', 'i'], // flags change what matches
    ['ab', '', 'm'],
    ['ab', '', 'u'],
  ])('/%s/ starts with %j', (source, literal, flags = '') => {
    expect(leadingLiteral(new RegExp(source, flags))).toBe(literal);
  });
});

describe('createPrefixedRegex', () => {
  const atom = fc.constantFrom(
    'a',
    'b',
    '"',
    ':',
    '\\x00',
    '\\.',
    '.',
    '\\d',
    '[ab]',
    '[^"]',
    '\\s',
    ' ',
    'x',
    '\\u0061',
    '\\b',
    '$',
    '^',
  );
  const quant = fc.constantFrom('', '', '', '*', '+', '?', '{2}', '{0,2}');
  const piece: fc.Arbitrary<string> = fc.letrec<{ seq: string; piece: string }>((tie) => ({
    piece: fc.oneof(
      { depthSize: 'small' },
      fc.tuple(atom, quant).map(([a, q]) => a + q),
      fc.tuple(tie('seq'), quant).map(([s, q]) => `(?:${s})${q}`),
      fc.tuple(tie('seq'), tie('seq')).map(([x, y]) => `(?:${x}|${y})`),
      fc.tuple(tie('seq'), tie('seq')).map(([x, y]) => `${x}|${y}`),
    ),
    seq: fc.array(tie('piece'), { minLength: 1, maxLength: 4 }).map((ps) => ps.join('')),
  })).seq;
  const text = fc
    .array(fc.constantFrom('a', 'b', '"', ':', '\u0000', '.', '1', ' ', 'x', 'ab', '"a":'), { maxLength: 24 })
    .map((cs) => cs.join(''));

  it('gives the same answer as regex.test on generated patterns and texts', () => {
    fc.assert(
      fc.property(piece, fc.array(text, { minLength: 1, maxLength: 4 }), (source, texts) => {
        let regex: RegExp;
        try {
          regex = new RegExp(source);
        } catch {
          return; // not every generated pattern is valid JavaScript
        }
        const prefixed = createPrefixedRegex(regex);
        for (const t of texts)
          expect(prefixed.test(createArgsText(t)), `/${source}/ on ${JSON.stringify(t)}`).toBe(regex.test(t));
      }),
      { seed: 20260116, numRuns: 3000 },
    );
  });

  it('finds a match at a later occurrence of the literal, not only the first', () => {
    const r = createPrefixedRegex(/"a":"b[0-9]/);
    expect(r.literal).toBe('"a":"b');
    expect(r.test(createArgsText('{"a":"bx","a":"b7"}'))).toBe(true);
    expect(r.test(createArgsText('{"a":"bx","a":"by"}'))).toBe(false);
  });
});
