/**
 * Regular expressions the model supplies (grep_search's `pattern` and `exclude_pattern`) run in
 * RE2, a linear-time engine: JavaScript's backtracking engine spends minutes on `^(a|a)*$` against
 * one short line, synchronously, so no timer (not even the run's deadline) fires meanwhile.
 *
 * Why re2js and not the native `re2` addon: re2js is pure JavaScript, already a dependency, and
 * bundles with ncc like any module; `re2` is a C++ addon that must be built for the runner's Node
 * ABI and shipped beside dist/index.js, which a JavaScript action cannot rely on. re2js's speed is
 * enough here (files over 4 MB are skipped anyway), and git grep remains the fast path.
 *
 * The model writes JavaScript/PCRE syntax; `RE2JS.translateRegExp` maps what differs (named groups,
 * `\u{…}`). Lookahead and backreferences have no linear-time form and are refused with a message
 * that says so; lookbehind (captureless) is accepted, in re2js's linear-time implementation.
 */
import { RE2JS } from 're2js';
import { messageOf } from '../common/errors.js';
import { ToolFailure } from './define-tool.js';

/** Longer patterns are refused: the automaton grows with the pattern. */
export const MAX_PATTERN_CHARS = 4096;

export interface LinearRegex {
  /** The pattern in RE2 syntax (also valid PCRE: git grep -P takes it as it is). */
  readonly source: string;
  /** True when the pattern matches anywhere in `text` (one line). */
  test(text: string): boolean;
  /**
   * A whole-file test that never misses a line match (multi-line mode), so most files are
   * rejected without splitting them; undefined when the pattern could behave differently there.
   */
  readonly wholeText?: { test(text: string): boolean };
}

export function compileLinearRegex(field: string, pattern: string, ignoreCase: boolean): LinearRegex {
  const invalid = (why: string) =>
    new ToolFailure(
      'invalid_args',
      `/${field} is not a valid regular expression for the linear-time engine (RE2): ${why}`,
    );
  if (pattern.length > MAX_PATTERN_CHARS) throw invalid(`it is longer than ${MAX_PATTERN_CHARS} characters`);
  if (/\\k</.test(pattern)) throw invalid('backreferences (\\k<name>, \\1) are not supported');
  let source: string;
  // Stryker disable BlockStatement: the catch is unreachable with re2js 1.x, whose translateRegExp never throws on a string; kept so a future version's refusal still reads as one
  try {
    source = RE2JS.translateRegExp(pattern);
  } catch (e) {
    throw invalid(messageOf(e));
  }
  // Stryker restore BlockStatement
  const base = ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  const lookbehind = /\(\?<[=!]/.test(source);
  const flags = base | (lookbehind ? RE2JS.LOOKBEHINDS : 0);
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, flags);
  } catch (e) {
    const msg = messageOf(e);
    const hint = /\(\?[=!]/.test(source)
      ? '; lookahead ((?=…), (?!…)) is not supported'
      : /\\[1-9]/.test(source)
        ? '; backreferences are not supported'
        : '';
    // Stryker disable next-line Regex: every re2js syntax error starts with this prefix, so its first occurrence is at the start, anchored or not
    throw invalid(`${msg.replace(/^error parsing regexp: /, '')}${hint}`);
  }
  // Inline flags (a `(?s)` dot crosses line ends), \A, \z and lookbehind behave differently on a
  // whole file: no whole-file shortcut for them.
  const lineLocal = !/\(\?[a-zA-Z-]+[):]|\(\?<[=!]|\\[Az]/.test(source);
  const whole = lineLocal ? RE2JS.compile(source, flags | RE2JS.MULTILINE) : undefined;
  return {
    source,
    test: (text) => re.test(text),
    ...(whole ? { wholeText: { test: (text: string) => whole.test(text) } } : {}),
  };
}
