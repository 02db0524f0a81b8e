/**
 * Glob patterns (the model's `glob`, `include_pattern` and `ignore` arguments, and the lines of
 * .gitignore/.geminiignore files, which the model can write) translated to RE2 syntax, so matching
 * runs in linear time. picomatch and the `ignore` package compile globs to backtracking regexes:
 * `*a*a*a*a*a*a*a*a*b` against a short name takes picomatch seconds, and the gitignore line
 * `a/**` + `/**`×6 + `/b` takes `ignore` minutes on one short path, with the event loop (and
 * the run's deadline timer) blocked all the while.
 *
 * Paths use `/`. `*` and `?` never match `/`; `**` as a whole segment matches any number of
 * segments (zero included); dotfiles match like any name. Glob flavour adds `{a,b}`, `{1..5}` and
 * the extglobs `@(a|b)`, `+(…)`, `*(…)`, `?(…)`; gitignore flavour has neither (git treats them
 * literally). `!(…)` (a negated extglob) has no linear-time form and is refused.
 */

export type GlobFlavour = 'glob' | 'gitignore';

/** Patterns longer than this are refused (the translation and the automaton grow with it). */
const MAX_GLOB_CHARS = 1024;
/** A brace range like `{1..5}` expands to at most this many alternatives. */
const MAX_RANGE = 256;

export class GlobSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobSyntaxError';
  }
}

/** RE2 source matching whole paths (add `^(?:` … `)$` or anchor the match). */
export function translateGlob(glob: string, flavour: GlobFlavour): string {
  if (glob.length > MAX_GLOB_CHARS) throw new GlobSyntaxError(`pattern is longer than ${MAX_GLOB_CHARS} characters`);
  return new Translator(glob, flavour).run(0, glob.length);
}

const quote = (ch: string) => (/[\\^$.|?*+()[\]{}]/.test(ch) ? `\\${ch}` : ch);

class Translator {
  constructor(
    private readonly g: string,
    private readonly flavour: GlobFlavour,
  ) {}

  /** Translates g[from, to). */
  run(from: number, to: number): string {
    const g = this.g;
    let out = '';
    let i = from;
    while (i < to) {
      const ch = g[i];
      if (ch === '\\') {
        out += i + 1 < to ? quote(g[i + 1]) : '\\\\';
        i += 2;
      } else if (
        ch === '/' &&
        this.flavour === 'glob' &&
        i > from &&
        g[i + 1] === '*' &&
        g[i + 2] === '*' &&
        /^\*+$/.test(g.slice(i + 1, to))
      ) {
        // Glob `a/**` also matches `a` itself (picomatch's reading); gitignore's does not (git's).
        out += '(?:/.*)?';
        i = to;
      } else if (ch === '*' && g[i + 1] === '*') {
        const r = this.globstar(i, from, to);
        out += r.re;
        i = r.next;
      } else if (this.flavour === 'glob' && '@+*?!'.includes(ch) && g[i + 1] === '(') {
        const r = this.extglob(i, to);
        out += r.re;
        i = r.next;
      } else if (ch === '*') {
        out += '[^/]*';
        i++;
      } else if (ch === '?') {
        out += '[^/]';
        i++;
      } else if (ch === '[') {
        const r = this.bracket(i, to);
        out += r.re;
        i = r.next;
      } else if (ch === '{' && this.flavour === 'glob') {
        const r = this.brace(i, to);
        out += r.re;
        i = r.next;
      } else {
        out += quote(ch);
        i++;
      }
    }
    return out;
  }

  /** `**`: a whole segment matches any number of segments; inside a segment it is a `*`. */
  private globstar(i: number, from: number, to: number): { re: string; next: number } {
    const g = this.g;
    let j = i;
    while (j < to && g[j] === '*') j++;
    const atStart = i === from || g[i - 1] === '/';
    const atEnd = j === to || g[j] === '/';
    if (!atStart || !atEnd) return { re: '[^/]*', next: j };
    // `a/**`: everything below a; a lone `**`: everything.
    if (j === to) return { re: '.*', next: j };
    // `**/`: zero or more whole segments, then what follows.
    let k = j + 1;
    while (g.startsWith('**/', k)) k += 3; // `**/**/` is `**/`
    return { re: '(?:.*/)?', next: k };
  }

