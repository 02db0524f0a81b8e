/**
 * Patterns in policy files (argsPattern, commandRegex) run on every call the model makes: a pattern
 * that backtracks exponentially is refused at load, with a message that says why and how to fix it.
 */
import { describe, expect, it } from 'vitest';
import { checkRegex } from '../../src/policy/regex-check.js';

const catastrophic = (p: string) =>
  `catastrophic regular expression /${p}/: a repeated group contains another repetition (like (a+)+), which can take exponential time; rewrite it without nested quantifiers`;
const verdict = (p: string) => {
  const r = checkRegex(p);
  return r.ok ? 'ok' : r.message;
};

describe('checkRegex', () => {
  it.each([
    'x',
    '[a-z]+',
    '(a+)?',
    '(a*){2}',
    '(a{1,3})+',
    '(a{1,16})+',
    '(a)(b)+',
    '((a+))',
    '(a+)(b+)',
    '(?<n>a)+',
    '(?<=a)b+',
    '"command":"(?:git|npm) ',
    'x'.repeat(2048),
  ])('%j is accepted', (p) => {
    const r = checkRegex(p);
    expect(r).toEqual({ ok: true, regex: new RegExp(p) });
  });

  it.each([
    '(a+)+',
    '(\\w*)*',
    '(?:a*)*',
    '(a|b+)+',
    '(a*b*)+',
    '(a{1,17})+',
    '(a{2,})+',
    '(?=a+)+',
    '(?<=a)(b+)+',
    '(?<!a)(b+)+',
    'x((a+)+)y',
  ])('%j is refused as catastrophic', (p) => {
    expect(verdict(p)).toBe(catastrophic(p));
  });

  it.each<[string, string]>([
    ['[', 'invalid regular expression: /[/: Unterminated character class'],
    ['(?<=a', 'invalid regular expression: /(?<=a/: Unterminated group'],
    ['a{3,2}', 'invalid regular expression: /a{3,2}/: numbers out of order in {} quantifier'],
    ['x'.repeat(2049), 'regular expression is 2049 characters long; the limit is 2048'],
    // JavaScript accepts it, the tokenizer that measures nesting does not: refused, not guessed at.
    [
      '[\\c]',
      'regular expression could not be checked for catastrophic backtracking: Invalid regular expression: /[\\c]/: Unterminated character class',
    ],
  ])('%j is refused: %s', (p, message) => {
    expect(checkRegex(p)).toEqual({ ok: false, message });
  });
});
