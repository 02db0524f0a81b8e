/**
 * The HTML in text strangers wrote, read by an HTML5 tokenizer (parse5's, the WHATWG tokenizer
 * browsers implement), never by hand: a `>` inside a quoted attribute, `--!>` closing a comment, a
 * `</div>` inside a `<script>`, a CDATA section inside `<svg>` all read as a browser reads them.
 * What a person never sees on the page goes: comments and bogus comments (`<?x>`, `<!x>`), doctypes,
 * hidden elements with everything in them; `<img>` becomes `[image: src]`, `<details>` and
 * `<summary>` lose their wrapper, and every other tag keeps only its name and `href` (attributes are
 * never rendered as text). Everything else is copied byte for byte from the input: text, entities,
 * markdown.
 *
 * Where a hidden element ends is the one place a tokenizer alone cannot answer as a browser does
 * (the tree builder's implied end tags, foster parenting, breakouts from foreign content). The rule
 * here errs one way only: the element ends at its own end tag when every element opened inside it
 * has been closed by its own end tag; otherwise it runs on, to the end of the text if need be. So
 * where this reading and a browser's differ, the model sees less than a person, never more.
 *
 * Tag names follow CommonMark's raw-HTML rule (`[A-Za-z][A-Za-z0-9-]*`): GitHub shows anything else
 * (`<https://x.test>`, `<a@b.test>`, `Vec<T,U>`) as written, so it is kept as written. Linear in
 * the input: the tokenizer reads each character a bounded number of times (its reads are counted on
 * the work meter), and every decision here is O(1) per token.
 */
import { Tokenizer, TokenizerMode, type TokenHandler } from 'parse5';
import { RE2JS } from 're2js';
import { Pieces, type WorkMeter } from './linear-scan.js';

type TagToken = Parameters<TokenHandler['onStartTag']>[0];
type Mode = (typeof TokenizerMode)[keyof typeof TokenizerMode];
type Namespace = 'html' | 'svg' | 'math';

