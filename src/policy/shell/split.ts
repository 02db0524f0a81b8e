import type { Node } from 'web-tree-sitter';
import { childrenOf, namedOf, parseShell } from './parse.js';
import { isSink } from './paths.js';
import {
  classifyFileRedirect,
  heredocScript,
  isQuotedHeredoc,
  replacesStdin,
  type FileRedirect,
  type StdinScript,
} from './redirects.js';
import {
  arithmeticTrap,
  assignedName,
  assignmentTrap,
  declarationTrap,
  expansionTrap,
  nameArgumentTrap,
  steersLaterCommands,
  subscriptTrap,
  testArithmeticTrap,
} from './traps.js';
import { excerpt, scanUncovered, wordValue, type ScanFindings } from './words.js';
import { unwrapCommand, type Argv, type WrapAction } from './wrappers.js';

export { loadBashGrammar } from './parse.js';

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

const MAX_NESTING = 8;
const CACHE_SIZE = 256;
const cache = new Map<string, ShellSplit>();

/**
 * Splits a command line into every simple command it runs, and says what it could not account for.
 * Call `loadBashGrammar()` first. Results are cached per command string and must not be changed.
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
  if (w.depth > MAX_NESTING) {
    w.out.unknowns.push(`commands nested more than ${MAX_NESTING} levels deep`);
    return;
  }
  const parsed = parseShell(command);
  // Stryker disable all: parse gives up only when cancelled or out of time, and neither is ever asked for
  if (!parsed) {
    w.out.unknowns.push('a command line the parser gave up on');
    return;
  }
  // Stryker restore all
  const { tree, source } = parsed;
  try {
    const before = w.out.unknowns.length;
    visit(tree.rootNode, { source, w });
    // A MISSING token is anonymous and can hide from the walk over named nodes.
    if (tree.rootNode.hasError && w.out.unknowns.length === before)
      w.out.unknowns.push(`text that does not parse as bash: ${excerpt(source)}`);
    if (/\$(\s|$)/.test(source) && hasMisreadDollar(tree.rootNode))
      w.out.unknowns.push(`a \`$\` before a blank, which bash keeps as a word of its own: ${excerpt(source)}`);
  } finally {
    // Stryker disable next-line CallExpression: frees the tree's wasm memory; no result depends on it
    tree.delete();
  }
}

/**
 * bash reads a `$` before a blank as the text `$`. tree-sitter drops it from the command's words
 * (`echo $ a` gives echo, a) or takes the next word for a variable's name (`export $ PATH=/x` gives
 * `$PATH=/x`, so the assignment to PATH goes unseen).
 */
function hasMisreadDollar(node: Node): boolean {
  const children = childrenOf(node);
  return children.some((c, i) => {
    if (c.isNamed || c.type !== '$') return hasMisreadDollar(c);
    if (node.type === 'command') return true;
    const next = children[i + 1];
    return node.type === 'simple_expansion' && next !== undefined && next.startIndex > c.endIndex;
  });
}

const NO_STDIN: StdinScript = { kind: 'none' };
// Stryker disable next-line ObjectLiteral,StringLiteral: only 'none' and 'text' are told apart; any other kind reads as dynamic
const DYNAMIC_STDIN: StdinScript = { kind: 'dynamic' };

const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
const CHDIR = new Set(['cd', 'pushd', 'popd']);
/** Unquoted, these are never command names in bash; a command named so means tree-sitter misread the line. */
const RESERVED = new Set([
  '{',
  '}',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'in',
  'function',
  'select',
  '!',
  '[[',
  ']]',
]);

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
      return visitCommand(node, s);
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
      // Stryker disable next-line OptionalChaining: a compound statement always starts with its `{` or `((`
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
      // Stryker disable next-line ConditionalExpression: the grammar gives every for statement its variable
      if (v) noteAssignedName(v.text, s.w);
      break;
    }
    case 'command_substitution':
    case 'process_substitution':
      if (node.type === 'command_substitution' && splitBacktickedAgain(node, s)) return;
      // Its commands write to a pipe, not to the redirections around the statement.
      for (const c of namedOf(node)) visit(c, { ...s, w: { ...s.w, redirected: false, writesFile: false } });
      return;
  }
  for (const c of namedOf(node)) visit(c, s);
}

/** Substitution syntax tree-sitter left as text: backticks are split as scripts; the rest cannot be read. */
function scanText(node: Node, s: Script): void {
  // tree-sitter sometimes swallows `` ` ` `` into one anonymous token (`2>&1` `c`): never a real delimiter.
  if (childrenOf(node).some((c) => !c.isNamed && c.type.includes('`') && c.type !== '`')) {
    s.w.out.unknowns.push(`backticks the parser misread, in ${excerpt(node.text)}`);
  }
  const found: ScanFindings = { backticks: [], unparsed: [] };
  scanUncovered(node, s.source, found);
  s.w.out.unknowns.push(...found.unparsed);
  for (const script of found.backticks)
    splitInto(script, { ...s.w, redirected: false, writesFile: false, depth: s.w.depth + 1 });
}

