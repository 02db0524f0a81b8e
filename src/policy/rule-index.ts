import {
  callMatch,
  compileRule,
  LazyArgsText,
  staticMatch,
  type CompiledRule,
  type MatchScope,
  type Subject,
} from './match.js';
import { ALWAYS_SOURCE, type TieredRule } from './rule.js';
import type { ShellPart } from './shell/split.js';
import type { ApprovalMode, PolicyContext } from './types.js';

/**
 * Which rules a lookup considers: every rule; the rules with an `argsPattern` (a shell call's whole
 * command line is tested against those); or those of them a person added by approving one exact
 * command line "always".
 */
type RuleSubset = 'all' | 'argsPattern' | 'approvedCommand';

/**
 * The rules, sorted (highest final priority first, ties in load order) and indexed, so that a
 * decision tests only rules that can match, with patterns compiled once:
 * - per subject shape (its names, MCP server, the mode and the context) only the rules whose tool
 *   name, server, modes and interactivity fit are kept (computed once per shape, remembered);
 * - of those, a command-prefix rule is tried on a shell sub-command only when their first word or
 *   first token agree, and a pattern with a literal start (`\x00"file_path":"src/...`,
 *   `"command":"git ...`) only where the arguments' text holds that start.
 * The first match is the same as testing every rule in order (test/policy/rule-index.test.ts
 * checks it against `createLinearRuleIndex`).
 */
export interface RuleIndex {
  readonly rules: readonly TieredRule[];
  firstMatch(s: Subject, scope: MatchScope, subset?: RuleSubset): TieredRule | undefined;
  /** The first deny rule of the Workspace tier (the repository's policy) that matches: what settings' allows yield to. */
  workspaceDeny(s: Subject, scope: MatchScope): TieredRule | undefined;
}

const isWorkspaceDeny = (r: TieredRule) => r.tier === 'workspace' && r.decision === 'deny';

/** Shapes remembered; a hostile stream of new tool names only empties the memory. */
const MAX_SHAPES = 512;
/** Literal keys longer than this are cut: a key only has to tell rules apart. */
const MAX_KEY = 24;

/**
 * The rules of one shape, sorted, and how to find the few a call can match: what the index builds
 * (createShape) and remembers per shape, and reads per call (candidateLists, or a subset's list).
 */
export interface Shape {
  argsPattern: CompiledRule[];
  approvedCommand: CompiledRule[];
  /** Tested for every call of this shape. */
  always: CompiledRule[];
  /** Command-prefix rules by first word (`w`) or first token (`t`); only shell sub-commands can match them. */
  byLead: Map<string, CompiledRule[]>;
  /** Patterns by their literal start. */
  literals: LiteralGroup[];
}

/**
 * Patterns whose literal starts with `anchor` (cut after the first `":`): each is found under its
 * next `length` characters, so one lookup per anchor occurrence and length finds every pattern
 * whose literal is there.
 */
interface LiteralGroup {
  anchor: string;
  byLength: Map<number, Map<string, CompiledRule[]>>;
  /** Only commandRegex rules: nothing to find outside a shell sub-command. */
  partsOnly: boolean;
}

