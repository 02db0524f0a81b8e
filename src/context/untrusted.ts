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

/**
 * Zero-width, bidirectional-control and tag characters, plus the soft hyphen and the byte-order
 * mark. Bidi controls reorder what a reviewer sees (Trojan Source); tag characters
 * (U+E0000–U+E007F) spell ASCII invisibly and models read them.
 */
const INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/** For code (diffs): keep the evidence visible instead of silently dropping it. */
export function markInvisible(text: string): string {
  return text.replace(INVISIBLE, (ch) => `[U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

/**
 * Make prose written by a stranger safe to show the model: invisible characters and HTML comments
 * go everywhere (an unterminated `<!--` hides the rest of the page on GitHub, so it goes to the
 * end); the markdown/HTML tricks go outside fenced code blocks, where the text is shown literally.
 */
export function sanitizeUntrusted(text: string): string {
  let out = stripInvisible(text).replace(/\r\n?/g, '\n');
  // Comments go even inside code fences: where our fence detection and GitHub's renderer disagree,
  // a comment is a hiding place, and a sample loses little without it.
  out = out.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  return splitFences(out)
    .map((seg) => (seg.code ? seg.text : sanitizeProse(seg.text)))
    .join('');
}

interface Segment {
  code: boolean;
  text: string;
}

/** Splits on fenced code blocks (``` or ~~~, CommonMark's closing rule); an unclosed fence runs to the end. */
function splitFences(text: string): Segment[] {
  const lines = text.split(/(?<=\n)/);
  const segs: Segment[] = [];
  let buf = '';
  let fence: { ch: string; len: number } | undefined;
  for (const line of lines) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (!fence && m && !(m[1][0] === '`' && line.slice(m.index + m[0].length).includes('`'))) {
      if (buf) segs.push({ code: false, text: buf });
      buf = line;
      fence = { ch: m[1][0], len: m[1].length };
    } else if (fence && m && m[1][0] === fence.ch && m[1].length >= fence.len && line.trim() === m[1]) {
      segs.push({ code: true, text: buf + line });
      buf = '';
      fence = undefined;
    } else {
      buf += line;
    }
  }
  if (buf) segs.push({ code: fence !== undefined, text: buf });
  return segs;
}

/** Elements whose content the browser never shows, or that GitHub strips. */
const INVISIBLE_ELEMENTS = ['script', 'style', 'template', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math'];
const HIDING_ATTR = /\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?![.\d]*[1-9])/i;

function sanitizeProse(text: string): string {
  let out = removeHiddenElements(text);
  // Image alt text and titles are not on the page; the URL is kept so a screenshot stays findable.
  out = out.replace(/!\[(?:[^\]\\]|\\.)*\]\(\s*<?([^\s)>]*)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g, (_m, url: string) => `[image: ${url.slice(0, 300)}]`);
  out = out.replace(/!\[(?:[^\]\\]|\\.)*\]\[[^\]]*\]/g, '[image]');
  out = out.replace(/<img\b[^>]*>/gi, (tag) => {
    const src = /\bsrc\s*=\s*["']?([^"'\s>]+)/i.exec(tag)?.[1];
    return src ? `[image: ${src.slice(0, 300)}]` : '[image]';
  });
  // Link titles are tooltips: invisible until hovered.
  out = out.replace(/(\]\(\s*<?[^\s)>]*>?)\s+(?:"[^"]*"|'[^']*'|\([^)]*\))\s*\)/g, '$1)');
  out = removeLinkDefinitions(out);
  // <details>/<summary> keep their text but lose the wrapper that folds it away.
  out = out.replace(/<\/?(?:details|summary)\b[^>]*>/gi, '\n');
  // Attributes are never rendered as text (title, alt, aria-label, data-*); keep href only.
  out = out.replace(/<([a-z][a-z0-9-]*)(\s[^<>]*?)?(\/?)>/gi, (_m, tag: string, attrs: string | undefined, self: string) => {
    const href = attrs ? /\bhref\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/i.exec(attrs)?.[1] : undefined;
    return `<${tag}${href ? ` href=${href}` : ''}${self}>`;
  });
  return out.replace(/\n{3,}/g, '\n\n');
}

