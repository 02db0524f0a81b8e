import { existsSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Node, Parser, Tree } from 'web-tree-sitter';
import { isQuotedHeredoc } from './redirects.js';
import { AgentError } from '../../common/errors.js';

/** Loading the bash grammar, and parsing a command line as bash reads it (backslash-newlines joined first). */

let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the bash grammar once per process. The wasm files are looked for beside the running file
 * and in each folder above it (the build puts one copy in dist/, which the CLI in dist/cli/ shares),
 * and in node_modules. web-tree-sitter itself is imported here too, not at start-up: only a shell
 * command needs it, and a policy decision on one awaits it.
 */
export function loadBashGrammar(): Promise<void> {
  loading ??= (async () => {
    const { Language, Parser } = await import('web-tree-sitter');
    const runtime = locateWasm('web-tree-sitter.wasm', 'web-tree-sitter/web-tree-sitter.wasm');
    await Parser.init({ locateFile: (name: string) => (name.endsWith('.wasm') ? runtime : name) });
    const bash = await Language.load(locateWasm('tree-sitter-bash.wasm', 'tree-sitter-bash/tree-sitter-bash.wasm'));
    const p = new Parser();
    p.setLanguage(bash);
    parser = p;
  })().catch((e: unknown) => {
    loading = undefined; // let a later call try again
    throw e;
  });
  return loading;
}

function locateWasm(file: string, packagePath: string): string {
  // Built by string, not `new URL(template, import.meta.url)`, and without createRequire: ncc
  // treats the first as an asset pattern (copying whole folders into dist/) and breaks the second.
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    for (const candidate of [[dir, file].join(sep), [dir, 'node_modules', packagePath].join(sep)])
      if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir)
      throw new AgentError(
        'internal',
        `cannot find ${file} in ${here}, any folder above it or their node_modules (a broken install or bundle)`,
      );
  }
}

/** A command line's tree, and the text it was parsed from (the command without its line continuations). */
export interface ParsedShell {
  tree: Tree;
  source: string;
}

/**
 * Parses a command line the way bash reads it; the caller deletes the tree. Undefined when the
 * parser gives up. Throws when `loadBashGrammar()` has not finished.
 */
export function parseShell(command: string): ParsedShell | undefined {
  if (!parser) throw new AgentError('internal', 'the bash grammar is not loaded: await loadBashGrammar() first');
  let tree = parser.parse(command);
  // bash drops every backslash-newline outside single quotes, comments and quoted here-documents
  // before it reads words (`r\⏎m` is rm; `E\⏎OF` ends a here-document); tree-sitter does not.
  for (let round = 0; tree && round < 4; round++) {
    const joined = joinContinuations(tree.rootNode, command);
    if (joined === undefined) break;
    // Stryker disable next-line CallExpression: frees the old tree's wasm memory; no result depends on it
    tree.delete();
    command = joined;
    tree = parser.parse(command);
  }
  // Stryker disable next-line ConditionalExpression: parse gives up only when cancelled or out of time, and neither is ever asked for
  return tree ? { tree, source: command } : undefined;
}

/** Where a backslash-newline stays as written. */
const KEEPS_CONTINUATIONS = new Set(['raw_string', 'ansi_c_string', 'comment']);

/**
 * In "${x:-'a'}" tree-sitter sees a single-quoted string; bash sees two quote characters. A command
 * substitution quotes afresh; a process substitution does not count: within double quotes `<(` is
 * text to bash, and outside them no string encloses it.
 */
function insideDoubleQuotes(n: Node): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'string') return true;
    if (p.type === 'command_substitution') return false;
  }
  return false;
}

/** `source` without the backslash-newlines bash would remove, or undefined when there are none. */
function joinContinuations(root: Node, source: string): string | undefined {
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; the walk finds no cut in such text and answers the same
  if (!source.includes('\\\n')) return undefined;
  // Stryker disable next-line ArrayDeclaration: a non-number first cut slices as 0 and is passed over, giving the same text
  const cut: number[] = [];
  const walk = (n: Node): void => {
    if (
      (KEEPS_CONTINUATIONS.has(n.type) && !(n.type === 'raw_string' && insideDoubleQuotes(n))) ||
      (n.type === 'heredoc_body' && isQuotedHeredoc(n))
    )
      return;
    let at = n.startIndex;
    const scan = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        if (source[i] !== '\\') continue;
        if (source[i + 1] === '\n') cut.push(i);
        i++;
      }
    };
    for (const c of childrenOf(n)) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: scanning an empty or reversed range does nothing
      if (c.startIndex > at) scan(at, c.startIndex);
      walk(c);
      at = Math.max(at, c.endIndex);
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: scanning an empty or reversed range does nothing
    if (n.endIndex > at) scan(at, n.endIndex);
  };
  walk(root);
  // Stryker disable next-line ConditionalExpression: with no cut the text comes back unchanged, and parses to the same tree again
  if (cut.length === 0) return undefined;
  let out = '';
  let from = 0;
  // Stryker disable next-line MethodExpression,ArrowFunction,ArithmeticOperator: the walk meets the text in order, so the cuts are sorted already
  for (const i of cut.sort((a, b) => a - b)) {
    out += source.slice(from, i);
    from = i + 2;
  }
  return out + source.slice(from);
}

// Stryker disable next-line MethodExpression: a live node's children are never null; the filter is for the type
export const childrenOf = (n: Node): Node[] => n.children.filter((c): c is Node => !!c);
// Stryker disable next-line MethodExpression: a live node's children are never null; the filter is for the type
export const namedOf = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => !!c);
