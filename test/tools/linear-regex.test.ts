/**
 * The regular expressions the model gives grep_search run in RE2: what is refused says exactly why,
 * and what is accepted means the same on one line and, where the shortcut applies, on a whole file.
 */
import { describe, expect, it } from 'vitest';
import { ToolFailure } from '../../src/tools/define-tool.js';
import { compileLinearRegex, MAX_PATTERN_CHARS } from '../../src/tools/linear-regex.js';

const refusal = (pattern: string): unknown => {
  try {
    compileLinearRegex('pattern', pattern, false);
  } catch (e) {
    return e instanceof ToolFailure ? { code: e.code, message: e.message } : e;
  }
  return 'accepted';
};
const invalid = (why: string) => ({
  code: 'invalid_args',
  message: `/pattern is not a valid regular expression for the linear-time engine (RE2): ${why}`,
});

describe('compileLinearRegex', () => {
  it.each<[string, string]>([
    ['(?<x>a)\\k<x>', 'backreferences (\\k<name>, \\1) are not supported'],
    ['(a)\\1', 'invalid escape sequence: `\\1`; backreferences are not supported'],
    ['foo(?=bar)', 'invalid or unsupported Perl syntax: `(?=`; lookahead ((?=…), (?!…)) is not supported'],
    ['foo(?!bar)', 'invalid or unsupported Perl syntax: `(?!`; lookahead ((?=…), (?!…)) is not supported'],
    ['(', 'missing closing ): `(`'],
    ['a{2,1}', 'invalid repeat count: `{2,1}`'],
    ['x'.repeat(4097), 'it is longer than 4096 characters'],
  ])('refuses %j: %s', (pattern, why) => {
    expect(refusal(pattern)).toEqual(invalid(why));
  });

  it('takes a pattern of exactly the longest length', () => {
    expect(MAX_PATTERN_CHARS).toBe(4096);
    expect(compileLinearRegex('pattern', 'x'.repeat(4096), false).test(`a${'x'.repeat(4096)}`)).toBe(true);
  });

  it('names the field it checks', () => {
    expect(() => compileLinearRegex('exclude_pattern', '(', false)).toThrow(
      '/exclude_pattern is not a valid regular expression',
    );
  });

  it('translates JavaScript syntax to RE2 (git grep -P reads the same source)', () => {
    expect(compileLinearRegex('p', '(?<n>\\d+)', false).source).toBe('(?P<n>\\d+)');
    expect(compileLinearRegex('p', '\\u{41}', false).source).toBe('\\x{41}');
  });

  it('ignores case only when asked', () => {
    expect(compileLinearRegex('p', 'ABC', true).test('xabcx')).toBe(true);
    expect(compileLinearRegex('p', 'ABC', false).test('xabcx')).toBe(false);
    expect(compileLinearRegex('p', '(?<=A)B', true).test('ab')).toBe(true);
  });

  it('a whole-file test finds every line a line test finds (multi-line anchors)', () => {
    const re = compileLinearRegex('p', '^b$', false);
    expect(re.test('a\nb')).toBe(false);
    expect(re.wholeText?.test('a\nb\nc')).toBe(true);
    expect(re.wholeText?.test('a\nbb\nc')).toBe(false);
    expect(compileLinearRegex('p', 'B', true).wholeText?.test('a\nb')).toBe(true);
  });

  it.each(['(?s)a.b', '(?i)a', '(?i:a)', '(?-i)a', '\\Aa', 'a\\z', '(?<=a)b', '(?<!x)y'])(
    'no whole-file shortcut for %j, which reads differently across lines',
    (pattern) => {
      expect(compileLinearRegex('p', pattern, false).wholeText).toBeUndefined();
    },
  );

  it.each(['^b', 'a.b', '[[:alpha:]]', '\\Ba', '\\bword'])('a whole-file shortcut for %j', (pattern) => {
    expect(compileLinearRegex('p', pattern, false).wholeText).toBeDefined();
  });
});