export function createRuleIndex(sorted: readonly TieredRule[]): RuleIndex {
  const compiled = sorted.map(compileRule);
  // Asked only for a settings allow rule's call: a plain scan of the few Workspace denies.
  const denies = linearFirstMatch(sorted.filter(isWorkspaceDeny));
  const shapes = new Map<string, Shape>();

  // One decision looks up the same shape several times (each sub-command, the whole line): the
  // last one is kept by the identity of its names array, which a decision's subjects share.
  let last:
    | {
        names: readonly string[];
        server: string | undefined;
        short: string | undefined;
        mode: ApprovalMode;
        context: PolicyContext;
        sandboxed: boolean | undefined;
        shape: Shape;
      }
    | undefined;
  const shapeOf = (s: Subject, scope: MatchScope): Shape => {
    const { mode, context, sandboxed } = scope;
    // Stryker disable next-line ConditionalExpression: equivalent when the whole test is false (never reusing the last shape only recomputes it); this also drops the each-condition-true mutants, which test/policy/rule-index-cache.test.ts kills
    if (
      last &&
      last.names === s.names &&
      last.server === s.mcpServer &&
      last.short === s.mcpShortName &&
      last.mode === mode &&
      last.context === context &&
      last.sandboxed === sandboxed
    )
      return last.shape;
    // JSON keeps the key injective whatever characters a tool name holds.
    const key = JSON.stringify([
      mode,
      context,
      sandboxed === true,
      s.mcpServer ?? null,
      s.mcpShortName ?? null,
      s.names,
    ]);
    let shape = shapes.get(key);
    // Stryker disable next-line ConditionalExpression: equivalent when true (a shape built again is the same shape); false crashes and is killed
    if (!shape) {
      shape = createShape(compiled, s, scope);
      // Stryker disable next-line all: equivalent; forgetting shapes sooner, later or never changes only memory and time, not an answer
      if (shapes.size >= MAX_SHAPES) shapes.clear();
      // Stryker disable next-line CallExpression: equivalent; a shape not remembered is built again, the same
      shapes.set(key, shape);
    }
    // Stryker disable next-line ObjectLiteral: equivalent; an empty memory never matches, so the shape is only looked up again
    last = { names: s.names, server: s.mcpServer, short: s.mcpShortName, mode, context, sandboxed, shape };
    return shape;
  };

  return {
    rules: sorted,
    firstMatch(s, scope, subset = 'all') {
      const shape = shapeOf(s, scope);
      const text = new LazyArgsText(s.args);
      if (subset !== 'all') return firstIn([shape[subset]], s, text);
      return firstIn(candidateLists(shape, s, text), s, text);
    },
    workspaceDeny: (s, scope) => denies(s, scope, 'all'),
  };
}

/**
 * The same lookup without the index: every rule, in order. What the index is checked against
 * (test/policy/rule-index.test.ts); the engine never uses it.
 */
export function createLinearRuleIndex(sorted: readonly TieredRule[]): RuleIndex {
  const first = linearFirstMatch(sorted);
  const denies = linearFirstMatch(sorted.filter(isWorkspaceDeny));
  return {
    rules: sorted,
    firstMatch: (s, scope, subset = 'all') => first(s, scope, subset),
    workspaceDeny: (s, scope) => denies(s, scope, 'all'),
  };
}

function linearFirstMatch(sorted: readonly TieredRule[]) {
  const compiled = sorted.map(compileRule);
  const inSubset = (c: CompiledRule, subset: RuleSubset): boolean =>
    subset === 'all' || (c.argsPattern !== undefined && (subset === 'argsPattern' || c.rule.source === ALWAYS_SOURCE));
  return (s: Subject, scope: MatchScope, subset: RuleSubset): TieredRule | undefined => {
    const text = new LazyArgsText(s.args);
    for (const c of compiled)
      if (inSubset(c, subset) && staticMatch(c, s, scope) && callMatch(c, s, text)) return c.rule;
    return undefined;
  };
}

/**
 * The earliest matching rule over several sorted lists: in each list, the first match (no later
 * rule of that list can come before it); lists stop early once past the best found so far.
 */
function firstIn(lists: readonly (readonly CompiledRule[])[], s: Subject, text: LazyArgsText): TieredRule | undefined {
  let best: CompiledRule | undefined;
  for (const list of lists) {
    for (const c of list) {
      // Stryker disable next-line EqualityOperator: equivalent; at equal positions c is best itself (positions are unique), tested again and found again
      if (best && c.at >= best.at) break;
      if (callMatch(c, s, text)) {
        best = c;
        break;
      }
    }
  }
  return best?.rule;
}

/**
 * The lists firstMatch tests for this call (of every rule), each sorted: together a superset of the
 * rules that match, without the rules the index can tell cannot (test/policy/rule-index-candidates.test.ts).
 */
export function candidateLists(shape: Shape, s: Subject, text: LazyArgsText): CompiledRule[][] {
  const lists = [shape.always];
  const part = s.part;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; the size test only skips looking up keys in an empty map
  if (part && shape.byLead.size > 0) {
    for (const key of leadKeysOfPart(part)) {
      const list = shape.byLead.get(key);
      if (list) lists.push(list);
    }
  }
  for (const g of shape.literals) {
    if (g.partsOnly && !part) continue;
    const t = text.get();
    for (const at of t.positions(g.anchor)) {
      const from = at + g.anchor.length;
      for (const [length, byKey] of g.byLength) {
        const list = byKey.get(t.text.slice(from, from + length));
        if (list) lists.push(list);
      }
    }
  }
  return lists;
}