/**
 * Removes `<tag ...>` elements that hide their content, with everything up to the *matching*
 * close tag (nesting counted, so `<div hidden><div>x</div> secret</div>` goes whole). No close tag:
 * the browser hides the rest, so the rest goes.
 */
function removeHiddenElements(text: string): string {
  const open = /<([a-z][a-z0-9-]*)\b([^<>]*)>/gi;
  let out = text;
  let m: RegExpExecArray | null;
  // One pass: after a cut, scanning resumes where the removed element began.
  while ((m = open.exec(out))) {
    const tag = m[1].toLowerCase();
    if (!INVISIBLE_ELEMENTS.includes(tag) && !HIDING_ATTR.test(m[2])) continue;
    const selfClosing = m[2].trimEnd().endsWith('/');
    const end = selfClosing ? m.index + m[0].length : closingEnd(out, tag, m.index + m[0].length);
    out = out.slice(0, m.index) + out.slice(end);
    open.lastIndex = m.index;
  }
  return out;
}

function closingEnd(text: string, tag: string, from: number): number {
  const re = new RegExp(`<(/?)${tag}\\b[^<>]*>`, 'gi');
  re.lastIndex = from;
  let depth = 1;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    depth += m[1] ? -1 : 1;
    if (depth === 0) return m.index + m[0].length;
  }
  return text.length;
}

/**
 * Link reference definitions (`[x]: url "title"`) render as nothing; `[//]: # (text)` is the
 * classic markdown comment. Unreferenced ones go; referenced ones keep label and URL, lose the title.
 */
function removeLinkDefinitions(text: string): string {
  const def = /^ {0,3}\[([^\]\n]+)\]:[ \t]*(\S*)[^\n]*(?:\n|$)/gm;
  const body = text.replace(def, '');
  return text.replace(def, (line, label: string, url: string) => {
    const used = body.toLowerCase().includes(`[${label.toLowerCase()}]`);
    return used && /^<?https?:\/\//i.test(url) ? `[${label}]: ${url}\n` : '';
  });
}

/** Labels name a fence: lowercase words and digits only, so they cannot carry text. */
const LABEL = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A fresh nonce: 12 hex digits, unguessable by whoever wrote the text. */
export const createFenceNonce = (): string => randomBytes(6).toString('hex');

/**
 * Anything that looks like one of our fence tags (`<untrusted-…>`, `</untrusted…`), in ASCII or
 * look-alike brackets, with or without spaces: the model must never see a tag it did not get from us.
 */
const FENCE_LIKE = /[<\uFF1C\uFE64\u2039\u27E8\u3008\u276C]\s*\/?\s*untrusted/gi;

export function neutralizeFences(text: string): string {
  return text.replace(FENCE_LIKE, (m) => `(${m.slice(1).replace(/^\s+/, '')}`);
}

/**
 * `<untrusted-{label}-{nonce}>` … `</untrusted-{label}-{nonce}>`. The text inside cannot close it:
 * invisible characters are stripped and every fence-like tag inside is neutralized, and the nonce is
 * random per run. Does not sanitize markdown: callers pick `sanitizeUntrusted` (prose) or
 * `markInvisible` (code) first.
 */
export function fenceUntrusted(label: string, text: string, nonce: string = createFenceNonce()): string {
  if (!LABEL.test(label)) throw new Error(`fence label ${JSON.stringify(label)} must be lowercase words joined by '-'`);
  if (!/^[a-z0-9]{6,}$/.test(nonce)) throw new Error('fence nonce must be at least 6 lowercase letters or digits');
  const tag = `untrusted-${label}-${nonce}`;
  const body = neutralizeFences(stripInvisible(text)).replace(/\n+$/, '');
  return `<${tag}>\n${body}\n</${tag}>`;
}