  /** `[...]` character class (never `/`); no closing `]`: a literal `[`. */
  private bracket(i: number, to: number): { re: string; next: number } {
    const g = this.g;
    let j = i + 1;
    let negate = false;
    if (g[j] === '!' || g[j] === '^') {
      negate = true;
      j++;
    }
    let body = '';
    let first = true;
    while (j < to && (g[j] !== ']' || first)) {
      const c = g[j];
      if (c === '[' && g[j + 1] === ':') {
        const close = g.indexOf(':]', j + 2);
        if (close > 0 && close < to && /^[a-z]+$/.test(g.slice(j + 2, close))) {
          body += g.slice(j, close + 2);
          j = close + 2;
          first = false;
          continue;
        }
      }
      if (c === '\\' && j + 1 < to) {
        body += `\\${g[j + 1]}`;
        j += 2;
      } else {
        body += c === '-' && !first && g[j + 1] !== ']' ? '-' : /[\]\\^[-]/.test(c) ? `\\${c}` : c;
        j++;
      }
      first = false;
    }
    if (j >= to) return { re: '\\[', next: i + 1 };
    // A class never matches the separator: added to a negated class, dropped from a plain one.
    if (negate) return { re: `[^/${body}]`, next: j + 1 };
    const plain = body.replace(/(^|[^\\])\//g, '$1');
    return { re: plain ? `[${plain}]` : '[^\\s\\S]', next: j + 1 };
  }

  /** `{a,b}` alternatives, `{1..5}` ranges; anything else literal. */
  private brace(i: number, to: number): { re: string; next: number } {
    const close = this.matching(i, to, '{}');
    if (close < 0) return { re: '\\{', next: i + 1 };
    const parts = this.splitTop(i + 1, close, ',');
    if (parts.length > 1) return { re: `(?:${parts.map(([a, b]) => this.run(a, b)).join('|')})`, next: close + 1 };
    const range = expandRange(this.g.slice(i + 1, close));
    if (range) return { re: `(?:${range.map(quoteAll).join('|')})`, next: close + 1 };
    return { re: `\\{${this.run(i + 1, close)}\\}`, next: close + 1 };
  }

  /** `@(a|b)` and friends. */
  private extglob(i: number, to: number): { re: string; next: number } {
    const kind = this.g[i];
    const close = this.matching(i + 1, to, '()');
    if (close < 0) return { re: quote(kind), next: i + 1 };
    if (kind === '!')
      throw new GlobSyntaxError('negated extglob !(…) is not supported; match the files you want instead');
    const alts = this.splitTop(i + 2, close, '|').map(([a, b]) => this.run(a, b));
    const q = kind === '@' ? '' : kind;
    return { re: `(?:${alts.join('|')})${q}`, next: close + 1 };
  }

  /** Index of the bracket closing the one at i (nesting counted, escapes skipped), or -1; `pair` is the opening and closing bracket. */
  private matching(i: number, to: number, pair: '{}' | '()'): number {
    const [open, close] = pair;
    let depth = 0;
    for (let j = i; j < to; j++) {
      const c = this.g[j];
      if (c === '\\') j++;
      else if (c === open) depth++;
      else if (c === close && --depth === 0) return j;
    }
    return -1;
  }

  /** Top-level pieces of g[from, to) split on `sep` (not inside braces, parens or brackets). */
  private splitTop(from: number, to: number, sep: string): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let depth = 0;
    let start = from;
    for (let j = from; j < to; j++) {
      const c = this.g[j];
      if (c === '\\') j++;
      else if (c === '{' || c === '(' || c === '[') depth++;
      else if ((c === '}' || c === ')' || c === ']') && depth > 0) depth--;
      else if (c === sep && depth === 0) {
        out.push([start, j]);
        start = j + 1;
      }
    }
    out.push([start, to]);
    return out;
  }
}

const quoteAll = (s: string) => [...s].map(quote).join('');

/** `1..5`, `-2..2`, `a..e` (at most MAX_RANGE items), else undefined. */
function expandRange(body: string): string[] | undefined {
  const num = /^(-?\d+)\.\.(-?\d+)$/.exec(body);
  const chr = /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(body);
  const [a, b] = num
    ? [Number(num[1]), Number(num[2])]
    : chr
      ? [chr[1].charCodeAt(0), chr[2].charCodeAt(0)]
      : [NaN, NaN];
  if (Number.isNaN(a) || Math.abs(b - a) >= MAX_RANGE) return undefined;
  const out: string[] = [];
  for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? 1 : -1) out.push(num ? String(v) : String.fromCharCode(v));
  return out;
}
