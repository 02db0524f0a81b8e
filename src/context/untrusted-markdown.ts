/**
 * The Markdown and HTML tricks of sanitizeUntrusted, each a linear pass over the text: hidden
 * elements, image alt text, `<img>` attributes, link titles, unused link definitions,
 * `<details>` wrappers and attributes other than href. Every "where does this end" question goes
 * through a table from linear-scan.ts (O(1) each), so a comment of 30,000 `![` or one `![](`
 * followed by 60,000 spaces costs as much as any other text of its length. The few regular
 * expressions left run in RE2 (linear time) and only on one tag's attributes, which never overlap.
 */
import { RE2JS } from 're2js';
import { createBracketCloseTable, createNextTable, isAsciiLetter, isLineEnd, isSpace, isWordChar, matchesAt, Pieces, type NextTable, type WorkMeter } from './linear-scan.js';

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;

/** Elements whose content the browser never shows, or that GitHub strips. */
const INVISIBLE_ELEMENTS = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math']);
/** Attributes that hide an element; `opacity: 0`, `0.0`, `00` hide, `0.5` does not. */
const HIDING_ATTR = RE2JS.compile('\\bhidden\\b|display\\s*:\\s*none|visibility\\s*:\\s*hidden|font-size\\s*:\\s*0|opacity\\s*:\\s*0[.0]*(?:[^.0-9]|$)', RE2JS.CASE_INSENSITIVE);
const HREF = RE2JS.compile('\\bhref\\s*=\\s*("[^"]*"|\'[^\']*\'|[^\\s>]+)', RE2JS.CASE_INSENSITIVE);
const SRC = RE2JS.compile('\\bsrc\\s*=\\s*["\']?([^"\'\\s>]+)', RE2JS.CASE_INSENSITIVE);

const isNameChar = (c: number) => isAsciiLetter(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d;

/** End of the tag name `[a-z][a-z0-9-]*` that starts at i (case-insensitive), or -1. */
function nameEnd(text: string, i: number, meter: WorkMeter): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
  if (i >= text.length || !isAsciiLetter(text.charCodeAt(i))) return -1;
  let j = i + 1;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
  while (j < text.length && isNameChar(text.charCodeAt(j))) j++;
  meter.steps += j - i;
  return j;
}

/** The longest name ending at or before `end` that a `\b` follows (the regex's backtracking), or -1. */
function boundedNameEnd(text: string, start: number, end: number): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
  const wordAt = (p: number) => p < text.length && isWordChar(text.charCodeAt(p));
  for (let p = end; p > start; p--) if (wordAt(p - 1) !== wordAt(p)) return p;
  return -1;
}

/** One pass removing `<tag ...>` elements that hide their content, through the matching close tag. */
export function removeHiddenElements(text: string, meter: WorkMeter): string {
  const out = new Pieces(meter);
  const nextLt = createNextTable(text, (c) => c === LT, meter);
  const nextAngle = createNextTable(text, (c) => c === LT || c === GT, meter);
  // A browser reads an opening tag up to the next `>`, a `<` included (`<p hidden <i>x` is a hidden
  // `<p>` whose attributes are `hidden` and `<i`), so the attributes run to the next `>` too.
  const nextGt = createNextTable(text, (c) => c === GT, meter);
  const scan: CloseScan = { text, nextLt, nextAngle, meter };
  let copied = 0;
  for (let i = nextLt.from(0); i < text.length; i = nextLt.from(i + 1)) {
    const raw = nameEnd(text, i + 1, meter);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a fast path; boundedNameEnd of a negative end is -1 too, and nameEnd never returns 0
    if (raw < 0) continue;
    const end = boundedNameEnd(text, i + 1, raw);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: end is -1 only for a name all of word characters followed by `_`; such a tag slice holds the `_`, so it is never an invisible element, and its attrs slice is one character
    if (end < 0) continue;
    const close = nextGt.from(end);
    if (close >= text.length) continue;
    const tag = text.slice(i + 1, end).toLowerCase();
    const attrs = text.slice(end, close);
    meter.steps += attrs.length; // what the attribute test reads
    if (!INVISIBLE_ELEMENTS.has(tag) && !HIDING_ATTR.test(attrs)) {
      // Nothing inside a tag starts another one, so the scan resumes after it: no two attribute
      // slices overlap, and the pass stays linear however many `<` one tag holds.
      i = close;
      continue;
    }
    // Stryker disable next-line ArithmeticOperator: the characters at close - 1 and close are neither `<` (nextAngle stops there) so the next `<` is found alike
    const stop = attrs.trimEnd().endsWith('/') ? close + 1 : closingEnd(scan, tag, close + 1);
    out.push(text.slice(copied, i));
    copied = stop;
    // Scanning resumes after the removed element: nothing inside it is looked at again.
    i = stop - 1;
  }
  out.push(text.slice(copied));
  return out.toString();
}