/**
 * Inside backticks bash first removes the backslash before `$`, `` ` `` and `\\` (and `"` within
 * double quotes), then parses what is left; tree-sitter parses the text as written. When a backslash
 * is there, the unescaped text is split again instead (`` `a "\`b\`"` `` runs b).
 */
function splitBacktickedAgain(node: Node, s: Script): boolean {
  const open = node.child(0);
  const close = node.child(node.childCount - 1);
  if (!open || !close || open.type !== '`') return false;
  const inner = s.source.slice(open.endIndex, close.startIndex);
  if (!inner.includes('\\')) return false;
  // Stryker disable next-line OptionalChaining: a substitution always sits in a command or a word
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
  const redirects = namedOf(node).filter((c) => REDIRECTS.has(c.type));
  const body = namedOf(node).find((c) => !REDIRECTS.has(c.type));
  const r = noteRedirects(redirects, s);
  const w: Walk = {
    ...s.w,
    redirected: s.w.redirected || redirects.length > 0,
    writesFile: s.w.writesFile || r.writesFile,
  };
  if (body?.type === 'command') {
    scanText(body, s);
    visitCommand(body, { ...s, w }, r);
  } else {
    if (r.extraWords.length > 0)
      s.w.out.unknowns.push(`words after a redirection of a compound command: ${excerpt(node.text)}`);
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
function noteRedirects(
  redirects: readonly Node[],
  s: Script,
  info: RedirectInfo = { writesFile: false, extraWords: [], stdin: NO_STDIN },
): RedirectInfo {
  for (const r of redirects) {
    scanText(r, s);
    if (r.type === 'heredoc_redirect') {
      const body = namedOf(r).find((c) => c.type === 'heredoc_body');
      if (replacesStdin(r)) info.stdin = heredocScript(body);
      // tree-sitter hangs the rest of the line on the here-document: `cat <<EOF > f | grep x`.
      const rest = namedOf(r).filter((c) => c.type !== 'heredoc_body');
      noteRedirects(
        rest.filter((c) => REDIRECTS.has(c.type)),
        s,
        info,
      );
      for (const c of rest) if (!REDIRECTS.has(c.type)) visit(c, s);
      if (body) visit(body, s);
    } else if (r.type === 'herestring_redirect') {
      const word = namedOf(r).find((c) => c.type !== 'file_descriptor');
      const value = word ? wordValue(word) : undefined;
      if (replacesStdin(r)) info.stdin = value === undefined ? DYNAMIC_STDIN : { kind: 'text', script: value };
      for (const c of namedOf(r)) visit(c, s);
    } else {
      const w = noteFileRedirect(r, s);
      if (w.write && (w.path === undefined || !isSink(w.path))) info.writesFile = true;
      if (w.stdinFile) info.stdin = DYNAMIC_STDIN;
      info.extraWords.push(...w.extra);
    }
  }
  return info;
}

function noteFileRedirect(r: Node, s: Script): FileRedirect {
  const w = classifyFileRedirect(r);
  if (w.write) s.w.out.writes.push({ text: w.target?.text ?? '', ...(w.path !== undefined && { path: w.path }) });
  // Nodes are compared by id: web-tree-sitter makes a new object each time a child is asked for.
  for (const c of namedOf(r)) if (!w.extra.some((x) => x.id === c.id)) visit(c, s);
  return w;
}

/** A simple command: one part, plus whatever it runs (wrapped commands, scripts). */
/** What a redirection around a command hands it: words tree-sitter put in the redirection, and a script on stdin. */
type Around = Pick<RedirectInfo, 'extraWords' | 'stdin'>;
const NOTHING_AROUND: Around = { extraWords: [], stdin: NO_STDIN };

function visitCommand(node: Node, s: Script, around: Around = NOTHING_AROUND): void {
  const { extraWords, stdin } = around;
  const redirects = namedOf(node).filter((c) => REDIRECTS.has(c.type));
  const own = noteRedirects(redirects, s);
  const w: Walk = {
    ...s.w,
    redirected: s.w.redirected || redirects.length > 0,
    writesFile: s.w.writesFile || own.writesFile,
  };
  const inner = { ...s, w: { ...s.w, redirected: false, writesFile: false } };
  const words: Node[] = [];
  const assignments: Node[] = [];
  let named = false;
  for (const c of namedOf(node)) {
    if (REDIRECTS.has(c.type)) continue;
    if (c.type === 'variable_assignment' && !named) assignments.push(c);
    else if (c.type === 'command_name') {
      // Stryker disable next-line BooleanLiteral: the grammar puts no assignment after the name (`ls A=1` gives ls a word); this only states it
      named = true;
      words.push(c.namedChild(0) ?? c);
    } else words.push(c);
  }
  words.push(...own.extraWords, ...extraWords);
  const text = s.source.slice(node.startIndex, node.endIndex).trim();
  if (words.length > 0) {
    const nameNode = namedOf(node).find((c) => c.type === 'command_name');
    if (nameNode && RESERVED.has(nameNode.text))
      s.w.out.unknowns.push(
        `a reserved word where a command name should be (the parser misread the line): ${excerpt(text)}`,
      );
    // `rm 0<f`, `bash 0<<< ls`: bash reads `0<` as a redirection of descriptor 0; tree-sitter sometimes makes `0` a word.
    // Stryker disable next-line StringLiteral: past the end of the text, any text without `<` or `>` answers the same
    if (words.some((n) => /^\d+$/.test(n.text) && /[<>]/.test(s.source[n.endIndex] ?? '')))
      s.w.out.unknowns.push(`a descriptor number the parser read as a word: ${excerpt(text)}`);
    if (splitApart(words, s.source))
      s.w.out.unknowns.push(`words the parser split apart, which bash reads as one: ${excerpt(text)}`);
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
    for (const k of namedOf(a)) visit(k, inner);
  }
  for (const c of namedOf(node)) if (!REDIRECTS.has(c.type) && c.type !== 'variable_assignment') visit(c, inner);
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
  if (unwrapped.replace && part.assignments.length > 0)
    out.unknowns.push(
      `variables set for \`${name}\` (BASH_ENV, ENV...) can make it run other code: ${excerpt(part.text)}`,
    );
  if (!unwrapped.replace) out.parts.push(part);
  for (const a of unwrapped.actions) runAction(a, s, { part, stdin });
}

/** The part a wrapper was found in, and the script its stdin holds, if any. */
interface Wrapped {
  part: ShellPart;
  stdin: StdinScript;
}

function runAction(a: WrapAction, s: Script, { part, stdin }: Wrapped): void {
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
      const inner = partOf(words, {
        text: words.map((x) => x.text).join(' '),
        assignments: [...(a.assignments ?? [])],
        w: s.w,
      });
      return addPart(inner, { ...s, w: deeper }, NO_STDIN);
    }
  }
}