/** Elements whose content a browser never shows (the rendering section's `display: none` list included), or that GitHub strips. */
const INVISIBLE_ELEMENTS = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'title',
  'datalist',
  'noembed',
  'noframes',
  'rp',
]);
/** Inline styles that hide an element; `opacity: 0`, `0.0`, `00` hide, `0.5` does not. */
const HIDING_STYLE = RE2JS.compile(
  'display\\s*:\\s*none|visibility\\s*:\\s*hidden|font-size\\s*:\\s*0|opacity\\s*:\\s*0[.0]*(?:[^.0-9]|$)',
  RE2JS.CASE_INSENSITIVE,
);
/** HTML's void elements: a start tag and nothing more, whatever follows. */
const VOID = new Set([
  'area',
  'base',
  'basefont',
  'bgsound',
  'br',
  'col',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** The tree builder's switches of the tokenizer for HTML elements whose content is text. */
const TEXT_MODES: ReadonlyMap<string, Mode> = new Map<string, Mode>([
  ['title', TokenizerMode.RCDATA],
  ['textarea', TokenizerMode.RCDATA],
  ['style', TokenizerMode.RAWTEXT],
  ['xmp', TokenizerMode.RAWTEXT],
  ['iframe', TokenizerMode.RAWTEXT],
  ['noembed', TokenizerMode.RAWTEXT],
  ['noframes', TokenizerMode.RAWTEXT],
  ['noscript', TokenizerMode.RAWTEXT],
  ['script', TokenizerMode.SCRIPT_DATA],
  ['plaintext', TokenizerMode.PLAINTEXT],
]);
/** CommonMark's tag name: what GitHub passes through as HTML. */
const TAG_NAME = /^[a-z][a-z0-9-]*$/;
const UNWRAPPED = new Set(['details', 'summary']);

/** An element open inside a hidden one: its name, namespace, and the tokenizer mode its content is read in. */
interface Open {
  name: string;
  ns: Namespace;
  /** Children are HTML: an SVG foreignObject/desc/title, a MathML text or HTML integration point. */
  integration: boolean;
  mode?: Mode;
}

/** A hidden element being removed: its root and what is open inside it (the root first). */
interface Hidden {
  stack: Open[];
}

export interface HtmlRewriter {
  /** Prose: its HTML rewritten; a hidden element left open goes on into the next piece. */
  prose(text: string): string;
  /** A code block: kept as written, unless it sits inside a hidden element. */
  code(text: string): string;
}

/** One rewriter per text: a hidden element opened in one piece of prose hides what follows, code blocks included, until it ends. */
export function createHtmlRewriter(meter: WorkMeter): HtmlRewriter {
  let hidden: Hidden | undefined;
  return {
    prose(text) {
      const r = rewriteProse(text, hidden, meter);
      hidden = r.hidden;
      return r.text;
    },
    code: (text) => (hidden ? '' : text),
  };
}

function hides(t: TagToken): boolean {
  if (INVISIBLE_ELEMENTS.has(t.tagName)) return true;
  if (t.tagName === 'dialog' && !t.attrs.some((a) => a.name === 'open')) return true;
  return t.attrs.some((a) => a.name === 'hidden' || HIDING_STYLE.matcher(a.value).find());
}

const attr = (t: TagToken, name: string) => t.attrs.find((a) => a.name === name)?.value;
const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

function integrationPoint(ns: Namespace, t: TagToken): boolean {
  if (ns === 'svg') return t.tagName === 'foreignobject' || t.tagName === 'desc' || t.tagName === 'title';
  if (ns !== 'math') return false;
  if (['mi', 'mo', 'mn', 'ms', 'mtext'].includes(t.tagName)) return true;
  const encoding = attr(t, 'encoding')?.toLowerCase();
  return t.tagName === 'annotation-xml' && (encoding === 'text/html' || encoding === 'application/xhtml+xml');
}

/** The element a start tag opens under `parent` (undefined: the document's HTML). */
function openedUnder(parent: Open | undefined, t: TagToken): Open {
  const inherit = parent && parent.ns !== 'html' && !parent.integration;
  const ns: Namespace = inherit ? parent.ns : t.tagName === 'svg' ? 'svg' : t.tagName === 'math' ? 'math' : 'html';
  const mode = ns === 'html' ? TEXT_MODES.get(t.tagName) : undefined;
  return { name: t.tagName, ns, integration: integrationPoint(ns, t), ...(mode !== undefined ? { mode } : {}) };
}

/** No element: a void HTML element, or a self-closing foreign one (the tokenizer's self-closing flag counts only there). */
const opensNothing = (e: Open, t: TagToken) => (e.ns === 'html' ? VOID.has(e.name) : t.selfClosing);

/** The original spelling of a tag's name (`<String>` stays `String`), from its place in the text. */
const nameAt = (text: string, t: TagToken, closing: boolean) => {
  const from = t.location!.startOffset + (closing ? 2 : 1);
  return text.slice(from, from + t.tagName.length);
};

/** What a visible start tag becomes. */
function renderStart(text: string, t: TagToken): string {
  if (t.tagName === 'img') {
    const src = /^[^\s"'<>]*/.exec(attr(t, 'src')?.trim() ?? '')![0];
    return src ? `[image: ${src.slice(0, 300)}]` : '[image]';
  }
  if (UNWRAPPED.has(t.tagName)) return '\n';
  const href = attr(t, 'href');
  return `<${nameAt(text, t, false)}${href !== undefined ? ` href="${escapeAttr(href)}"` : ''}${t.selfClosing ? '/' : ''}>`;
}

interface ProseResult {
  text: string;
  hidden: Hidden | undefined;
}

function rewriteProse(text: string, carried: Hidden | undefined, meter: WorkMeter): ProseResult {
  const out = new Pieces(meter);
  let copied = 0;
  let hidden = carried;
  const end = (loc: { endOffset: number } | null) => Math.min(text.length, loc?.endOffset ?? text.length);
  const replace = (from: number, to: number, by: string) => {
    out.push(text.slice(copied, from));
    out.push(by);
    copied = to;
  };
  const top = () => hidden?.stack.at(-1);
  // The tokenizer reads what follows as the current element's content does (text in a <script>, CDATA in <svg>).
  const follow = (e: Open | undefined) => {
    if (e?.mode !== undefined) {
      tokenizer.state = e.mode as typeof tokenizer.state;
      tokenizer.lastStartTagName = e.name;
    }
    tokenizer.inForeignNode = (top()?.ns ?? 'html') !== 'html';
  };

  const onStartTag = (t: TagToken) => {
    const start = t.location!.startOffset;
    if (!TAG_NAME.test(t.tagName)) return; // GitHub shows it as written
    meter.steps += t.attrs.reduce((n, a) => n + a.value.length, 0);
    if (hidden) {
      const e = openedUnder(top(), t);
      if (!opensNothing(e, t)) hidden.stack.push(e);
      return follow(e);
    }
    if (hides(t)) {
      const e = openedUnder(undefined, t);
      replace(start, start, '');
      if (opensNothing(e, t)) return void (copied = end(t.location));
      hidden = { stack: [e] };
      return follow(e);
    }
    replace(start, end(t.location), renderStart(text, t));
    follow(openedUnder(undefined, t));
  };

  const onEndTag = (t: TagToken) => {
    if (!TAG_NAME.test(t.tagName)) return;
    if (!hidden) {
      const start = t.location!.startOffset;
      replace(start, end(t.location), UNWRAPPED.has(t.tagName) ? '\n' : `</${nameAt(text, t, true)}>`);
      return;
    }
    // Only the innermost open element's own end tag closes it; any other end tag changes nothing.
    if (top()?.name !== t.tagName) return;
    hidden.stack.pop();
    if (hidden.stack.length > 0) return follow(undefined);
    hidden = undefined;
    copied = end(t.location);
    follow(undefined);
  };

  const drop = (loc: { startOffset: number; endOffset: number } | null) => {
    if (!hidden && loc) replace(loc.startOffset, end(loc), '');
  };
  const handler: TokenHandler = {
    onStartTag,
    onEndTag,
    onComment: (c) => drop(c.location),
    onDoctype: (d) => drop(d.location),
    onEof: () => undefined,
    onCharacter: () => undefined,
    onNullCharacter: () => undefined,
    onWhitespaceCharacter: () => undefined,
  };
  const tokenizer = new Tokenizer({ sourceCodeLocationInfo: true }, handler);
  meterReads(tokenizer, meter);
  // A hidden element carried from the previous piece: its content goes on being read as such.
  if (hidden) follow(top());
  tokenizer.write(text, true);
  if (!hidden) out.push(text.slice(copied));
  return { text: out.toString(), hidden };
}

/** Every character the tokenizer reads (a reread after it steps back included) counts on the meter. */
function meterReads(tokenizer: Tokenizer, meter: WorkMeter): void {
  const pre = tokenizer.preprocessor;
  const advance = pre.advance.bind(pre);
  pre.advance = () => {
    meter.steps++;
    return advance();
  };
}
