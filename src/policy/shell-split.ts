import { existsSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Node, Parser } from 'web-tree-sitter';
import { isSink } from './shell-paths.js';
import { classifyFileRedirect, heredocScript, isQuotedHeredoc, replacesStdin, type FileRedirect, type StdinScript } from './shell-redirects.js';
import { arithmeticTrap, assignedName, assignmentTrap, declarationTrap, expansionTrap, nameArgumentTrap, steersLaterCommands, subscriptTrap, testArithmeticTrap } from './shell-traps.js';
import { excerpt, scanUncovered, wordValue, type ScanFindings } from './shell-words.js';
import { unwrapCommand, type Argv, type WrapAction } from './shell-wrappers.js';
import { AgentError } from '../common/errors.js';

/** One simple command found anywhere in a command line, checked against policy on its own. */
export interface ShellPart {
  /** Its source text (Gemini CLI's sub-command text): what `commandRegex` and reasons see. */
  text: string;
  /** argv as bash would build it where that is known statically; a dynamic word keeps its source text. */
  words: string[];
  /** Which words are fully static (no expansion, substitution, globbing, ANSI-C quoting). */
  literal: boolean[];
  /** `FOO=bar` assignments in front of the command (or given to `env`): they change what it does. */
  assignments: string[];
  /** Some redirection applies to it (`>`, `<`, here-documents, `2>&1`), here or around it. */
  redirected: boolean;
  /** One of those redirections writes a file (not /dev/null and its kin). */
  writesFile: boolean;
}

/** A file a redirection opens for writing: its source text and, when static, its value. */
interface WriteTarget {
  text: string;
  path?: string;
}

export interface ShellSplit {
  parts: ShellPart[];
  /** What the splitter could not account for, for people; non-empty means "never allowed by command text". */
  unknowns: string[];
  /** Every file a redirection writes. */
  writes: WriteTarget[];
  /** Some part changes the working directory, so later relative paths are not known. */
  changesDirectory: boolean;
  /** A standalone assignment (or loop variable) sets a variable that may be in the environment. */
  changesEnvironment: boolean;
}

let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the bash grammar once per process. The wasm files are looked for beside the running file
 * and in each folder above it (the build puts one copy in dist/, which the CLI in dist/cli/ shares),
 * and in node_modules. web-tree-sitter itself is imported here too, not at start-up: only a shell
 * command needs it.
 */
export function initShellParser(): Promise<void> {
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
    for (const candidate of [[dir, file].join(sep), [dir, 'node_modules', packagePath].join(sep)]) if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new AgentError('internal', `cannot find ${file} in ${here}, any folder above it or their node_modules (a broken install or bundle)`);
  }
}

const MAX_NESTING = 8;
const CACHE_SIZE = 256;
const cache = new Map<string, ShellSplit>();

/**
 * Splits a command line into every simple command it runs, and says what it could not account for.
 * Call `initShellParser()` first. Results are cached per command string and must not be changed.
 */
export function splitShell(command: string): ShellSplit {
  const hit = cache.get(command);
  if (hit) {
    cache.delete(command); // most recently used goes last
    cache.set(command, hit);
    return hit;
  }
  const out: ShellSplit = { parts: [], unknowns: [], writes: [], changesDirectory: false, changesEnvironment: false };
  splitInto(command, { out, redirected: false, writesFile: false, depth: 0 });
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(command, out);
  return out;
}

interface Walk {
  out: ShellSplit;
  /** A redirection around the statement being walked applies to the commands in it. */
  redirected: boolean;
  writesFile: boolean;
  depth: number;
}

interface Script {
  source: string;
  w: Walk;
}

function splitInto(command: string, w: Walk): void {
  if (!parser) throw new AgentError('internal', 'the bash grammar is not loaded: prepare the policy engine for this call (engine.prepare) first');
  if (w.depth > MAX_NESTING) {
    w.out.unknowns.push(`commands nested more than ${MAX_NESTING} levels deep`);
    return;
  }
  let tree = parser.parse(command);
  // bash drops every backslash-newline outside single quotes, comments and quoted here-documents
  // before it reads words (`r\⏎m` is rm; `E\⏎OF` ends a here-document); tree-sitter does not.
  for (let round = 0; tree && round < 4; round++) {
    const joined = joinContinuations(tree.rootNode, command);
    if (joined === undefined) break;
    tree.delete();
    command = joined;
    tree = parser.parse(command);
  }
  if (!tree) {
    w.out.unknowns.push('a command line the parser gave up on');
    return;
  }
  try {
    const before = w.out.unknowns.length;
    visit(tree.rootNode, { source: command, w });
    // A MISSING token is anonymous and can hide from the walk over named nodes.
    if (tree.rootNode.hasError && w.out.unknowns.length === before) w.out.unknowns.push(`text that does not parse as bash: ${excerpt(command)}`);
  } finally {
    tree.delete();
  }
}