/** One pass's text, its tables of the next `<` and of the next `<` or `>`, and its work meter: made once per pass. */
interface CloseScan {
  text: string;
  nextLt: NextTable;
  nextAngle: NextTable;
  meter: WorkMeter;
}

/** Where the element opened before `from` ends: after its matching close tag (nesting counted), else the end. */
function closingEnd(t: CloseScan, tag: string, from: number): number {
  const { text, meter } = t;
  let depth = 1;
  for (let i = t.nextLt.from(from); i < text.length; i = t.nextLt.from(i + 1)) {
    const closing = text.charCodeAt(i + 1) === SLASH;
    const start = i + 1 + (closing ? 1 : 0);
    meter.steps += tag.length;
    if (!matchesAt(text, start, tag)) continue;
    const after = start + tag.length;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
    if (after < text.length && isWordChar(text.charCodeAt(after)) === isWordChar(text.charCodeAt(after - 1))) continue;
    const end = t.nextAngle.from(after);
    if (end >= text.length || text.charCodeAt(end) !== GT) continue;
    depth += closing ? -1 : 1;
    if (depth === 0) return end + 1;
  }
  return text.length;
}

/** Tables for link destinations `(<dest> "title")`, shared by images and links. */
interface DestTables {
  nonSpace: NextTable;
  destStop: NextTable;
  dquote: NextTable;
  squote: NextTable;
  rparen: NextTable;
}

const createDestTables = (text: string, meter: WorkMeter): DestTables => ({
  nonSpace: createNextTable(text, (c) => !isSpace(c), meter),
  destStop: createNextTable(text, (c) => isSpace(c) || c === 0x29 || c === GT, meter),
  dquote: createNextTable(text, (c) => c === 0x22, meter),
  squote: createNextTable(text, (c) => c === 0x27, meter),
  rparen: createNextTable(text, (c) => c === 0x29, meter),
});

interface Destination {
  dest: string;
  /** Index after the destination (and its closing `>`). */
  destEnd: number;
  hasTitle: boolean;
  /** Index after the closing `)`. */
  end: number;
}

/** `\s*<?([^\s)>]*)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)` from index p (just after `(`). */
function parseDestination(text: string, p: number, t: DestTables): Destination | undefined {
  const n = text.length;
  let b = t.nonSpace.from(p);
  // Stryker disable next-line EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
  if (b < n && text.charCodeAt(b) === LT) b++;
  const d = t.destStop.from(b);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
  const e = d < n && text.charCodeAt(d) === GT ? d + 1 : d;
  const dest = text.slice(b, d);
  const ts = t.nonSpace.from(e);
  if (ts > e && ts < n) {
    const q = text.charCodeAt(ts);
    const closer = q === 0x22 ? t.dquote : q === 0x27 ? t.squote : q === 0x28 ? t.rparen : undefined;
    const close = closer?.from(ts + 1) ?? n;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: close is n only with no closer; then nonSpace.from(n + 1) is n and the test below fails alike
    if (close < n) {
      const f = t.nonSpace.from(close + 1);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
      if (f < n && text.charCodeAt(f) === 0x29) return { dest, destEnd: e, hasTitle: true, end: f + 1 };
    }
  }
  const f = t.nonSpace.from(e);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
  return f < n && text.charCodeAt(f) === 0x29 ? { dest, destEnd: e, hasTitle: false, end: f + 1 } : undefined;
}

/** `![alt](url "title")` -> `[image: url]`: alt text and titles are not on the page. */
export function replaceInlineImages(text: string, meter: WorkMeter): string {
  const out = new Pieces(meter);
  const close = createBracketCloseTable(text, meter);
  const t = createDestTables(text, meter);
  let copied = 0;
  for (let i = text.indexOf('![', 0); i >= 0; i = text.indexOf('![', i + 1)) {
    if (i < copied) continue;
    const c = close.from(i + 2);
    // Stryker disable next-line EqualityOperator: c is -1 or at least i + 2, never 0
    if (c < 0 || text.charCodeAt(c + 1) !== 0x28) continue;
    const d = parseDestination(text, c + 2, t);
    if (!d) continue;
    out.push(text.slice(copied, i));
    out.push(`[image: ${d.dest.slice(0, 300)}]`);
    copied = d.end;
  }
  meter.steps += text.length; // the indexOf walk
  out.push(text.slice(copied));
  return out.toString();
}