/** The shape of a subject's names, server, mode and context: the compiled rules that fit it, bucketed. */
export function createShape(compiled: readonly CompiledRule[], s: Subject, scope: MatchScope): Shape {
  return bucketRules(compiled.filter((c) => staticMatch(c, s, scope)));
}

function bucketRules(all: CompiledRule[]): Shape {
  const always: CompiledRule[] = [];
  const byLead = new Map<string, CompiledRule[]>();
  const groups = new Map<string, LiteralGroup>();
  const push = <K>(map: Map<K, CompiledRule[]>, key: K, c: CompiledRule) => {
    const list = map.get(key);
    if (!list) {
      map.set(key, [c]);
    } else {
      // Stryker disable next-line all: equivalent; a rule listed twice in one list is found at its first place either way (and is one candidate)
      if (list.at(-1) !== c) list.push(c);
    }
  };
  for (const c of all) {
    const leads = leadKeysOfRule(c);
    const pattern = c.prefixes ? undefined : (c.argsPattern ?? c.commandRegex);
    // Stryker disable next-line StringLiteral: equivalent; any default without `":` sends the rule to `always`, as '' does
    const literal = pattern?.literal ?? '';
    const cut = literal.indexOf('":');
    if (leads) {
      for (const k of leads) push(byLead, k, c);
    } else if (pattern && cut >= 0) {
      const anchor = literal.slice(0, cut + 2);
      const rest = literal.slice(cut + 2);
      // Stryker disable next-line all: equivalent; any start of the rest finds the rule (a lookup reads as many characters as the key has), so only bucket sizes change
      const key = rest.slice(0, MAX_KEY);
      let g = groups.get(anchor);
      if (!g) groups.set(anchor, (g = { anchor, byLength: new Map(), partsOnly: true }));
      if (c.argsPattern) g.partsOnly = false;
      let byKey = g.byLength.get(key.length);
      if (!byKey) g.byLength.set(key.length, (byKey = new Map()));
      push(byKey, key, c);
    } else {
      always.push(c);
    }
  }
  return {
    argsPattern: all.filter((c) => c.argsPattern !== undefined),
    approvedCommand: all.filter((c) => c.argsPattern !== undefined && c.rule.source === ALWAYS_SOURCE),
    always,
    byLead,
    literals: [...groups.values()],
  };
}

/** Where a sub-command's first token ends, for prefixes (which match text up to whitespace or a quote). */
const TOKEN_END = /[\s"]/;

const tokenOf = (text: string): string => {
  const at = text.search(TOKEN_END);
  return at < 0 ? text : text.slice(0, at);
};

/**
 * The keys a sub-command must have for a command-prefix rule to match it, or undefined for a rule
 * without prefixes (or with an empty one). Exact, not heuristic: a prefix matches by meaning only
 * when its first word is the sub-command's first (literal) word (`w` + word); by text only when the
 * sub-command's text starts with it, and then the text's first token (up to whitespace or a quote)
 * is the prefix's first token, whole if the prefix has no whitespace or quote, since the match
 * must end at one (`t` + token).
 */
function leadKeysOfRule(c: CompiledRule): string[] | undefined {
  if (!c.prefixes) return undefined;
  // Stryker disable next-line ArrayDeclaration: equivalent; a key that starts with neither `w` nor `t` is never a sub-command's key, so an extra one finds nothing
  const keys: string[] = [];
  for (const p of c.prefixes) {
    if (p.source === '') return undefined;
    if (p.words) keys.push(`w${p.words[0]!}`);
    // Text matching applies to deny and ask_user rules, and to allow rules whose prefix is not plain words.
    if (c.decision !== 'allow' || !p.words) keys.push(`t${tokenOf(p.source)}`);
  }
  return keys;
}

/** The keys one sub-command has: its first literal word and its first token. */
function leadKeysOfPart(part: ShellPart): string[] {
  const token = `t${tokenOf(part.text)}`;
  // A literal word is always there (literal and words run in parallel).
  return part.literal[0] ? [`w${part.words[0]!}`, token] : [token];
}