const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
/** Where a backslash-newline stays as written. */
const KEEPS_CONTINUATIONS = new Set(['raw_string', 'ansi_c_string', 'comment']);

/** In "${x:-'a'}" tree-sitter sees a single-quoted string; bash sees two quote characters. */
function insideDoubleQuotes(n: Node): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'string') return true;
    if (p.type === 'command_substitution' || p.type === 'process_substitution') return false;
  }
  return false;
}

/** `source` without the backslash-newlines bash would remove, or undefined when there are none. */
function joinContinuations(root: Node, source: string): string | undefined {
  if (!source.includes('\\\n')) return undefined;
  const cut: number[] = [];
  const walk = (n: Node): void => {
    if ((KEEPS_CONTINUATIONS.has(n.type) && !(n.type === 'raw_string' && insideDoubleQuotes(n))) || (n.type === 'heredoc_body' && isQuotedHeredoc(n))) return;
    let at = n.startIndex;
    const scan = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        if (source[i] !== '\\') continue;
        if (source[i + 1] === '\n') cut.push(i);
        i++;
      }
    };
    for (const c of n.children) {
      if (!c) continue;
      if (c.startIndex > at) scan(at, c.startIndex);
      walk(c);
      at = Math.max(at, c.endIndex);
    }
    if (n.endIndex > at) scan(at, n.endIndex);
  };
  walk(root);
  if (cut.length === 0) return undefined;
  let out = '';
  let from = 0;
  for (const i of cut.sort((a, b) => a - b)) {
    out += source.slice(from, i);
    from = i + 2;
  }
  return out + source.slice(from);
}

const CHDIR = new Set(['cd', 'pushd', 'popd']);
/** Unquoted, these are never command names in bash; a command named so means tree-sitter misread the line. */
const RESERVED = new Set(['{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', 'in', 'function', 'select', '!', '[[', ']]']);

function visit(node: Node, s: Script): void {
  const { out } = s.w;
  if (node.isError) out.unknowns.push(`text that does not parse as bash: ${excerpt(node.text)}`);
  else if (node.isMissing) out.unknowns.push(`an incomplete command (missing "${node.type}")`);
  if (node.type === 'heredoc_body' && isQuotedHeredoc(node)) return; // bash expands nothing in it
  scanText(node, s);
  switch (node.type) {
    case 'file_redirect':
      // Redirections are taken apart where their statement is; one met anywhere else still counts.
      noteFileRedirect(node, s);
      return;
    case 'comment':
      return checkComment(node, s);
    case 'command':
      return visitCommand(node, s, []);
    case 'redirected_statement':
      return visitRedirected(node, s);
    case 'variable_assignment':
      note(s.w, assignmentTrap(node));
      noteAssignedName(assignedName(node), s.w);
      break;
    case 'declaration_command':
    case 'unset_command':
    case 'test_command':
      visitBuiltinStatement(node, s);
      break;
    case 'arithmetic_expansion':
    case 'c_style_for_statement':
      note(s.w, arithmeticTrap(node));
      break;
    case 'compound_statement':
      if (node.child(0)?.type === '((') note(s.w, arithmeticTrap(node));
      break;
    case 'subscript':
      note(s.w, subscriptTrap(node));
      break;
    case 'expansion':
      note(s.w, expansionTrap(node));
      break;
    case 'for_statement': {
      const v = node.childForFieldName('variable');
      if (v) noteAssignedName(v.text, s.w);
      break;
    }
    case 'command_substitution':
    case 'process_substitution':
      if (node.type === 'command_substitution' && splitBacktickedAgain(node, s)) return;
      // Its commands write to a pipe, not to the redirections around the statement.
      for (const c of node.namedChildren) if (c) visit(c, { ...s, w: { ...s.w, redirected: false, writesFile: false } });
      return;
  }
  for (const c of node.namedChildren) if (c) visit(c, s);
}