/** `![alt][ref]` -> `[image]`. */
export function replaceReferenceImages(text: string, meter: WorkMeter): string {
  const out = new Pieces(meter);
  const close = createBracketCloseTable(text, meter);
  const nextBracket = createNextTable(text, (c) => c === 0x5d, meter);
  let copied = 0;
  for (let i = text.indexOf('![', 0); i >= 0; i = text.indexOf('![', i + 1)) {
    if (i < copied) continue;
    const c = close.from(i + 2);
    // Stryker disable next-line EqualityOperator: c is -1 or at least i + 2, never 0
    if (c < 0 || text.charCodeAt(c + 1) !== 0x5b) continue;
    const r = nextBracket.from(c + 2);
    if (r >= text.length) continue;
    out.push(text.slice(copied, i));
    out.push('[image]');
    copied = r + 1;
  }
  meter.steps += text.length;
  out.push(text.slice(copied));
  return out.toString();
}

/** `<img ...>` -> `[image: src]`; the alt and title attributes go. */
export function replaceImgTags(text: string, meter: WorkMeter): string {
  return replaceTags(text, meter, {
    names: ['img'],
    render: (tag) => {
      const src = SRC.exec(tag)?.[1] as string | undefined;
      return src ? `[image: ${src.slice(0, 300)}]` : '[image]';
    },
  });
}

/** `<details>`/`<summary>` keep their text but lose the wrapper that folds it away. */
export function unwrapDetails(text: string, meter: WorkMeter): string {
  return replaceTags(text, meter, { names: ['details', 'summary', '/details', '/summary'], render: () => '\n' });
}

/** Which tags a pass replaces (by name, case-insensitive) and what each becomes. */
interface TagRewrite {
  names: readonly string[];
  render: (tag: string) => string;
}

/** `<name\b[^>]*>` for the rewrite's names, each replaced by `render(tag)`. */
function replaceTags(text: string, meter: WorkMeter, rewrite: TagRewrite): string {
  const { names, render } = rewrite;
  const out = new Pieces(meter);
  const nextLt = createNextTable(text, (c) => c === LT, meter);
  const nextGt = createNextTable(text, (c) => c === GT, meter);
  let copied = 0;
  for (let i = nextLt.from(0); i < text.length; i = nextLt.from(i + 1)) {
    if (i < copied) continue;
    meter.steps += 10;
    const name = names.find((w) => matchesAt(text, i + 1, w));
    if (!name) continue;
    const after = i + 1 + name.length;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
    if (after < text.length && isWordChar(text.charCodeAt(after))) continue;
    const gt = nextGt.from(after);
    // No `>` after this one: no later tag of the kind can close either.
    if (gt >= text.length) break;
    out.push(text.slice(copied, i));
    out.push(render(text.slice(i, gt + 1)));
    copied = gt + 1;
  }
  out.push(text.slice(copied));
  return out.toString();
}

/** `[text](url "title")` -> `[text](url)`: a title is a tooltip, invisible until hovered. */
export function dropLinkTitles(text: string, meter: WorkMeter): string {
  const out = new Pieces(meter);
  const t = createDestTables(text, meter);
  let copied = 0;
  for (let i = text.indexOf('](', 0); i >= 0; i = text.indexOf('](', i + 1)) {
    if (i < copied) continue;
    const d = parseDestination(text, i + 2, t);
    if (!d?.hasTitle) continue;
    out.push(text.slice(copied, d.destEnd));
    out.push(')');
    copied = d.end;
  }
  meter.steps += text.length;
  out.push(text.slice(copied));
  return out.toString();
}

