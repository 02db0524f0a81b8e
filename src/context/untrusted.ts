/**
 * Text written by strangers (issue bodies, comments, diffs) reaches the model only through here:
 * `sanitizeUntrusted` removes what a maintainer reading the rendered page would not see, and
 * `fenceUntrusted` wraps it in delimiters the text cannot forge or close.
 *
 * The rule behind every step: the model should see no more than a person sees on GitHub. Hidden
 * text (HTML comments, invisible characters, alt text, hidden elements, tooltips, unused link
 * definitions) is where instructions aimed at the model are smuggled.
 */
import { randomBytes } from 'node:crypto';
import { createNextTable, createWorkMeter, isSpace, matchesAt, Pieces, type WorkMeter } from './linear-scan.js';
import { createHtmlRewriter } from './untrusted-html.js';
import {
  dropLinkTitles,
  removeLinkDefinitions,
  replaceInlineImages,
  replaceReferenceImages,
  splitLines,
} from './untrusted-markdown.js';
import { AgentError } from '../common/errors.js';

/**
 * Zero-width, bidirectional-control and tag characters, plus the soft hyphen and the byte-order
 * mark. Bidi controls reorder what a reviewer sees (Trojan Source); tag characters
 * (U+E0000–U+E007F) spell ASCII invisibly and models read them.
 */
const INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/** For code (diffs): keep the evidence visible instead of silently dropping it. */
export function markInvisible(text: string): string {
  return text.replace(INVISIBLE, (ch) => `[U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

/**
 * No piece of text is worked on beyond this many characters: past it, the rest is cut before any
 * scan (with a visible note), so the work per piece is bounded whatever a stranger posts.
 */
export const MAX_UNTRUSTED_CHARS = 256 * 1024;

export interface SanitizeOptions {
  /** Counts the characters examined (tests assert the work is linear). */
  meter?: WorkMeter;
  /** Input cap before any work; default MAX_UNTRUSTED_CHARS. */
  maxChars?: number;
}

/**
 * Make prose written by a stranger safe to show the model: invisible characters and HTML comments
 * go everywhere (an unterminated `<!--` hides the rest of the page on GitHub, so it goes to the
 * end); the markdown/HTML tricks go outside fenced code blocks, where the text is shown literally
 * (unless a hidden element around them hides them too). Linear in the text's length: every step is
 * a single pass (the HTML tokenizer's in untrusted-html.ts, the markdown ones in untrusted-markdown.ts).
 */
export function sanitizeUntrusted(text: string, o: SanitizeOptions = {}): string {
  const meter = o.meter ?? createWorkMeter();
  const { text: input, cut } = cutRaw(text, o.maxChars ?? MAX_UNTRUSTED_CHARS);
  meter.steps += input.length * 2;
  // Single-character classes only: these two replaces are linear in V8.
  let out = stripInvisible(input).replace(/\r\n?/g, '\n');
  // Comments go even inside code fences: where our fence detection and GitHub's renderer disagree,
  // a comment is a hiding place, and a sample loses little without it. A plain search from `<!--`
  // to `-->` (a superset of what a browser reads as one) here; the HTML tokenizer reads prose.
  out = removeHtmlComments(out, meter);
  const html = createHtmlRewriter(meter);
  const body = splitFences(out, meter)
    .map((seg) => (seg.code ? html.code(seg.text) : sanitizeProse(html.prose(seg.text), meter)))
    .join('');
  return cut > 0 ? `${body}\n${cutNote(cut)}` : body;
}

/** `[... N characters cut ...]`: the one way a cut is shown to the model and to people. */
export const cutNote = (n: number): string => `[... ${n} characters cut ...]`;

/** The first `max` characters (never splitting a surrogate pair) and how many were dropped. */
export function cutRaw(text: string, max: number): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return { text: text.slice(0, end), cut: text.length - end };
}

/** `<!--` ... `-->` removed; an unterminated one takes the rest of the text with it. */
function removeHtmlComments(text: string, meter: WorkMeter): string {
  const out = new Pieces(meter);
  let copied = 0;
  for (let i = text.indexOf('<!--'); i >= 0; i = text.indexOf('<!--', copied)) {
    out.push(text.slice(copied, i));
    const close = text.indexOf('-->', i + 4);
    copied = close < 0 ? text.length : close + 3;
  }
  out.push(text.slice(copied));
  meter.steps += text.length;
  return out.toString();
}

interface Segment {
  code: boolean;
  text: string;
}

/** Splits on fenced code blocks (``` or ~~~, CommonMark's closing rule); an unclosed fence runs to the end. */
function splitFences(text: string, meter: WorkMeter): Segment[] {
  const segs: Segment[] = [];
  let buf: string[] = [];
  let fence: { ch: string; len: number } | undefined;
  for (const line of splitLines(text, meter)) {
    const run = fenceRun(line);
    if (!fence && run && !(run.ch === '`' && line.slice(run.end).includes('`'))) {
      if (buf.length) segs.push({ code: false, text: buf.join('') });
      buf = [line];
      fence = { ch: run.ch, len: run.len };
    } else if (
      fence &&
      run &&
      run.ch === fence.ch &&
      run.len >= fence.len &&
      line.trim() === line.slice(run.end - run.len, run.end)
    ) {
      buf.push(line);
      segs.push({ code: true, text: buf.join('') });
      buf = [];
      fence = undefined;
    } else {
      buf.push(line);
    }
  }
  if (buf.length) segs.push({ code: fence !== undefined, text: buf.join('') });
  return segs;
}

/**
 * `^ {0,3}(`{3,}|~{3,})` on one line, by hand. CommonMark's fences are indented by three spaces at
 * most: with four, or a tab, the line is code or text, not a fence, and reading it as one would keep
 * hidden HTML after it (or take later text for code).
 */
function fenceRun(line: string): { ch: string; len: number; end: number } | undefined {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 0x20) i++;
  const ch = line[i];
  if (ch !== '`' && ch !== '~') return undefined;
  let j = i;
  while (line[j] === ch) j++;
  return j - i >= 3 ? { ch, len: j - i, end: j } : undefined;
}

/** The markdown tricks, on prose whose HTML is already rewritten (untrusted-html.ts). */
function sanitizeProse(text: string, meter: WorkMeter): string {
  // Image alt text and titles are not on the page; the URL is kept so a screenshot stays findable.
  let out = replaceInlineImages(text, meter);
  out = replaceReferenceImages(out, meter);
  out = dropLinkTitles(out, meter);
  out = removeLinkDefinitions(out, meter);
  meter.steps += out.length;
  return out.replace(/\n{3,}/g, '\n\n');
}

/** Labels name a fence: lowercase words and digits only, so they cannot carry text. */
const LABEL = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A fresh nonce: 12 hex digits, unguessable by whoever wrote the text. */
export const createFenceNonce = (): string => randomBytes(6).toString('hex');

/**
 * Anything that looks like one of our fence tags (`<untrusted-…>`, `</untrusted…`), in ASCII or
 * look-alike brackets, with or without spaces: the model must never see a tag it did not get from
 * us. The bracket becomes `(`. A scan by hand: `<\s*\/?\s*untrusted` as a regex is quadratic on a
 * `<` followed by a long run of spaces.
 */
const FENCE_BRACKETS = new Set([0x3c, 0xff1c, 0xfe64, 0x2039, 0x27e8, 0x3008, 0x276c]);

export function neutralizeFences(text: string, meter: WorkMeter = createWorkMeter()): string {
  const nonSpace = createNextTable(text, (c) => !isSpace(c), meter);
  const out = new Pieces(meter);
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    if (!FENCE_BRACKETS.has(text.charCodeAt(i))) continue;
    const afterSpace = nonSpace.from(i + 1);
    let j = afterSpace;
    if (text.charCodeAt(j) === 0x2f) j = nonSpace.from(j + 1);
    if (!matchesAt(text, j, 'untrusted')) continue;
    out.push(text.slice(copied, i));
    out.push('(');
    copied = afterSpace;
  }
  meter.steps += text.length;
  out.push(text.slice(copied));
  return out.toString();
}

/** The text without its trailing line feeds (a regex `\n+$` is quadratic on inner runs). */
function trimTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end--;
  return text.slice(0, end);
}

/**
 * `<untrusted-{label}-{nonce}>` … `</untrusted-{label}-{nonce}>`. The text inside cannot close it:
 * invisible characters are stripped and every fence-like tag inside is neutralized, and the nonce is
 * random per run. Does not sanitize markdown: callers pick `sanitizeUntrusted` (prose) or
 * `markInvisible` (code) first.
 */
export function fenceUntrusted(label: string, text: string, nonce: string = createFenceNonce()): string {
  if (!LABEL.test(label))
    throw new AgentError('internal', `fence label ${JSON.stringify(label)} must be lowercase words joined by '-'`);
  if (!/^[a-z0-9]{6,}$/.test(nonce))
    throw new AgentError('internal', 'fence nonce must be at least 6 lowercase letters or digits');
  const tag = `untrusted-${label}-${nonce}`;
  const body = trimTrailingNewlines(neutralizeFences(stripInvisible(text)));
  return `<${tag}>\n${body}\n</${tag}>`;
}