/** Substitution syntax tree-sitter left as text: backticks are split as scripts; the rest cannot be read. */
function scanText(node: Node, s: Script): void {
  // tree-sitter sometimes swallows `` ` ` `` into one anonymous token (`2>&1` `c`): never a real delimiter.
  if (node.children.some((c) => c !== null && !c.isNamed && c.type.includes('`') && c.type !== '`')) {
    s.w.out.unknowns.push(`backticks the parser misread, in ${excerpt(node.text)}`);
  }
  const found: ScanFindings = { backticks: [], unparsed: [] };
  scanUncovered(node, s.source, found);
  s.w.out.unknowns.push(...found.unparsed);
  for (const script of found.backticks) splitInto(script, { ...s.w, redirected: false, writesFile: false, depth: s.w.depth + 1 });
}

/**
 * Inside backticks bash first removes the backslash before `$`, `` ` `` and `\\` (and `"` within
 * double quotes), then parses what is left; tree-sitter parses the text as written. When a backslash
 * is there, the unescaped text is split again instead (`` `a "\`b\`"` `` runs b).
 */
function splitBacktickedAgain(node: Node, s: Script): boolean {
  const open = node.child(0);
  const close = node.child(node.childCount - 1);
  if (!open || !close || open.type !== '`' || close === open) return false;
  const inner = s.source.slice(open.endIndex, close.startIndex);
  if (!inner.includes('\\')) return false;
  const quoted = node.parent?.type === 'string';
  const script = inner.replace(quoted ? /\\([$`\\"])/g : /\\([$`\\])/g, '$1');
  splitInto(script, { ...s.w, redirected: false, writesFile: false, depth: s.w.depth + 1 });
  return true;
}

/** tree-sitter and bash must agree on where a comment starts: after a blank or an operator. */
function checkComment(node: Node, s: Script): void {
  const before = node.startIndex === 0 ? ' ' : s.source[node.startIndex - 1]!;
  if (!/[\s;&|()]/.test(before)) s.w.out.unknowns.push(`a "#" the parser took for a comment: ${excerpt(node.text)}`);
}

function visitRedirected(node: Node, s: Script): void {
  const redirects = node.namedChildren.filter((c): c is Node => c !== null && REDIRECTS.has(c.type));
  const body = node.namedChildren.find((c): c is Node => c !== null && !REDIRECTS.has(c.type));
  const r = noteRedirects(redirects, s);
  const w: Walk = { ...s.w, redirected: s.w.redirected || redirects.length > 0, writesFile: s.w.writesFile || r.writesFile };
  if (body?.type === 'command') {
    scanText(body, s);
    visitCommand(body, { ...s, w }, r.extraWords, r.stdin);
  } else {
    if (r.extraWords.length > 0) s.w.out.unknowns.push(`words after a redirection of a compound command: ${excerpt(node.text)}`);
    if (body) visit(body, { ...s, w });
  }
}

interface RedirectInfo {
  writesFile: boolean;
  /** tree-sitter puts `b` of `echo a > f b` into the redirection; bash gives it to the command. */
  extraWords: Node[];
  /** What a shell reading its script from stdin would read, when a here-document or here-string says so. */
  stdin: StdinScript;
}

/** Records the files these redirections write and walks their words for substitutions. */
function noteRedirects(redirects: readonly Node[], s: Script, info: RedirectInfo = { writesFile: false, extraWords: [], stdin: { kind: 'none' } }): RedirectInfo {
  for (const r of redirects) {
    scanText(r, s);
    if (r.type === 'heredoc_redirect') {
      const body = r.namedChildren.find((c) => c?.type === 'heredoc_body');
      if (replacesStdin(r)) info.stdin = heredocScript(body ?? undefined);
      // tree-sitter hangs the rest of the line on the here-document: `cat <<EOF > f | grep x`.
      const rest = r.namedChildren.filter((c): c is Node => c !== null && c.type !== 'heredoc_body');
      noteRedirects(
        rest.filter((c) => REDIRECTS.has(c.type)),
        s,
        info,
      );
      for (const c of rest) if (!REDIRECTS.has(c.type)) visit(c, s);
      if (body) visit(body, s);
    } else if (r.type === 'herestring_redirect') {
      const word = r.namedChildren.find((c) => c !== null && c.type !== 'file_descriptor');
      const value = word ? wordValue(word) : undefined;
      if (replacesStdin(r)) info.stdin = value !== undefined ? { kind: 'text', script: value } : { kind: 'dynamic' };
      for (const c of r.namedChildren) if (c) visit(c, s);
    } else {
      const w = noteFileRedirect(r, s);
      if (w.write && (w.path === undefined || !isSink(w.path))) info.writesFile = true;
      if (w.stdinFile) info.stdin = { kind: 'dynamic' };
      info.extraWords.push(...w.extra);
    }
  }
  return info;
}