/** export/declare/local/readonly/typeset, unset, [[ ]]: checked as parts, with their own traps. */
function visitBuiltinStatement(node: Node, s: Script): void {
  const words: WordInfo[] = [];
  const first = node.child(0);
  // Stryker disable next-line ConditionalExpression: these statements always have a first token (export, unset, [[, [)
  if (first) words.push({ value: first.isNamed ? undefined : first.text, text: first.text });
  for (const c of namedOf(node)) {
    if (REDIRECTS.has(c.type) || c.type === 'comment') continue;
    words.push({ value: wordValue(c), text: c.text });
  }
  const part = partOf(words, { text: node.text, assignments: [], w: s.w });
  if (splitApart(namedOf(node), s.source))
    s.w.out.unknowns.push(`words the parser split apart, which bash reads as one: ${excerpt(node.text)}`);
  if (node.type === 'declaration_command') {
    note(s.w, declarationTrap(part.words, part.literal, node.text));
    // Stryker disable next-line MethodExpression: the command word itself (declare, export, local...) is lower-case, which steers nothing
    for (const x of part.words.slice(1)) if (/^[A-Za-z_]\w*$/.test(x)) noteAssignedName(x, s.w);
  }
  // Stryker disable next-line OptionalChaining: see `if (first)` above
  if (node.type === 'test_command' && first?.text === '[[') note(s.w, testArithmeticTrap(node));
  note(s.w, nameArgumentTrap(part.words, part.text));
  s.w.out.parts.push(part);
}

/**
 * True when bash reads some of these words as one: `'a'\\b` (tree-sitter sometimes makes two words
 * that touch), `a\<TAB>b` and `"a"\<TAB>b` (tree-sitter ends the word before or at the backslash and
 * starts the next after the tab; bash keeps the escaped tab in the word).
 */
function splitApart(words: readonly Node[], source: string): boolean {
  return words.some((n, i) => {
    // Ends in a backslash that escapes the blank after it (before a newline or a carriage return, other checks speak).
    if (/(^|[^\\])(\\\\)*\\$/.test(n.text) && !'\r\n'.includes(source.charAt(n.endIndex))) return true;
    if (i === 0) return false;
    const prev = words[i - 1]!;
    return prev.endIndex === n.startIndex || /\\[^\r\n]/.test(source.slice(prev.endIndex, n.startIndex));
  });
}

const note = (w: Walk, why: string | undefined): void => {
  if (why !== undefined) w.out.unknowns.push(why);
};

function noteAssignedName(name: string, w: Walk): void {
  if (steersLaterCommands(name)) w.out.changesEnvironment = true;
}
