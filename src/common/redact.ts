/**
 * The one redactor: every secret value a run knows, replaced by `***` in whatever leaves it (model
 * requests, tool results, comments, reviews, commit messages, log lines). A hostile model that read
 * a secret posts it transformed, so each secret is also matched as
 * - reversed, and URL-encoded (any mix of `%XX` escapes and plain characters: read decoded);
 * - hex, lower or upper case;
 * - base64 and base64url at each of the 3 byte alignments a secret can have inside a longer encoded
 *   text (actions/checkout's header is base64 of `x-access-token:` + the token): the characters
 *   that depend on the secret alone, plus the one on each side that holds some of its bits;
 * - split over lines (`base64` wraps at 76 columns, `xxd -p` at 60): line breaks are read through.
 * Encodings of encodings, ciphers or a secret cut in pieces get through: redaction is the last line;
 * the first is that no process the model starts gets a secret.
 *
 * Linear: each form is found by `indexOf` in one or two views of the text, so the cost is the
 * text's length times the number of forms (about ten a secret), never a backtracking pattern.
 */

/**
 * Values shorter than this are not redacted: a 4-digit PIN or a word would blank every number or
 * mention of it. Every credential a run holds is longer (GitHub's tokens 40 characters and more,
 * Gemini's keys 39, the runner's JWTs hundreds).
 */
export const MIN_SECRET_LENGTH = 8;

const MASK = '***';

interface Form {
  text: string;
  /** Characters of this alphabet that carry bits of the secret just before and after (base64). */
  before: number;
  after: number;
  alphabet?: RegExp;
}

interface Compiled {
  /** Looked for in the text with line breaks removed. */
  forms: Form[];
  /** The secret and its reverse as UTF-8 bytes, one character per byte: looked for in the URL-decoded text. */
  decoded: string[];
}

const BASE64_CHAR = /[A-Za-z0-9+/=]/;
const BASE64URL_CHAR = /[A-Za-z0-9_=-]/;

const reverse = (s: string) => [...s].reverse().join('');

/** The characters of `bytes`' base64, behind `pad` other bytes, that depend on `bytes` alone. */
function base64Core(bytes: Buffer, pad: 0 | 1 | 2): { core: string; before: number; after: number } {
  const encoded = Buffer.concat([Buffer.alloc(pad), bytes])
    .toString('base64')
    .replace(/=+$/, '');
  const n = pad + bytes.length;
  const start = [0, 2, 3][pad];
  const end = Math.floor((n * 4) / 3);
  return { core: encoded.slice(start, end), before: pad === 0 ? 0 : 1, after: n % 3 === 0 ? 0 : 1 };
}

function compile(secret: string): Compiled {
  const bytes = Buffer.from(secret, 'utf8');
  const reversed = reverse(secret);
  const plain = [secret, reversed, encodeURIComponent(secret), encodeURIComponent(reversed)];
  const forms: Form[] = plain.map((text) => ({ text, before: 0, after: 0 }));
  for (const hex of [bytes.toString('hex'), Buffer.from(reversed, 'utf8').toString('hex')])
    forms.push({ text: hex, before: 0, after: 0 }, { text: hex.toUpperCase(), before: 0, after: 0 });
  for (const pad of [0, 1, 2] as const) {
    const { core, before, after } = base64Core(bytes, pad);
    forms.push({ text: core, before, after, alphabet: BASE64_CHAR });
    const url = core.replace(/\+/g, '-').replace(/\//g, '_');
    if (url !== core) forms.push({ text: url, before, after, alphabet: BASE64URL_CHAR });
  }
  const seen = new Set<string>();
  return {
    forms: forms.filter((f) => f.text.length >= MIN_SECRET_LENGTH && !seen.has(f.text) && seen.add(f.text)),
    decoded: [...new Set([bytes.toString('latin1'), Buffer.from(reversed, 'utf8').toString('latin1')])],
  };
}

/** The compiled forms of the last few secret lists (a run has one or two): compiling is the expensive part. */
const compiledLists = new Map<string, Compiled[]>();

function compiledFor(secrets: readonly string[]): Compiled[] {
  const usable = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))];
  const key = usable.join('\0');
  let c = compiledLists.get(key);
  if (!c) {
    c = usable.map(compile);
    if (compiledLists.size >= 8) compiledLists.delete(compiledLists.keys().next().value!);
    compiledLists.set(key, c);
  }
  return c;
}

