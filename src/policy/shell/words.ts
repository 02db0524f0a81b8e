import type { Node } from 'web-tree-sitter';

/**
 * What bash makes of one word, statically. `value` is the word after quote removal when bash would
 * not change it at run time; undefined when any expansion applies (parameters, substitutions,
 * globbing, tilde, braces, ANSI-C or locale quoting), so callers treat it as unknown.
 */
export function wordValue(node: Node): string | undefined {
  // quoteRemoved knows only static kinds (word, number, raw_string, string, concatenation).
  return isTranslated(node) || hasExpandingShape(node) ? undefined : quoteRemoved(node);
}

/** `$"..."` (locale translation) arrives as an anonymous `$` right before the word: `$"a"b` is one. */
const isTranslated = (node: Node): boolean => {
  const prev = node.previousSibling;
  return prev !== null && !prev.isNamed && prev.type === '$' && prev.endIndex === node.startIndex;
};

function quoteRemoved(node: Node): string | undefined {
  switch (node.type) {
    case 'word':
      // Outside quotes a backslash keeps the next character; backslash-newline disappears.
      return node.text.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
    case 'number':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string': {
      // Stryker disable next-line OptionalChaining: namedChildren holds no nulls; the `?.` is for the type
      if (!node.namedChildren.every((k) => k?.type === 'string_content')) return undefined;
      // Inside double quotes a backslash escapes only $ ` " \ and newline.
      return node.text
        .slice(1, -1)
        .replace(/\\\n/g, '')
        .replace(/\\([$`"\\])/g, '$1');
    }
    case 'concatenation': {
      let s = '';
      for (const k of node.children) {
        // An anonymous child (`$` of `x$"a"`) is syntax tree-sitter could not place: not static.
        const v = k ? quoteRemoved(k) : undefined;
        if (v === undefined) return undefined;
        s += v;
      }
      return s;
    }
  }
  return undefined; // any other kind expands or is syntax
}

/**
 * The unquoted characters of a word, escaped ones blanked, quoted parts as `_`: what globbing,
 * tilde and brace expansion look at.
 */
function skeletonOf(node: Node): string {
  if (node.type === 'word') return node.text.replace(/\\./gs, '_');
  // Stryker disable next-line StringLiteral: children holds no nulls, and text joined between the parts (no glob, tilde, brace or `(`) cannot make a shape the tests below look for
  if (node.type === 'concatenation') return node.children.map((k) => (k ? skeletonOf(k) : '_')).join('');
  return '_';
}

/** Unquoted glob characters, a leading tilde, a brace list or sequence, or an extglob group. */
function hasExpandingShape(node: Node): boolean {
  const s = skeletonOf(node);
  if (/[*?[]/.test(s) || s.startsWith('~') || /\{[^{}]*(,|\.\.)[^{}]*\}/.test(s)) return true;
  // Stryker disable next-line Regex: tree-sitter never leaves a `(` inside a word (it splits `@(a)` apart, which the splitter reports), so the extglob test is a backstop
  return /[+@!]\(/.test(s);
}

/** Every kind of text that bash scans for `$`, backticks and backslashes (the rest are quoted or syntax). */
// (Names, numbers, descriptors and test operators hold nothing the scan looks for: scanning them is harmless.)
const NOT_SCANNED = new Set([
  'raw_string',
  'ansi_c_string',
  'comment',
  'heredoc_start',
  'heredoc_end',
  'special_variable_name',
]);
/** Text inside these is double-quote-like: `<(` is not a process substitution there. (Their string_content and heredoc_content children are found quoted through them.) */
const QUOTED = new Set(['string', 'heredoc_body']);
/** Characters tree-sitter treats as blanks and bash does not. */
const NOT_BLANKS = /[\r\v\f]/;

export interface ScanFindings {
  /** Backtick substitutions tree-sitter left as plain text: their inner scripts, unescaped. */
  backticks: string[];
  /** Substitution syntax tree-sitter left as plain text, which we cannot take apart safely. */
  unparsed: string[];
}

/**
 * Looks at the text of `node` that none of its children covers (all of it for a leaf) for shell
 * syntax tree-sitter did not turn into nodes. Backticks inside `${...}` and inside here-documents
 * (the places tree-sitter is known to skip) are taken apart; any other unparsed substitution, and an
 * operator or blank inside a plain word, means tree-sitter misread the line. Over-finding is safe
 * (more is checked or asked); missing is not.
 */
export function scanUncovered(node: Node, source: string, into: ScanFindings): void {
  if (!node.isNamed) return;
  const where = contextOf(node);
  // Inside "${x:-'...'}" the single quotes are plain characters and what is between them expands.
  if (where.tooDeep) {
    // Past the limit the quotes around the text are not known, and `'$(id)'` runs inside "${x:-...}".
    into.unparsed.push(
      `text nested more than ${MAX_NESTING} levels deep, whose quoting is not followed: ${excerpt(node.text)}`,
    );
    return;
  }
  if (NOT_SCANNED.has(node.type) && !(node.type === 'raw_string' && where.quoted)) return;
  const gaps = uncoveredRanges(node);
  let i = node.startIndex;
  for (const [from, to] of gaps) {
    for (i = Math.max(i, from); i < to; i++) {
      const c = source[i]!;
      // tree-sitter takes CR, VT and FF for blanks; bash keeps them in the word, so `a\⏎` ending in
      // CR LF is `a` + CR and a new command to bash, one continued command to tree-sitter.
      if (!where.quoted && NOT_BLANKS.test(c === '\\' ? source.charAt(i + 1) : c)) {
        into.unparsed.push(
          `a carriage return, vertical tab or form feed, which bash does not read as a blank, in ${excerpt(node.text)}`,
        );
        return;
      }
      if (c === '\\') {
        // bash removes a backslash-newline even inside a word (`r\⏎m` is rm); tree-sitter splits the word there.
        if (
          !where.quoted &&
          source[i + 1] === '\n' &&
          /[^\s;&|<>()]/.test(source.charAt(i - 1)) &&
          /[^\s;&|<>()]/.test(source.charAt(i + 2))
        ) {
          into.unparsed.push(
            `a line continuation inside a word: ${excerpt(source.slice(Math.max(0, i - 20), i + 20))}`,
          );
          return;
        }
        i++;
        continue;
      }
      if (c === '`') {
        const close = closingBacktick(source, i + 1, node.endIndex);
        if (close === -1 || !where.backticksSkipped) {
          into.unparsed.push(`a backtick the parser did not read as a substitution, in ${excerpt(node.text)}`);
          return;
        }
        into.backticks.push(unescapeBackticked(source.slice(i + 1, close)));
        i = close;
        continue;
      }
      const two = source.slice(i, i + 2);
      if (two === '$(' || two === '$[' || two === '${' || (!where.quoted && (two === '<(' || two === '>('))) {
        into.unparsed.push(`"${two}" that the parser left as text in ${excerpt(node.text)}`);
        return;
      }
      if (where.plainWord && /[\s;&|<>()]/.test(c)) {
        into.unparsed.push(`a word the parser misread (${JSON.stringify(c)} inside it): ${excerpt(node.text)}`);
        return;
      }
    }
  }
}

interface TextContext {
  /** Inside double quotes or a here-document. */
  quoted: boolean;
  /** Where tree-sitter leaves backtick substitutions as text: in `${...}` words and here-document bodies. */
  backticksSkipped: boolean;
  /** An unquoted word outside `${...}`: bash would have split it at any blank or operator. */
  plainWord: boolean;
  /** More than MAX_NESTING ancestors before the nearest substitution: the context is not known. */
  tooDeep: boolean;
}

/** How far up contextOf looks for quotes and expansions, so that a deeply nested line is not read in quadratic time. */
const MAX_NESTING = 64;

function contextOf(node: Node): TextContext {
  let quoted = QUOTED.has(node.type);
  let expansion = false;
  let depth = 0;
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === 'command_substitution' || p.type === 'process_substitution') break;
    // Stryker disable next-line BooleanLiteral: with tooDeep set, scanUncovered reads none of the other fields
    if (++depth > MAX_NESTING) return { quoted, backticksSkipped: false, plainWord: false, tooDeep: true };
    if (QUOTED.has(p.type)) quoted = true;
    if (p.type === 'expansion') expansion = true;
    if (quoted && expansion) break; // nothing further up can change the context
  }
  const heredoc = node.type === 'heredoc_body' || node.type === 'heredoc_content';
  return {
    quoted,
    backticksSkipped: expansion || heredoc,
    plainWord: node.type === 'word' && !quoted && !expansion,
    tooDeep: false,
  };
}

/** The text of `node` before, between and after its children; empty ranges (adjacent children) scan nothing. */
function uncoveredRanges(node: Node): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let at = node.startIndex;
  for (const c of node.children) {
    // Stryker disable next-line ConditionalExpression: children holds no nulls; the check is for the type
    if (!c) continue;
    out.push([at, c.startIndex]);
    at = Math.max(at, c.endIndex);
  }
  out.push([at, node.endIndex]);
  return out;
}

function closingBacktick(source: string, from: number, end: number): number {
  for (let j = from; j < end; j++) {
    if (source[j] === '\\') j++;
    else if (source[j] === '`') return j;
  }
  return -1;
}

/** Inside backticks a backslash quotes only `$`, `` ` ``, `\` (and `"` within double quotes). */
const unescapeBackticked = (s: string): string => s.replace(/\\([$`\\"])/g, '$1');

export const excerpt = (s: string, max = 60): string => {
  const one = s.replace(/\s+/g, ' ').trim();
  return JSON.stringify(one.length > max ? `${one.slice(0, max - 1)}…` : one);
};
