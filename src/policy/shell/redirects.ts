import type { Node } from 'web-tree-sitter';
import { wordValue } from './words.js';

/** Redirections as bash reads them: which ones write a file, and what a here-document feeds a shell. */

export type StdinScript = { kind: 'none' } | { kind: 'text'; script: string } | { kind: 'dynamic' };

export const isQuotedHeredoc = (body: Node): boolean => {
  // Stryker disable next-line OptionalChaining: a here-document body always hangs on its redirection, whose children are never null
  const start = body.parent?.children.find((c) => c?.type === 'heredoc_start');
  // Stryker disable next-line OptionalChaining,StringLiteral: tree-sitter gives every here-document body a heredoc_start
  return /['"\\]/.test(start?.text ?? '');
};

/** The text a here-document feeds, when it is static: quoted, or free of `$`, backticks and backslashes. */
export function heredocScript(body: Node | undefined): StdinScript {
  if (!body) return { kind: 'text', script: '' };
  if (isQuotedHeredoc(body) || !/[`$\\]/.test(body.text)) return { kind: 'text', script: body.text };
  return { kind: 'dynamic' };
}

/** The operator of a redirection (`>`, `<&`, `<<-`...): its first anonymous child. */
const operatorOf = (kids: readonly Node[]): number => kids.findIndex((c) => !c.isNamed);

/**
 * True when a redirection replaces standard input: it names descriptor 0, or names none and reads
 * (`<`, `<&`, `<&-`, `<>`, here-documents, here-strings). `3<<EOF` feeds descriptor 3: a shell
 * reading its script still reads the standard input it was given.
 */
export function replacesStdin(r: Node): boolean {
  // Stryker disable next-line MethodExpression,ConditionalExpression: children holds no nulls; the filter is for the type
  const kids = r.children.filter((c): c is Node => c !== null);
  const fd = kids.find((c) => c.type === 'file_descriptor');
  // Stryker disable next-line OptionalChaining,StringLiteral,ConditionalExpression: every redirection tree-sitter builds has an operator token; and tree-sitter-bash never makes a file_descriptor of `0` (it reads `0<` as a number argument, which the splitter refuses), so `fd.text === '0'` is a guard for a grammar that does
  return fd ? fd.text === '0' : (kids[operatorOf(kids)]?.text ?? '').startsWith('<');
}

export interface FileRedirect {
  write: boolean;
  stdinFile: boolean;
  target: Node | undefined;
  path: string | undefined;
  extra: Node[];
}

/** tree-sitter reads `<>` as `<` followed by an ERROR holding `>`. */
const isStrayGreater = (c: Node): boolean =>
  // Stryker disable next-line MethodExpression: an ERROR node spans its tokens only, never the blanks around them; trim() is a guard
  c.isError && c.text.trim() === '>';

/** `>`, `>>`, `>|`, `&>`, `&>>`, `<>` and `>&file` write; `<`, `>&2`/`<&0` (descriptors) and `>&-` (closing one) do not. */
export function classifyFileRedirect(r: Node): FileRedirect {
  // Stryker disable next-line MethodExpression,ConditionalExpression: children holds no nulls; the filter is for the type
  const kids = r.children.filter((c): c is Node => c !== null);
  const opIndex = operatorOf(kids);
  // Stryker disable next-line OptionalChaining,StringLiteral: every redirection tree-sitter builds has an operator token
  const op = kids[opIndex]?.text ?? '';
  const readWrite = op === '<' && kids.some(isStrayGreater);
  // After the operator: the descriptor (`2>`) comes before it.
  const operands = kids.slice(opIndex + 1).filter((c) => c.isNamed && !c.isError);
  const target = operands[0];
  const path = target ? wordValue(target) : undefined;
  const extra = operands.slice(1);
  // Stryker disable next-line ConditionalExpression: the test of undefined (as "undefined") fails the same way
  const fd = path !== undefined && /^(\d+|-)$/.test(path);
  // `>&-` (one token to tree-sitter) closes a descriptor: nothing is written. `<&` and `<&-` never
  // write; only `>&` is told apart by its word (a descriptor or a file).
  const write = op !== '>&-' && (readWrite || (op.includes('>') && !(op === '>&' && fd)));
  return { write, stdinFile: replacesStdin(r), target, path, extra };
}