/** Every secret of `secrets` (and its encodings, see above) in `text` replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return text.length < MIN_SECRET_LENGTH || secrets.length === 0 ? text : redactorFor(secrets)(text);
}

/** redactSecrets for many texts against one list (every string of a model request): the forms are looked up once. */
export function redactorFor(secrets: readonly string[]): (text: string) => string {
  const compiled = compiledFor(secrets);
  return (text) => (text.length < MIN_SECRET_LENGTH || compiled.length === 0 ? text : redactCompiled(text, compiled));
}

function redactCompiled(text: string, compiled: readonly Compiled[]): string {
  const ranges: Array<[number, number]> = [];
  const view = withoutLineBreaks(text);
  for (const c of compiled) for (const f of c.forms) findForm(view, f, ranges);
  if (/%[0-9A-Fa-f]{2}/.test(text)) {
    const decoded = urlDecodedView(text);
    for (const c of compiled)
      for (const d of c.decoded) findIn(decoded.text, d, (at) => ranges.push(decoded.toOriginal(at, at + d.length)));
  }
  return ranges.length === 0 ? text : masked(text, ranges);
}

/** Calls `found` at every start of `needle` in `hay` (overlapping ones too). */
function findIn(hay: string, needle: string, found: (at: number) => void): void {
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) found(at);
}

/** One form's matches in the view, as ranges of the original text, widened over its edge characters. */
function findForm(view: LineBreakView, f: Form, ranges: Array<[number, number]>): void {
  findIn(view.text, f.text, (at) => {
    let start = at;
    let end = at + f.text.length;
    for (let i = 0; i < f.before && start > 0 && f.alphabet!.test(view.text[start - 1]); i++) start--;
    for (let i = 0; i < f.after && end < view.text.length && f.alphabet!.test(view.text[end]); i++) end++;
    // Base64's padding after the last character that holds bits of the secret.
    if (f.alphabet) while (end < view.text.length && view.text[end] === '=') end++;
    ranges.push([view.toOriginal(start), view.toOriginal(end - 1) + 1]);
  });
}

interface LineBreakView {
  text: string;
  /** Index in the original text of the view's character at `i`. */
  toOriginal(i: number): number;
}

/** The text with CR and LF removed, and the way back to original positions (by the breaks before). */
function withoutLineBreaks(text: string): LineBreakView {
  const breaks: number[] = [];
  // Each of CR and LF is searched once from where the last one was found: linear in the text.
  let lf = text.indexOf('\n');
  let cr = text.indexOf('\r');
  while (lf >= 0 || cr >= 0) {
    const at = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
    breaks.push(at - breaks.length);
    if (at === lf) lf = text.indexOf('\n', at + 1);
    else cr = text.indexOf('\r', at + 1);
  }
  if (breaks.length === 0) return { text, toOriginal: (i) => i };
  return {
    text: text.replace(/[\r\n]/g, ''),
    // breaks[k] is where the k-th removed character would sit in the view: before view index i
    // there are as many removed characters as entries up to i.
    toOriginal: (i) => i + countBelow(breaks, i + 1),
  };
}

interface DecodedView {
  text: string;
  /** The original range of the view's characters from `start` to `end` (exclusive). */
  toOriginal(start: number, end: number): [number, number];
}

/** `%XX` decoded to the byte it names (one character per byte), and the way back (by the escapes before). */
function urlDecodedView(text: string): DecodedView {
  // Where each escape sits in the view: its original index is that plus 2 for every escape before it.
  const escapes: number[] = [];
  const decoded = text.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string, offset: number) => {
    escapes.push(offset - 2 * escapes.length);
    return String.fromCharCode(parseInt(hex, 16));
  });
  const original = (i: number) => i + 2 * countBelow(escapes, i);
  const isEscape = (i: number) => escapes[countBelow(escapes, i)] === i;
  return {
    text: decoded,
    toOriginal: (start, end) => [original(start), original(end - 1) + (isEscape(end - 1) ? 3 : 1)],
  };
}

/** How many entries of the sorted `a` are below x (its index in `a`, when it is there). */
function countBelow(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The text with the (merged) ranges replaced by one mask each. */
function masked(text: string, ranges: Array<[number, number]>): string {
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  let i = 0;
  while (i < ranges.length) {
    const start = ranges[i][0];
    let end = ranges[i][1];
    for (i++; i < ranges.length && ranges[i][0] <= end; i++) end = Math.max(end, ranges[i][1]);
    out += text.slice(at, start) + MASK;
    at = end;
  }
  return out + text.slice(at);
}
