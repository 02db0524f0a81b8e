import type { Decision } from './types.js';
import type { ShellPart } from './shell/split.js';

/**
 * A `commandPrefix` as written in a policy file. Gemini CLI turns each prefix into a pattern over the
 * JSON text of the command: the prefix, JSON-encoded, followed by whitespace, the end of the command,
 * or a double quote. We match the same commands by meaning: the prefix read as bash words (quotes
 * removed, so `git commit -m "fix"` names argv [git, commit, -m, fix]) must equal the first words of
 * the sub-command's argv. Where the prefix is not plain words (an unclosed quote, `$HOME`), and for
 * deny and ask_user rules always, Gemini CLI's text match applies as well.
 */
export interface CommandPrefix {
  source: string;
  /** The prefix as argv; undefined when it is not plain words. */
  words?: readonly string[];
  /** Why it is not plain words, for the load warning. */
  problem?: string;
}

export function parseCommandPrefix(source: string): CommandPrefix {
  const r = wordsOf(source);
  return typeof r === 'string' ? { source, problem: r } : { source, words: r };
}

/** Bash quote removal for plain words; a reason string when something would expand or is unbalanced. */
function wordsOf(s: string): string[] | string {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return 'it has an unclosed single quote';
      cur += s.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < s.length && s[j] !== '"'; j++) {
        if (s[j] === '\\' && '$`"\\\n'.includes(s[j + 1] ?? '')) j++;
        else if (s[j] === '$' || s[j] === '`') return 'it has an expansion inside double quotes';
        cur += s[j];
      }
      if (j >= s.length) return 'it has an unclosed double quote';
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= s.length) return 'it ends with a backslash';
      cur += s[++i];
    } else if (/[$`*?[{~;&|<>()#]/.test(c) && !(c === '#' && cur !== '') && !(c === '~' && cur !== '')) {
      return `it has ${JSON.stringify(c)}, which bash would expand or treat as syntax`;
    } else cur += c;
  }
  if (inWord) words.push(cur);
  return words.length > 0 ? words : 'it is empty';
}

/** A shell sub-command as a prefix sees it: the part, and whether the command line changed the environment before it. */
export interface PrefixTarget {
  readonly part: ShellPart;
  readonly environmentChanged?: boolean;
}

/**
 * Whether prefix `p` (parsed once, when its rule is compiled) names the start of `t.part`. `decision`
 * is the rule's: allow rules match only by meaning (whole words, a known command, no assignments in front); deny and ask_user rules also match
 * Gemini CLI's way, by text, so that a rule written against Gemini CLI never asks or denies less here.
 * `t` is the subject itself in the policy's inner loop (a Subject with a part), so no call allocates.
 */
export function prefixMatches(p: CommandPrefix, t: PrefixTarget, decision: Decision): boolean {
  const part = t.part;
  const known = part.assignments.length === 0 && t.environmentChanged !== true;
  // Assignments in front (`A=1 git push`) keep an allow rule from vouching for the command, but
  // never hide it from a deny or ask_user rule.
  if (p.words && (known || decision !== 'allow') && wordsLead(p.words, part)) return true;
  if (decision !== 'allow') return textMatches(p.source, part.text, SPACE_OR_QUOTE);
  // An allow rule whose prefix is not plain words keeps Gemini CLI's text match, minus its one laxity:
  // `git log` followed by `"out"` is `git logout`, so a quote does not end the prefix here.
  return p.words === undefined && known && textMatches(p.source, part.text, SPACE);
}

function wordsLead(words: readonly string[], part: ShellPart): boolean {
  if (words.length > part.words.length) return false;
  for (let i = 0; i < words.length; i++) if (!part.literal[i] || part.words[i] !== words[i]) return false;
  return true;
}

const SPACE_OR_QUOTE = /[\s"]/;
const SPACE = /\s/;

const textMatches = (prefix: string, text: string, boundary: RegExp): boolean =>
  text.startsWith(prefix) && (text.length === prefix.length || boundary.test(text[prefix.length]!));

/** Quotes a word so that `parseCommandPrefix` reads it back unchanged (for rules added by "always" approvals). */
export function quoteWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
