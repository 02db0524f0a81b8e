import retModule, { type Token, type Tokens } from 'ret';
import { messageOf } from '../common/errors.js';

export type RegexCheck = { ok: true; regex: RegExp } | { ok: false; message: string };

/** Patterns longer than this are refused outright, as Gemini CLI does. */
const MAX_PATTERN_LENGTH = 2048;

/**
 * Compiles a rule's pattern and refuses ones that can backtrack exponentially: a repeated group that
 * contains another repetition (`(a+)+`, `(\w*)*`, `(x+x+)+`), i.e. star height above 1, measured on the
 * pattern's parse tree (the `ret` tokenizer), not by a regex over its text. `?` and small bounded counts are
 * not repetitions here: `(-[a-z]+)?` is linear. Not caught: exponential alternation such as `(a|a)*`.
 */
export function checkRegex(pattern: string): RegexCheck {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (e) {
    // Stryker disable next-line Regex: equivalent; V8's message always begins with "Invalid regular expression: ", so the first occurrence is the start either way
    return {
      ok: false,
      message: `invalid regular expression: ${messageOf(e).replace(/^Invalid regular expression: /, '')}`,
    };
  }
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return {
      ok: false,
      message: `regular expression is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}`,
    };
  }
  let tree: Tokens;
  try {
    // The tokenizer does not know lookbehind; as a plain group it has the same star height.
    tree = tokenize()(pattern.replace(/\(\?<([=!])/g, '(?:'));
  } catch (e) {
    return {
      ok: false,
      message: `regular expression could not be checked for catastrophic backtracking: ${messageOf(e)}`,
    };
  }
  if (starHeight(tree) > 1) {
    return {
      ok: false,
      message: `catastrophic regular expression /${pattern}/: a repeated group contains another repetition (like (a+)+), which can take exponential time; rewrite it without nested quantifiers`,
    };
  }
  return { ok: true, regex };
}

const SMALL_BOUND = 16;

/** ret is CommonJS: under Node's ESM loader its default import is the exports object, under bundlers the function. */
type Tokenize = (pattern: string) => Tokens;
function tokenize(): Tokenize {
  const m = retModule as unknown as Tokenize | { default: Tokenize };
  // Stryker disable next-line ConditionalExpression: equivalent under vitest, whose loader always gives the function; Node's own ESM loader (dist/, gemini-parity) gives the object
  return typeof m === 'function' ? m : m.default;
}

/** ret's token type numbers (its `types` enum, which Node's ESM loader cannot import by name). */
const ROOT = 0;
const GROUP = 1;
const REPETITION = 5;

function starHeight(t: Tokens): number {
  switch (t.type) {
    case ROOT:
    case GROUP: {
      // Stryker disable next-line ArrayDeclaration: unreachable; ret gives every root and group a stack or options
      const seqs: Token[][] = t.options ?? (t.stack ? [t.stack] : []);
      return Math.max(0, ...seqs.flatMap((s) => s.map(starHeight)));
    }
    case REPETITION:
      // Small bounded counts (`{2}`, `{1,3}`) multiply work by a constant; `*`, `+` and big bounds do not.
      return starHeight(t.value) + (t.max > SMALL_BOUND ? 1 : 0);
    default:
      return 0;
  }
}