function noteFileRedirect(r: Node, s: Script): FileRedirect {
  const w = classifyFileRedirect(r);
  if (w.write) s.w.out.writes.push({ text: w.target?.text ?? '', ...(w.path !== undefined && { path: w.path }) });
  for (const c of r.namedChildren) if (c && !w.extra.includes(c)) visit(c, s);
  return w;
}

/** A simple command: one part, plus whatever it runs (wrapped commands, scripts). */
function visitCommand(node: Node, s: Script, extraWords: readonly Node[], stdin: StdinScript = { kind: 'none' }): void {
  const redirects = node.namedChildren.filter((c): c is Node => c !== null && REDIRECTS.has(c.type));
  const own = noteRedirects(redirects, s);
  const w: Walk = { ...s.w, redirected: s.w.redirected || redirects.length > 0, writesFile: s.w.writesFile || own.writesFile };
  const inner = { ...s, w: { ...s.w, redirected: false, writesFile: false } };
  const words: Node[] = [];
  const assignments: Node[] = [];
  let named = false;
  for (const c of node.namedChildren) {
    if (!c || REDIRECTS.has(c.type)) continue;
    if (c.type === 'variable_assignment' && !named) assignments.push(c);
    else if (c.type === 'command_name') {
      named = true;
      words.push(c.namedChild(0) ?? c);
    } else words.push(c);
  }
  words.push(...own.extraWords, ...extraWords);
  const text = s.source.slice(node.startIndex, node.endIndex).trim();
  if (words.length > 0) {
    const nameNode = node.namedChildren.find((c) => c?.type === 'command_name');
    if (nameNode && RESERVED.has(nameNode.text)) s.w.out.unknowns.push(`a reserved word where a command name should be (the parser misread the line): ${excerpt(text)}`);
    // `rm 0<f`, `bash 0<<< ls`: bash reads `0<` as a redirection of descriptor 0; tree-sitter sometimes makes `0` a word.
    if (words.some((n) => /^\d+$/.test(n.text) && /[<>]/.test(s.source[n.endIndex] ?? ''))) s.w.out.unknowns.push(`a descriptor number the parser read as a word: ${excerpt(text)}`);
    // `'a'\\b` is one word to bash (ab); tree-sitter sometimes makes two words that touch.
    if (words.some((n, i) => i > 0 && words[i - 1]!.endIndex === n.startIndex)) s.w.out.unknowns.push(`words the parser split apart, which bash reads as one: ${excerpt(text)}`);
    const part = partOf(
      words.map((n) => ({ value: wordValue(n), text: n.text })),
      { text, assignments: assignments.map((a) => a.text), w },
    );
    addPart(part, { ...s, w }, stdin.kind !== 'none' ? stdin : own.stdin);
  }
  for (const a of assignments) {
    note(s.w, assignmentTrap(a));
    // `A=1 cmd` sets A for cmd only; with no command, it stays in the shell for what follows.
    if (words.length === 0) noteAssignedName(assignedName(a), s.w);
    scanText(a, inner);
    for (const k of a.namedChildren) if (k) visit(k, inner);
  }
  for (const c of node.namedChildren) if (c && !REDIRECTS.has(c.type) && c.type !== 'variable_assignment') visit(c, inner);
  for (const c of [...own.extraWords, ...extraWords]) visit(c, inner);
}

interface WordInfo {
  value: string | undefined;
  text: string;
}

