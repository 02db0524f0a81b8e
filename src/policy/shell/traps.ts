import type { Node } from 'web-tree-sitter';
import { excerpt } from './words.js';

/**
 * Bash constructs that run code later, out of sight of a static split: arithmetic (which evaluates
 * variables' values as expressions, so `a[$(cmd)]` held in one runs cmd), subscripts in names,
 * indirect and prompt expansions, values that hold substitution text, variables that steer later
 * commands. Pure functions of one tree-sitter node or argv; each returns why it cannot be accounted
 * for, or undefined.
 */

/** Commands that take variable names, where `name[subscript]` is arithmetic. */
const NAME_TAKERS = new Set([
  'unset',
  'read',
  'mapfile',
  'readarray',
  'getopts',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
]);

/** `unset 'a[$(id)]'`, `read 'a[...]'`, `printf -v 'a[...]'`, `[[ -v a[...] ]]`: a subscript in a name is arithmetic. */
export function nameArgumentTrap(words: readonly string[], text: string): string | undefined {
  const [name, ...args] = words;
  let names: string[];
  if (NAME_TAKERS.has(name!)) names = args;
  else if (name === 'printf' || name === 'wait')
    names = args.filter((_, i) => args[i - 1] === (name === 'printf' ? '-v' : '-p'));
  else if (name === 'test' || name === '[' || name === '[[')
    names = args.filter((a, i) => args[i - 1] === '-v' || /(^|\s)-v\s/.test(a));
  else return undefined;
  return names.some((x) => x.includes('['))
    ? `a variable name with a subscript, which bash evaluates as arithmetic: ${excerpt(text)}`
    : undefined;
}

/** -i makes every assignment arithmetic; -n makes a name a reference: both run code later. */
export function declarationTrap(
  words: readonly string[],
  literal: readonly boolean[],
  text: string,
): string | undefined {
  const flagged = words.slice(1).some((x, i) => literal[i + 1] && /^[-+][a-zA-Z]*[in]/.test(x));
  return flagged ? `a declaration with -i or -n, whose values are evaluated later: ${excerpt(text)}` : undefined;
}

// The name (a variable_name or a subscript) is an assignment's first named child.
// Stryker disable next-line OptionalChaining,StringLiteral: tree-sitter gives every variable_assignment a name
export const assignedName = (a: Node): string => a.namedChild(0)?.text ?? '';

/** A variable set to text that a later expansion could run (`PS4='$(id)'`, `x='a[$(id)]'`). */
export function assignmentTrap(assignment: Node): string | undefined {
  const value = assignment.childForFieldName('value');
  return value && valueHoldsCode(value)
    ? `a variable set to text that holds a command substitution: ${excerpt(assignment.text)}`
    : undefined;
}

/**
 * True when a variable's value holds text that a later expansion could run as code (`PS4`, an
 * arithmetic context, `${!x}`): a substitution written inside single quotes, escaped, or in ANSI-C
 * quoting (whose escapes can spell anything). Substitutions that run at assignment time are found as
 * sub-commands instead.
 */
function valueHoldsCode(value: Node): boolean {
  const stack: Node[] = [value];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const t = n.text;
    if (n.type === 'raw_string' && /\$[([{]|`/.test(t)) return true;
    if (n.type === 'ansi_c_string' && /\$[([{]|`|\\/.test(t)) return true;
    if ((n.type === 'word' || n.type === 'string_content') && /\\[$`]/.test(t)) return true;
    // Stryker disable next-line ConditionalExpression: namedChildren holds no nulls; the check is for the type
    for (const c of n.namedChildren) if (c) stack.push(c);
  }
  return false;
}

/**
 * Names that look like shell-local variables (lower case, not proxies or npm settings) do not change
 * how later commands run; anything else (PATH, LD_PRELOAD, GIT_DIR, BASH_ENV, IFS...) might.
 */
export const steersLaterCommands = (name: string): boolean =>
  !(/^[a-z_][a-z0-9_]*$/.test(name) && !/proxy|^npm_config_/.test(name) && name !== '_');

const ARITH_OK = new Set([
  'number',
  'binary_expression',
  'unary_expression',
  'parenthesized_expression',
  'ternary_expression',
  'word',
  'comment',
]);

/** `$(( ))`, `(( ))`, `for (( ))`: only literal numbers pass. */
export function arithmeticTrap(node: Node): string | undefined {
  // Stryker disable next-line ConditionalExpression: namedChildren holds no nulls; the filter is for the type
  const stack: Node[] = node.namedChildren.filter((c): c is Node => c !== null);
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (!ARITH_OK.has(n.type) || (n.type === 'word' && !/^\d+$/.test(n.text)))
      return `arithmetic on values known only at run time: ${excerpt(node.text)}`;
    // Stryker disable next-line ConditionalExpression: namedChildren holds no nulls; the check is for the type
    for (const c of n.namedChildren) if (c) stack.push(c);
  }
  return undefined;
}

/** `[[ $x -eq 1 ]]` evaluates both sides as arithmetic. */
export function testArithmeticTrap(node: Node): string | undefined {
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const op = n.childForFieldName('operator');
    // Stryker disable next-line Regex: a test_operator token always starts with its dash
    if (op && /^-(eq|ne|lt|le|gt|ge)$/.test(op.text)) {
      // Stryker disable next-line ConditionalExpression: namedChildren holds no nulls; the check is for the type
      const operands = n.namedChildren.filter((c): c is Node => c !== null && c.type !== 'test_operator');
      if (!operands.every((c) => c.type === 'number' || /^-?\d+$/.test(c.text)))
        return `an arithmetic comparison of values known only at run time: ${excerpt(node.text)}`;
    }
    // Stryker disable next-line ConditionalExpression: namedChildren holds no nulls; the check is for the type
    for (const c of n.namedChildren) if (c) stack.push(c);
  }
  return undefined;
}

export function subscriptTrap(node: Node): string | undefined {
  const index = node.childForFieldName('index');
  return index && !/^(\d+|@|\*)$/.test(index.text)
    ? `an array subscript, which bash evaluates as arithmetic: ${excerpt(node.text)}`
    : undefined;
}

/** `${!ref}` expands a name held in a variable; `${x@P}` expands a value like a prompt (running substitutions); `${x:off}` is arithmetic. */
export function expansionTrap(node: Node): string | undefined {
  // Stryker disable next-line MethodExpression,ConditionalExpression: children holds no nulls; the filter is for the type
  const kids = node.children.filter((c): c is Node => c !== null);
  const ops = kids.filter((c) => !c.isNamed).map((c) => c.text);
  // `${!prefix*}` and `${!prefix@}` list names; `${!x@Q}` is an indirect expansion transformed.
  const namelist = (ops.includes('*') || ops.includes('@')) && kids.length <= 5;
  if (ops[1] === '!' && !namelist) return `an indirect expansion: ${excerpt(node.text)}`;
  // ops[0] is `${`, so a missing `@` (index -1) looks at it and finds no P.
  // Stryker disable next-line Regex,StringLiteral: the operator after `@` is one letter; no operator is no P either
  if (/^[Pp]$/.test(ops[ops.indexOf('@') + 1] ?? ''))
    return `a prompt expansion (\${x@P}) runs substitutions held in a value: ${excerpt(node.text)}`;
  if (ops.includes(':')) {
    const after = kids.slice(kids.findIndex((c) => c.text === ':') + 1).filter((c) => c.isNamed);
    if (!after.every((c) => /^-?\d+$/.test(c.text)))
      return `a substring offset, which bash evaluates as arithmetic: ${excerpt(node.text)}`;
  }
  return undefined;
}
