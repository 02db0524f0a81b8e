import type { Node } from 'web-tree-sitter';
import { wordValue } from './shell-words.js';

/** Redirections as bash reads them: which ones write a file, and what a here-document feeds a shell. */

export type StdinScript = { kind: 'none' } | { kind: 'text'; script: string } | { kind: 'dynamic' };

export const isQuotedHeredoc = (body: Node): boolean => {
  const start = body.parent?.children.find((c) => c?.type === 'heredoc_start');
  return start !== undefined && start !== null && /['"\\]/.test(start.text);
};

/** The text a here-document feeds, when it is static: quoted, or free of `$`, backticks and backslashes. */
export function heredocScript(body: Node | undefined): StdinScript {
  if (!body) return { kind: 'text', script: '' };
  if (isQuotedHeredoc(body) || !/[`$\\]/.test(body.text)) return { kind: 'text', script: body.text };
  return { kind: 'dynamic' };
}

export interface FileRedirect {
  write: boolean;
  stdinFile: boolean;
  target: Node | undefined;
  path: string | undefined;
  extra: Node[];
}

/** `>`, `>>`, `>|`, `&>`, `&>>`, `<>` and `>&file` write; `<`, `>&2`/`<&0` (descriptors) and `>&-` (closing one) do not. */
export function classifyFileRedirect(r: Node): FileRedirect {
  const kids = r.children.filter((c): c is Node => c !== null);
  const opIndex = kids.findIndex((c) => !c.isNamed);
  const op = opIndex >= 0 ? kids[opIndex]!.text : '';
  // tree-sitter reads `<>` as `<` followed by an ERROR holding `>`.
  const readWrite = op === '<' && kids.some((c) => c.isError && c.text.trim() === '>');
  const operands = kids.slice(opIndex + 1).filter((c) => c.isNamed && !c.isError && c.type !== 'file_descriptor');
  const target = operands[0];
  const path = target ? wordValue(target) : undefined;
  const extra = operands.slice(1);
  const fd = path !== undefined && /^(\d+|-)$/.test(path);
  // `>&-` and `<&-` (one token to tree-sitter) close a descriptor: nothing is written.
  const closes = op === '>&-' || op === '<&-';
  const write = !closes && (readWrite || (op.includes('>') && !((op === '>&' || op === '<&') && fd)));
  const stdinFile = op === '<' && !readWrite && !(r.namedChildren[0]?.type === 'file_descriptor' && r.namedChildren[0]?.text !== '0');
  return { write, stdinFile, target, path, extra };
}