function partOf(words: readonly WordInfo[], o: { text: string; assignments: string[]; w: Walk }): ShellPart {
  return {
    text: o.text,
    words: words.map((x) => x.value ?? x.text),
    literal: words.map((x) => x.value !== undefined),
    assignments: o.assignments,
    redirected: o.w.redirected,
    writesFile: o.w.writesFile,
  };
}

/** Checks a part's own shape, takes apart what it runs, and records it unless it only stands for its script. */
function addPart(part: ShellPart, s: Script, stdin: StdinScript): void {
  const { out } = s.w;
  if (!part.literal[0]) {
    out.unknowns.push(`a command whose name is only known at run time: ${excerpt(part.text)}`);
    out.parts.push(part);
    return;
  }
  const name = part.words[0]!;
  if (CHDIR.has(name)) out.changesDirectory = true;
  note(s.w, nameArgumentTrap(part.words, part.text));
  const argv: Argv = part.words.map((v, i) => (part.literal[i] ? v : undefined));
  const unwrapped = unwrapCommand(argv);
  // `BASH_ENV=./x.sh bash -c ls` runs x.sh first: what a shell's environment makes it run is unknown.
  if (unwrapped.replace && part.assignments.length > 0) out.unknowns.push(`variables set for \`${name}\` (BASH_ENV, ENV...) can make it run other code: ${excerpt(part.text)}`);
  if (!unwrapped.replace) out.parts.push(part);
  for (const a of unwrapped.actions) runAction(a, part, s, stdin);
}

function runAction(a: WrapAction, part: ShellPart, s: Script, stdin: StdinScript): void {
  const { out } = s.w;
  const deeper: Walk = { ...s.w, depth: s.w.depth + 1 };
  switch (a.kind) {
    case 'unknown':
      out.unknowns.push(`${a.why}: ${excerpt(part.text)}`);
      return;
    case 'chdir':
      out.changesDirectory = true;
      return;
    case 'script':
      return splitInto(a.script, deeper);
    case 'stdin-script':
      if (stdin.kind === 'text') return splitInto(stdin.script, deeper);
      out.unknowns.push(`a shell that reads its script from standard input: ${excerpt(part.text)}`);
      return;
    case 'command': {
      if (s.w.depth >= MAX_NESTING) {
        out.unknowns.push(`commands nested more than ${MAX_NESTING} levels deep`);
        return;
      }
      const words: WordInfo[] = [];
      for (let i = a.start; i < a.end; i++) {
        const v = part.literal[i] ? part.words[i]! : undefined;
        const replaced = v !== undefined && a.placeholder !== undefined && v.includes(a.placeholder);
        words.push({ value: replaced ? undefined : v, text: part.words[i]! });
      }
      if (a.moreArgs) words.push({ value: undefined, text: '…' });
      const inner = partOf(words, { text: words.map((x) => x.text).join(' '), assignments: [...(a.assignments ?? [])], w: s.w });
      return addPart(inner, { ...s, w: deeper }, { kind: 'none' });
    }
  }
}

/** export/declare/local/readonly/typeset, unset, [[ ]]: checked as parts, with their own traps. */
function visitBuiltinStatement(node: Node, s: Script): void {
  const words: WordInfo[] = [];
  const first = node.child(0);
  if (first) words.push({ value: first.isNamed ? undefined : first.text, text: first.text });
  for (const c of node.namedChildren) {
    if (!c || REDIRECTS.has(c.type) || c.type === 'comment') continue;
    words.push({ value: wordValue(c), text: c.text });
  }
  const part = partOf(words, { text: node.text, assignments: [], w: s.w });
  if (node.type === 'declaration_command') {
    note(s.w, declarationTrap(part.words, part.literal, node.text));
    for (const x of part.words.slice(1)) if (/^[A-Za-z_]\w*$/.test(x)) noteAssignedName(x, s.w);
  }
  if (node.type === 'test_command' && first?.text === '[[') note(s.w, testArithmeticTrap(node));
  note(s.w, nameArgumentTrap(part.words, part.text));
  s.w.out.parts.push(part);
}

const note = (w: Walk, why: string | undefined): void => {
  if (why !== undefined) w.out.unknowns.push(why);
};

function noteAssignedName(name: string, w: Walk): void {
  if (steersLaterCommands(name)) w.out.changesEnvironment = true;
}
