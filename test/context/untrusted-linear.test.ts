/**
 * The untrusted-text sanitizer does work linear in its input, on the inputs that made the regex
 * version quadratic (a 64 KB issue body cost ~9 s, on every run on that thread). The assertion is
 * on work done: the characters the scanners examine, counted by a WorkMeter, stay under a fixed
 * multiple of the input length. A rescan from every start position (what a backtracking regex does
 * on these inputs) multiplies that count by the input length and fails at once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createWorkMeter } from '../../src/context/linear-scan.js';
import {
  fenceUntrusted,
  MAX_UNTRUSTED_CHARS,
  neutralizeFences,
  sanitizeUntrusted,
} from '../../src/context/untrusted.js';

/** Steps per input character the scanners may take; measured at 25-31 on these inputs. */
const STEPS_PER_CHAR = 40;
const N = 256 * 1024;

const fill = (unit: string, size = N) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

// Each of these made the regex version rescan the rest of the text from every start position.
const PATHOLOGICAL: Array<[string, string]> = [
  ['image openers with no closing bracket', fill('![')],
  ['an image destination of spaces with no closing paren', `![](${' '.repeat(N)}`],
  ['a link destination of spaces with no closing paren', `[a](${' '.repeat(N)}`],
  ['image destinations that never close', fill('![a](![a](')],
  ['link titles that never close', fill('[a](x (')],
  ['<img tags with no >', fill('<img ')],
  ['<details tags with no >', fill('<details ')],
  ['many hidden elements', fill('<p hidden></p>')],
  ['many link definitions', fill('[a]:\n')],
  ['escaped brackets', `![${'\\]'.repeat(N / 2)}`],
  ['an open tag followed by spaces', `<a${' '.repeat(N)}`],
  ['a fence-like bracket followed by spaces', `<${' '.repeat(N)}`],
  ['newline runs', fill('\n\n\n\na')],
  ['nested hidden divs without close', fill('<div hidden>')],
  // One tag runs to the next `>`, so every `<a` before it would read the same attributes again.
  ['tags inside one tag', `${fill('<a ', N - 1)}>`],
];

/**
 * 64 KB inputs aimed at the HTML tokenizer and the hidden-element rule: a reader that looked for a
 * tag's end from every `<` (respecting quotes), or that searched the stack of open elements for each
 * end tag, or rescanned raw text for its end tag from every `</`, would do work quadratic in these.
 */
const K64 = 64 * 1024;
const HTML_PATHOLOGICAL: Array<[string, string]> = [
  ['a quoted attribute full of `>` and `<`', `<p title="${fill('<a >', K64 - 12)}" hidden>x`],
  ['an unterminated quoted attribute', `<p title="${fill('<b ', K64)}`],
  ['attributes without end', `<p ${fill('a=1 ', K64)}`],
  ['nested hidden elements never closed', fill('<div hidden><b>', K64)],
  [
    'end tags that match nothing inside a hidden element',
    `<div hidden>${'<b>'.repeat(K64 / 8)}${fill('</i>', K64 / 2)}`,
  ],
  ['near-miss end tags in a script', `<script>${fill('</scrip', K64)}`],
  ['near-miss end tags in a textarea', `<textarea>${fill('</textare', K64)}`],
  ['CDATA openers in svg', `<svg>${fill('<![CDATA[', K64)}`],
  ['comment openers', fill('<!-', K64)],
  ['bogus comments', fill('<?', K64)],
  ['character references', fill('&amp;&#x41;&notin;&', K64)],
];

describe('sanitizeUntrusted does linear work', () => {
  it.each(HTML_PATHOLOGICAL)('HTML, 64 KB: %s', (_name, input) => {
    const meter = createWorkMeter();
    sanitizeUntrusted(input, { meter });
    expect(meter.steps).toBeLessThanOrEqual(STEPS_PER_CHAR * input.length);
    // The tokenizer's own reads are on the meter: at least one per character of HTML.
    expect(meter.steps).toBeGreaterThanOrEqual(input.length);
  });

  it.each(PATHOLOGICAL)('%s', (_name, input) => {
    const meter = createWorkMeter();
    sanitizeUntrusted(input, { meter });
    expect(meter.steps).toBeLessThanOrEqual(STEPS_PER_CHAR * input.length);
  });

  it('on any text over the characters markdown and HTML care about', () => {
    const alphabet = fc.constantFrom(
      '!',
      '[',
      ']',
      '(',
      ')',
      '<',
      '>',
      '/',
      '"',
      "'",
      ' ',
      '\n',
      '\\',
      '`',
      '~',
      'a',
      'img',
      'details',
      'hidden',
      'href=',
      'src=',
      ':',
      '-',
      '<!--',
      '-->',
    );
    fc.assert(
      fc.property(fc.array(alphabet, { minLength: 100, maxLength: 3000, size: 'max' }), (parts) => {
        const input = parts.join('');
        const meter = createWorkMeter();
        sanitizeUntrusted(input, { meter });
        expect(meter.steps).toBeLessThanOrEqual(STEPS_PER_CHAR * input.length + 64);
      }),
      { numRuns: 200 },
    );
  });

  it('fencing does linear work on a bracket followed by spaces', () => {
    const input = `<${' '.repeat(N)}untrusted`;
    const meter = createWorkMeter();
    expect(neutralizeFences(input, meter)).toBe(`(untrusted`);
    expect(meter.steps).toBeLessThanOrEqual(4 * input.length);
    expect(fenceUntrusted('body', `x${'\n'.repeat(N)}y\n\n`, 'abcdef')).toBe(
      `<untrusted-body-abcdef>\nx${'\n'.repeat(N)}y\n</untrusted-body-abcdef>`,
    );
  });

  it('caps its input: text past the limit is cut before any work, with a note', () => {
    const meter = createWorkMeter();
    const out = sanitizeUntrusted(`${'a'.repeat(MAX_UNTRUSTED_CHARS)}${'b'.repeat(1_000_000)}`, { meter });
    expect(out).toBe(`${'a'.repeat(262_144)}\n[... 1000000 characters cut ...]`);
    expect(meter.steps).toBeLessThanOrEqual(STEPS_PER_CHAR * 262_144);
  });

  it('never splits a surrogate pair at the cap', () => {
    expect(sanitizeUntrusted(`ab😀cd`, { maxChars: 3 })).toBe('ab\n[... 4 characters cut ...]');
  });
});
