/**
 * What the model writes is posted by the action's account, in threads strangers open: it must not
 * page anyone, forge the action's own markers, or hide text from the people reading it.
 *
 * - Mentions: `@name` and `@org/team` get a zero-width space (U+200B) after the `@`. GitHub's
 *   mention filter wants `@` followed directly by a login character, so `@\u200Bname` renders as
 *   the text "@name" but neither links nor notifies. This is the form Dependabot posts in release
 *   notes it copies (`@\u200Bname`, in its LinkAndMentionSanitizer) and Renovate as `@&#8203;name`.
 *   Backticks would neutralize too, but they change how the text looks and break inside an
 *   existing code span; the zero-width space is invisible. Past a per-run budget, the `@` goes.
 * - Markers: complete HTML comments are removed (hidden text has no business in a public comment,
 *   and `<!-- agent-action:approval ... -->` is how later runs find an approval question); every
 *   `<!--` left over is escaped, so no marker survives in any form, inside code or out.
 * - Code: inside a fenced block GitHub shows text literally and never links mentions, so code the
 *   model quotes (`@Override`, `@types/node`) stays byte for byte, but only in fences we are sure
 *   GitHub agrees are fences: at column 0, not inside an HTML block. HTML blocks that would run
 *   past a blank line (`<pre`, `<script`, `<style>`, `<textarea>`, `<?`, `<!X`) are escaped, so
 *   a fence the action appends after the model's text (a suggestion) is always a fence.
 *
 * Linear in the text: one pass per step, no backtracking regex.
 */
import { isWordChar } from '../../context/linear-scan.js';

/** Neutralized mentions kept per run; the rest lose their `@`. */
const MAX_MENTIONS_PER_RUN = 10;

const ZWSP = '\u200B';

/** How many more `@handles` may be shown (neutralized) in this run's published text. */
export interface MentionBudget {
  left: number;
  /** Handles seen in the model's text, kept or not. */
  seen: number;
}

export const createMentionBudget = (max: number = MAX_MENTIONS_PER_RUN): MentionBudget => ({ left: max, seen: 0 });

/** The model's Markdown, made safe to post: see the module comment. */
export function makeInert(text: string, budget?: MentionBudget): string {
  const noComments = escapeCommentOpeners(removeHtmlComments(text));
  const out: string[] = [];
  let fence: { ch: string; len: number } | undefined;
  let htmlOpen = false;
  for (const line of noComments.split('\n')) {
    if (fence) {
      out.push(line);
      if (isClosingFence(line, fence)) fence = undefined;
      continue;
    }
    const run = !htmlOpen ? openingFence(line) : undefined;
    if (run) {
      fence = run;
      out.push(line);
      continue;
    }
    const safe = escapeLongHtmlBlock(line);
    if (safe.trim() === '') htmlOpen = false;
    else if (startsHtmlBlock(safe)) htmlOpen = true;
    out.push(neutralizeMentions(safe, budget));
  }
  // An unclosed fence would swallow what the action appends (its marker, a suggestion).
  if (fence) out.push(fence.ch.repeat(fence.len));
  return out.join('\n');
}

/** A one-line text (a title): mentions and markers neutralized, no budget. */
export const makeInertLine = (text: string): string =>
  neutralizeMentions(escapeCommentOpeners(removeHtmlComments(text)).replace(/[\r\n]+/g, ' '), undefined);

/** Every complete `<!-- ... -->` removed (what it hid was never meant to be read). */
function removeHtmlComments(text: string): string {
  const parts: string[] = [];
  let copied = 0;
  for (let i = text.indexOf('<!--'); i >= 0; i = text.indexOf('<!--', copied)) {
    const close = text.indexOf('-->', i + 4);
    // Stryker disable next-line EqualityOperator: close is at least i + 4 when found, never 0
    if (close < 0) break; // unterminated: left for escapeCommentOpeners, so the rest stays visible
    parts.push(text.slice(copied, i));
    copied = close + 3;
  }
  parts.push(text.slice(copied));
  return parts.join('');
}

/** Any `<!--` left (unterminated, or formed by a removal) shown as text. Cannot form a new one. */
const escapeCommentOpeners = (text: string): string => text.split('<!--').join('&lt;!--');

