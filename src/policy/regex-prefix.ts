/**
 * A rule's regex tested the way Gemini CLI tests it (unanchored, anywhere in the text), faster.
 * Most policy patterns begin with literal text (`\x00"file_path":"src/`, `"command":"git `), and
 * every match of such a pattern starts where that literal occurs. So: find the literal with
 * `indexOf` and try the pattern only there, with a sticky copy. Same answer as `regex.test(text)`
 * for every text; patterns without a usable literal are tested as they are.
 */
export interface PrefixedRegex {
  readonly regex: RegExp;
  /** Text every match begins with ('' when none could be proven). */
  readonly literal: string;
  test(text: ArgsText): boolean;
}

/**
 * A text tested by many patterns, with the places of each anchor found once. Anchors are the
 * literals cut after their first `":` (`\x00"file_path":`, `"command":`), so the hundred rules that
 * name one argument share one search.
 */
export interface ArgsText {
  readonly text: string;
  positions(anchor: string): readonly number[];
}

export function createArgsText(text: string): ArgsText {
  const found = new Map<string, number[]>();
  return {
    text,
    positions(anchor) {
      let list = found.get(anchor);
      if (!list) {
        list = [];
        for (let at = text.indexOf(anchor); at >= 0; at = text.indexOf(anchor, at + 1)) list.push(at);
        found.set(anchor, list);
      }
      return list;
    },
  };
}

export function createPrefixedRegex(regex: RegExp): PrefixedRegex {
  const literal = leadingLiteral(regex);
  // The anchor only picks where to try: any start of the literal (even '') gives the same answers, only slower.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: equivalent; with '' the anchor occurs everywhere and every place is tried
  if (literal === '') return { regex, literal, test: (t) => regex.test(t.text) };
  // Stryker disable next-line StringLiteral: equivalent; see above
  const key = literal.indexOf('":');
  // Stryker disable next-line all: equivalent; see above
  const anchor = key >= 0 ? literal.slice(0, key + 2) : literal;
  // Stryker disable next-line StringLiteral: equivalent; without the sticky flag the test searches on from the first place the literal occurs, and any match it finds is a match
  const sticky = new RegExp(regex.source, `${regex.flags}y`);
  return {
    regex,
    literal,
    test({ text, positions }) {
      for (const at of positions(anchor)) {
        if (!text.startsWith(literal, at)) continue;
        sticky.lastIndex = at;
        if (sticky.test(text)) return true;
      }
      return false;
    },
  };
}

/**
 * The characters every match of `regex` starts with. Conservative: only plain characters and a few
 * unambiguous escapes at the very start of a pattern with no flags, looking into a leading `(?:...)`
 * group without alternation; the character (or group) a quantifier applies to does not count.
 * Anything unusual ends the literal, possibly at ''.
 */
export function leadingLiteral(regex: RegExp): string {
  if (regex.flags !== '') return '';
  return literalOf(regex.source).literal;
}

/** The literal start of a pattern, and whether the literal is the whole pattern. */
function literalOf(src: string): { literal: string; whole: boolean } {
  if (hasTopLevelAlternation(src)) return { literal: '', whole: false };
  let literal = '';
  let i = 0;
  while (i < src.length) {
    if (src.startsWith('(?:', i)) {
      const close = closingParen(src, i);
      if (close < 0 || QUANTIFIER.test(src.slice(close + 1))) break;
      const inner = literalOf(src.slice(i + 3, close));
      literal += inner.literal;
      if (!inner.whole) return { literal, whole: false };
      i = close + 1;
      continue;
    }
    const one = charAt(src, i);
    // A quantifier after this character makes it optional or repeated: stop before it.
    if (!one || QUANTIFIER.test(src.slice(one.next))) break;
    literal += one.ch;
    i = one.next;
  }
  return { literal, whole: i >= src.length };
}

const QUANTIFIER = /^[?*+{]/;

/** One plain character (or unambiguous escape) at `i`, or undefined for anything else. */
function charAt(src: string, i: number): { ch: string; next: number } | undefined {
  const c = src[i]!;
  if (c !== '\\') return /[\^$.|?*+()[\]{}]/.test(c) ? undefined : { ch: c, next: i + 1 };
  const esc = src[i + 1];
  // Stryker disable next-line ConditionalExpression: unreachable; a valid pattern never ends in a lone backslash
  if (esc === undefined) return undefined;
  // Stryker disable next-line Regex: equivalent; the slice holds at most two characters, so ^ and $ add nothing
  if (esc === 'x' && /^[0-9a-fA-F]{2}$/.test(src.slice(i + 2, i + 4)))
    return { ch: String.fromCharCode(parseInt(src.slice(i + 2, i + 4), 16)), next: i + 4 };
  // Stryker disable next-line Regex: equivalent; the slice holds at most four characters, so ^ and $ add nothing
  if (esc === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6)))
    return { ch: String.fromCharCode(parseInt(src.slice(i + 2, i + 6), 16)), next: i + 6 };
  // \d, \b, \1, \0, \cX ... are not plain characters.
  return /[\\^$.|?*+()[\]{}/"':=\-]/.test(esc) ? { ch: esc, next: i + 2 } : undefined;
}

/** The index of the `)` closing the group that opens at `open`, or -1. */
function closingParen(src: string, open: number): number {
  let depth = 0;
  let inClass = false;
  // Stryker disable next-line EqualityOperator: equivalent; one step past the end reads undefined, which is none of the characters looked for
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  // Stryker disable next-line UnaryOperator: unreachable; every group of a valid pattern closes
  return -1;
}

/** Whether a `|` stands outside every group and character class (then no literal is common to all matches). */
function hasTopLevelAlternation(source: string): boolean {
  let depth = 0;
  let inClass = false;
  // Stryker disable next-line EqualityOperator: equivalent; see closingParen
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}
