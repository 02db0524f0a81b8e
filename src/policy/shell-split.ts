import { existsSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Language, Parser, type Node } from 'web-tree-sitter';

/** One simple command found anywhere in a command line, checked against policy on its own. */
export interface ShellPart {
  /** Source text of the command (its own assignments and arguments, not the redirections around it). */
  text: string;
  /** argv as bash would build it where that is known statically; a dynamic word keeps its source text. */
  words: string[];
  /** Which words are fully literal (no expansion, substitution or ANSI-C quoting). */
  literal: boolean[];
  /** `FOO=bar` assignments in front of the command: they change what it does (PATH, LD_PRELOAD, GIT_*). */
  assignments: string[];
  /** Output or input is redirected (`>`, `>>`, `<`, here-docs, here-strings), here or around it. */
  redirected: boolean;
}

export interface ShellSplit {
  parts: ShellPart[];
  /** The parser could not make full sense of the text, or a wrapped script could not be read statically. */
  parseError: boolean;
}

let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the bash grammar once per process. The wasm files are looked for beside the running file
 * first (the build copies both next to each bundle), then in node_modules.
 */
export function initShellParser(): Promise<void> {
  loading ??= (async () => {
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
  const beside = [here, file].join(sep);
  if (existsSync(beside)) return beside;
  for (let dir = here; ; dir = dirname(dir)) {
    const candidate = [dir, 'node_modules', packagePath].join(sep);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`cannot find ${file} beside ${here} or in any node_modules above it`);
  }
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);
/** Option clusters that only change how `-c` runs (login, errexit, xtrace, nounset, verbose). */
const WRAPPER_FLAGS = /^-[elxuv]*c[elxuv]*$/;
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
const MAX_NESTING = 8;

/** Splits a command line into every simple command it runs. Call `initShellParser()` first. */
export function splitShell(command: string): ShellSplit {
  const out: ShellSplit = { parts: [], parseError: false };
  splitInto(command, out, false, 0);
  return out;
}

function splitInto(command: string, out: ShellSplit, redirected: boolean, depth: number): void {
  if (!parser) throw new Error('shell parser not initialized: await initShellParser() first');
  if (depth > MAX_NESTING) {
    out.parseError = true;
    return;
  }
  const tree = parser.parse(command);
  if (!tree) {
    out.parseError = true;
    return;
  }
  try {
    if (tree.rootNode.hasError) out.parseError = true;
    visit(tree.rootNode, out, redirected, depth);
  } finally {
    tree.delete();
  }
}

function visit(node: Node, out: ShellSplit, redirected: boolean, depth: number): void {
  if (node.isError || node.isMissing) out.parseError = true;
  let here = redirected;
  if (node.type === 'redirected_statement' || node.type === 'command') {
    here ||= node.namedChildren.some((c) => c !== null && REDIRECTS.has(c.type));
  }
  if (node.type === 'command') {
    const part = partOf(node, here);
    if (!unwrap(part, out, depth)) out.parts.push(part);
  } else if (node.type === 'declaration_command' || node.type === 'unset_command' || node.type === 'test_command') {
    out.parts.push(partOf(node, here));
  }
  for (const child of node.namedChildren) if (child) visit(child, out, here, depth);
}

function partOf(node: Node, redirected: boolean): ShellPart {
  const words: string[] = [];
  const literal: boolean[] = [];
  const assignments: string[] = [];
  const add = (n: Node) => {
    const value = literalOf(n);
    words.push(value ?? n.text);
    literal.push(value !== undefined);
  };
  if (node.type !== 'command') {
    // export/declare/local/unset/[[ ]]: the keyword is the first (anonymous) child.
    const first = node.child(0);
    if (first) {
      words.push(first.text);
      literal.push(!first.isNamed);
    }
  }
  for (const child of node.namedChildren) {
    if (!child || REDIRECTS.has(child.type) || child.type === 'comment') continue;
    if (child.type === 'variable_assignment' && node.type === 'command') assignments.push(child.text);
    else if (child.type === 'command_name') add(child.namedChild(0) ?? child);
    else add(child);
  }
  const text = node.namedChildren
    .filter((c): c is Node => c !== null && !REDIRECTS.has(c.type))
    .map((c) => c.text)
    .join(' ');
  return { text: node.type === 'command' ? text : node.text, words, literal, assignments, redirected };
}

/**
 * `bash -c 'script'`, `sh -lc "..."`, `eval 'a; b'`: the script is split as a command line of its own and
 * its parts replace the wrapper. A script that is not a literal string cannot be read, which counts
 * as a parse error (never allowed by a prefix rule).
 */
function unwrap(part: ShellPart, out: ShellSplit, depth: number): boolean {
  if (part.assignments.length > 0 || !part.literal[0]) return false;
  const name = part.words[0]!;
  if (name === 'eval') {
    if (!part.literal.every(Boolean)) out.parseError = true;
    else splitInto(part.words.slice(1).join(' '), out, part.redirected, depth + 1);
    return true;
  }
  if (!SHELLS.has(name.slice(name.lastIndexOf('/') + 1))) return false;
  let i = 1;
  while (i < part.words.length && part.literal[i] && /^-[elxuv]+$/.test(part.words[i]!) && !WRAPPER_FLAGS.test(part.words[i]!)) i++;
  if (i >= part.words.length || !part.literal[i] || !WRAPPER_FLAGS.test(part.words[i]!)) return false;
  const script = i + 1;
  if (script >= part.words.length || !part.literal[script]) {
    out.parseError = true;
    return true;
  }
  splitInto(part.words[script]!, out, part.redirected, depth + 1);
  return true;
}

/** The value bash gives a word when it needs no expansion; undefined when it does. */
function literalOf(node: Node): string | undefined {
  switch (node.type) {
    case 'word':
      // Outside quotes a backslash keeps the next character; backslash-newline disappears.
      return node.text.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
    case 'number':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string': {
      const kids = node.namedChildren;
      if (!kids.every((k) => k?.type === 'string_content')) return undefined;
      // Inside double quotes a backslash escapes only $ ` " \ and newline.
      return node.text.slice(1, -1).replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1');
    }
    case 'concatenation': {
      let s = '';
      for (const k of node.namedChildren) {
        const v = k ? literalOf(k) : undefined;
        if (v === undefined) return undefined;
        s += v;
      }
      return s;
    }
    default:
      return undefined;
  }
}