/** Attributes are never rendered as text (title, alt, aria-label, data-*); only href is kept. */
export function keepOnlyHref(text: string, meter: WorkMeter): string {
  const out = new Pieces(meter);
  const nextLt = createNextTable(text, (c) => c === LT, meter);
  const nextAngle = createNextTable(text, (c) => c === LT || c === GT, meter);
  let copied = 0;
  for (let i = nextLt.from(0); i < text.length; i = nextLt.from(i + 1)) {
    const end = nameEnd(text, i + 1, meter);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: nameEnd gives -1 or at least i + 2; with -1, c is NaN and every branch below continues
    if (end < 0) continue;
    const c = text.charCodeAt(end);
    let attrs = '';
    let close: number;
    // Stryker disable next-line ConditionalExpression: a tag with no attributes is rebuilt byte for byte, so leaving it as text is the same
    if (c === GT) close = end;
    else if (c === SLASH && text.charCodeAt(end + 1) === GT) close = end + 1;
    else if (end < text.length && isSpace(c)) {
      close = nextAngle.from(end);
      if (close >= text.length || text.charCodeAt(close) !== GT) continue;
      attrs = text.slice(end, close);
    } else continue;
    // Stryker disable next-line ConditionalExpression: c is `/` here only on the branch that leaves attrs empty
    const self = attrs.endsWith('/') || (attrs === '' && c === SLASH) ? '/' : '';
    const own = self && attrs ? attrs.slice(0, -1) : attrs;
    const href = own ? (HREF.exec(own)?.[1] as string | undefined) : undefined;
    out.push(text.slice(copied, i));
    out.push(`<${text.slice(i + 1, end)}${href ? ` href=${href}` : ''}${self}>`);
    copied = close + 1;
    i = close;
  }
  out.push(text.slice(copied));
  return out.toString();
}

/**
 * Link reference definitions (`[x]: url "title"`) render as nothing; `[//]: # (text)` is the
 * classic markdown comment. Unreferenced ones go; referenced ones keep label and URL, lose the
 * title. Labels hold no brackets (CommonMark), so "referenced" is a set lookup, not a search.
 */
export function removeLinkDefinitions(text: string, meter: WorkMeter): string {
  const lines = splitLines(text, meter);
  const defs = lines.map((l) => parseDefinition(l));
  // Stryker disable next-line StringLiteral: every line but the last ends in a line end, which no label crosses, so the joint is never inside a label
  const body = lines.filter((_, i) => !defs[i]).join('');
  const used = bracketedLabels(body, meter);
  return lines
    .map((line, i) => {
      const d = defs[i];
      if (!d) return line;
      return used.has(d.label.toLowerCase()) && /^<?https?:\/\//i.test(d.url) ? `[${d.label}]: ${d.url}\n` : '';
    })
    .join('');
}

/** `^ {0,3}\[([^\[\]\n]+)\]:[ \t]*(\S*)` on one line. */
function parseDefinition(line: string): { label: string; url: string } | undefined {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 0x20) i++;
  if (line.charCodeAt(i) !== 0x5b) return undefined;
  let j = i + 1;
  // Stryker disable next-line EqualityOperator,StringLiteral: past the end line[j] is undefined and the loop ends alike; lines are split at `\n`, so none holds one before its end
  while (j < line.length && line[j] !== ']' && line[j] !== '[' && line[j] !== '\n') j++;
  if (j === i + 1 || line[j] !== ']' || line[j + 1] !== ':') return undefined;
  let k = j + 2;
  while (line[k] === ' ' || line[k] === '\t') k++;
  let u = k;
  // Stryker disable next-line EqualityOperator: a bounds check only; past the end charCodeAt is NaN, which the test after it refuses anyway
  while (u < line.length && !isSpace(line.charCodeAt(u))) u++;
  return { label: line.slice(i + 1, j), url: line.slice(k, u) };
}

/** Every `[label]` (no brackets or line end inside), lower-cased. */
function bracketedLabels(text: string, meter: WorkMeter): Set<string> {
  // Stryker disable next-line ConditionalExpression: definition labels hold no `[`, so a used label with one in it never matches a definition either way
  const stop = createNextTable(text, (c) => c === 0x5b || c === 0x5d || isLineEnd(c), meter);
  const out = new Set<string>();
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) {
    const j = stop.from(i + 1);
    // Stryker disable next-line EqualityOperator,ArithmeticOperator: past the end charCodeAt is NaN; and a label of length 0 matches no definition (parseDefinition wants one character)
    if (j < text.length && text.charCodeAt(j) === 0x5d && j > i + 1) out.add(text.slice(i + 1, j).toLowerCase());
  }
  meter.steps += text.length;
  return out;
}

/** Lines with their `\n` kept. */
export function splitLines(text: string, meter: WorkMeter): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  meter.steps += text.length;
  return lines;
}
