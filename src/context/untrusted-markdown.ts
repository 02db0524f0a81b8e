/**
 * The Markdown tricks of sanitizeUntrusted, each a linear pass over the text: image alt text, link
 * titles, unused link definitions (HTML is read by a real tokenizer: untrusted-html.ts). Every
 * "where does this end" question goes through a table from linear-scan.ts (O(1) each), so a comment
 * of 30,000 `![` or one `![](` followed by 60,000 spaces costs as much as any other text of its length.
 */
import {
  createBracketCloseTable,
  createNextTable,
  isLineEnd,
  isSpace,
  Pieces,
  type NextTable,
  type WorkMeter,
} from './linear-scan.js';

const LT = 0x3c;
const GT = 0x3e;

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