/** A fence opener GitHub cannot read as anything else: column 0, ``` or ~~~, no backtick in a ``` info string. */
function openingFence(line: string): { ch: string; len: number } | undefined {
  const ch = line[0];
  if (ch !== '`' && ch !== '~') return undefined;
  let n = 0;
  while (line[n] === ch) n++;
  if (n < 3) return undefined;
  if (ch === '`' && line.slice(n).includes('`')) return undefined;
  return { ch, len: n };
}

/** CommonMark's closing fence: up to 3 spaces, the same character at least as many times, spaces only after. */
function isClosingFence(line: string, fence: { ch: string; len: number }): boolean {
  let i = 0;
  while (i < 3 && line[i] === ' ') i++;
  let n = 0;
  while (line[i + n] === fence.ch) n++;
  return n >= fence.len && line.slice(i + n).trim() === '';
}

/** Up to 3 spaces, then `<` and a letter or `/`: an HTML block may start here, and runs to a blank line. */
function startsHtmlBlock(line: string): boolean {
  let i = 0;
  while (i < 3 && line[i] === ' ') i++;
  if (line[i] !== '<') return false;
  const c = line.charCodeAt(i + 1);
  return c === 0x2f || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** HTML blocks of CommonMark kinds 1-5 run past blank lines: their `<` is escaped instead. */
const LONG_HTML_BLOCK = /^ {0,3}<(?=(?:script|pre|style|textarea)(?:[\s>]|$)|\?|![A-Za-z]|!\[CDATA\[)/i;

function escapeLongHtmlBlock(line: string): string {
  // Anchored, fixed-length lookahead: constant work per line.
  // Stryker disable next-line MethodExpression: every opener the pattern knows ends by index 12, so the whole line matches alike; the slice bounds the work
  const m = LONG_HTML_BLOCK.exec(line.slice(0, 16));
  return m ? `${line.slice(0, m[0].length - 1)}&lt;${line.slice(m[0].length)}` : line;
}

/** `&#64;`, `&#x40;` (leading zeros allowed) and `&commat;`: an `@` once rendered. */
const AT_ENTITY = /&(?:#0*64|#[xX]0*40|commat);/g;

const isLoginStart = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/**
 * `@name` where GitHub would see a mention: after the start or a character that is not an ASCII
 * word character (GitHub's `\W`), followed by a letter or digit. E-mail addresses (`a@b.c`) are
 * left alone. Within budget: `@\u200Bname`; beyond it: `name`.
 */
function neutralizeMentions(raw: string, budget: MentionBudget | undefined): string {
  // `&#64;name` renders as `@name` and GitHub's filter reads rendered text: an `@` it is.
  // Stryker disable next-line StringLiteral: the includes test is a fast path; replacing in a text without '&' changes nothing
  const text = raw.includes('&') ? raw.replace(AT_ENTITY, '@') : raw;
  const parts: string[] = [];
  let copied = 0;
  for (let i = text.indexOf('@'); i >= 0; i = text.indexOf('@', i + 1)) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: at i = 0, charCodeAt(-1) is NaN, which is no word character either; the test says what is meant
    if (i > 0 && isWordChar(text.charCodeAt(i - 1))) continue;
    if (!isLoginStart(text.charCodeAt(i + 1))) continue;
    parts.push(text.slice(copied, i));
    if (budget) budget.seen++;
    if (!budget || budget.left > 0) {
      parts.push(`@${ZWSP}`);
      if (budget) budget.left--;
    }
    copied = i + 1;
  }
  parts.push(text.slice(copied));
  return parts.join('');
}

/** A fence the content cannot close: one backtick longer than its longest run (at least three). */
export function fenceFor(content: string): string {
  let longest = 0;
  let run = 0;
  // Stryker disable next-line EqualityOperator: content[content.length] is undefined, which resets the run and changes nothing
  for (let i = 0; i < content.length; i++) {
    run = content[i] === '`' ? run + 1 : 0;
    // Stryker disable next-line EqualityOperator: taking an equal run again leaves longest the same
    if (run > longest) longest = run;
  }
  return '`'.repeat(Math.max(3, longest + 1));
}
