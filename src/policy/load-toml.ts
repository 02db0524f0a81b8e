import { parse as parseToml, TomlError } from 'smol-toml';
import { messageOf } from '../common/errors.js';
import { parseCommandPrefix } from './command-prefix.js';
import { checkRegex } from './regex-check.js';
import { DECISIONS, MODES, type Diagnostic, type Rule, type Severity } from './rule.js';
import type { ApprovalMode, Decision } from './types.js';

export interface ParsedPolicyFile {
  rules: Rule[];
  diagnostics: Diagnostic[];
}

/** Keys Gemini CLI's rule schema reads; `name` is the label its own files use. */
const KNOWN_KEYS = new Set([
  'toolName',
  'mcpName',
  'subagent',
  'argsPattern',
  'commandPrefix',
  'commandRegex',
  'decision',
  'priority',
  'modes',
  'interactive',
  'sandboxed',
  'toolAnnotations',
  'allowRedirection',
  'denyMessage',
  'name',
]);
/** Snake-case spellings Gemini CLI still accepts, with their current names. */
const DEPRECATED_KEYS: Readonly<Record<string, string>> = {
  allow_redirection: 'allowRedirection',
  deny_message: 'denyMessage',
};

/**
 * Parses one policy file: TOML text to rules plus every diagnostic found (not just the first).
 * Pure. Positions: smol-toml's own line/column for syntax errors; for rule problems, the line of the
 * offending key inside its `[[rule]]` block, else the block's header line.
 */
export function parsePolicyToml(text: string, source: string): ParsedPolicyFile {
  const diagnostics: Diagnostic[] = [];
  const at = (severity: Severity, pos: Pos, message: string) =>
    diagnostics.push({ severity, file: source, line: pos.line, column: pos.column, message });

  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    // Stryker disable next-line ObjectLiteral: unreachable; smol-toml throws only TomlError
    const pos = e instanceof TomlError ? { line: e.line, column: e.column } : { line: 1, column: 1 };
    // Stryker disable next-line Regex: equivalent; the prefix only ever starts the message
    at('error', pos, `TOML does not parse: ${firstLine(messageOf(e)).replace(/^Invalid TOML document: /, '')}`);
    return { rules: [], diagnostics };
  }

  const layout = scanLayout(text);
  for (const key of Object.keys(doc)) {
    if (key === 'rule' || key === 'safety_checker') continue;
    const hint = key === 'rules' ? ' (did you mean [[rule]]?)' : '';
    at('warning', layout.topKey(key), `unknown top-level key "${key}" ignored${hint}`);
  }
  const checkers = doc.safety_checker;
  if (checkers !== undefined) {
    const count = Array.isArray(checkers) ? checkers.length : 1;
    for (let i = 0; i < count; i++) {
      at(
        'warning',
        layout.checkers[i] ?? { line: 1, column: 1 },
        '[[safety_checker]] is not supported by agent-action; the table is ignored',
      );
    }
  }

  const raw = doc.rule;
  if (raw === undefined) return { rules: [], diagnostics };
  if (!Array.isArray(raw)) {
    at('error', layout.topKey('rule'), '"rule" must be an array of tables, written [[rule]]');
    return { rules: [], diagnostics };
  }
  const rules: Rule[] = [];
  raw.forEach((table, i) => {
    const block = layout.rules[i] ?? { header: { line: 1, column: 1 }, keyPos: () => undefined };
    const rule = parseRule(table, { source, block, report: (sev, pos, msg) => at(sev, pos, `rule #${i + 1}: ${msg}`) });
    if (rule) rules.push(rule);
  });
  return { rules, diagnostics };
}

interface Pos {
  line: number;
  column: number;
}
type Report = (severity: Severity, pos: Pos, message: string) => void;
interface Block {
  header: Pos;
  keyPos(key: string): Pos | undefined;
}

/** Where one [[rule]] table was read: its file, its place in the file, and where its problems go. */
interface RuleSite {
  source: string;
  block: Block;
  report: Report;
}

/** One [[rule]] table being checked: its keys, where each is, and where its problems go. */
interface RuleCheck {
  table: Record<string, unknown>;
  where(key: string): Pos;
  report: Report;
  /** Reports an error at the key (or the header) and marks the rule as refused. */
  fail(key: string | undefined, message: string): void;
}

function parseRule(table: unknown, site: RuleSite): Rule | undefined {
  const { source, block, report } = site;
  if (!isTable(table)) {
    report('error', block.header, 'must be a table');
    return undefined;
  }
  let ok = true;
  const where = (key: string) => block.keyPos(key) ?? block.header;
  const c: RuleCheck = {
    table,
    where,
    report,
    fail: (key, message) => {
      ok = false;
      report('error', key ? where(key) : block.header, message);
    },
  };
  warnUnknownKeys(c);
  const { toolNames, decision, priority } = requiredFields(c);
  const mcpName = optString(c, 'mcpName');
  const subagent = optString(c, 'subagent');
  const name = optString(c, 'name');
  const denyMessage = optString(c, 'denyMessage') ?? optString(c, 'deny_message');
  const interactive = optBool(c, 'interactive');
  const sandboxed = optBool(c, 'sandboxed');
  const allowRedirection = optBool(c, 'allowRedirection') ?? optBool(c, 'allow_redirection');
  const argsPattern = regex(c, 'argsPattern');
  const commandRegex = commandRegexOf(regex(c, 'commandRegex'), decision === 'allow');
  const commandPrefixes = commandPrefixesOf(c, decision);
  checkCommandKeys(c);
  const modes = modesOf(c);
  const toolAnnotations = toolAnnotationsOf(c);

  if (!ok || !toolNames) return undefined;
  return {
    toolNames,
    ...(mcpName !== undefined && { mcpName }),
    ...(subagent !== undefined && { subagent }),
    ...(argsPattern && { argsPattern }),
    ...(commandPrefixes && { commandPrefixes }),
    ...(commandRegex && { commandRegex }),
    decision: decision as Decision,
    priority: Number(priority),
    ...(modes && { modes }),
    ...(interactive !== undefined && { interactive }),
    ...(sandboxed !== undefined && { sandboxed }),
    ...(toolAnnotations && { toolAnnotations }),
    ...(allowRedirection !== undefined && { allowRedirection }),
    ...(denyMessage !== undefined && { denyMessage }),
    ...(name !== undefined && { name }),
    source,
    line: block.header.line,
  };
}

function warnUnknownKeys({ table, where, report }: RuleCheck): void {
  for (const key of Object.keys(table)) {
    if (KNOWN_KEYS.has(key)) continue;
    if (key in DEPRECATED_KEYS) {
      report('warning', where(key), `"${key}" is deprecated; write "${DEPRECATED_KEYS[key]}"`);
    } else if (key === 'safety_checker') {
      report('warning', where(key), 'safety checkers are not supported by agent-action; ignored');
    } else {
      report('warning', where(key), `unknown key "${key}" ignored`);
    }
  }
}

/** toolName, decision and priority, each reported when missing or malformed. */
function requiredFields({ table, fail }: RuleCheck): {
  toolNames: string[] | undefined;
  decision: unknown;
  priority: unknown;
} {
  const toolNames = stringList(table.toolName);
  if (table.toolName === undefined) fail(undefined, 'toolName is missing (use "*" for every tool)');
  else if (!toolNames) fail('toolName', 'toolName must be a non-empty string or an array of non-empty strings');

  const decision = table.decision;
  if (decision === undefined) fail(undefined, 'decision is missing (allow, deny or ask_user)');
  else if (!DECISIONS.includes(decision as Decision))
    fail('decision', `decision must be allow, deny or ask_user, not ${show(decision)}`);

  const priority = table.priority;
  if (priority === undefined) fail(undefined, 'priority is missing (an integer from 0 to 999)');
  else if (typeof priority !== 'number' && typeof priority !== 'bigint')
    fail('priority', `priority must be an integer from 0 to 999, not ${show(priority)}`);
  else if (!Number.isInteger(Number(priority)) || Number(priority) < 0 || Number(priority) > 999) {
    // Stryker disable next-line EqualityOperator: equivalent; 999 is a valid priority and never gets here
    const why = Number(priority) > 999 ? ' (1000 and above would jump into the next tier)' : '';
    fail('priority', `priority must be an integer from 0 to 999, not ${String(priority)}${why}`);
  }
  return { toolNames, decision, priority };
}

function optString({ table, fail }: RuleCheck, key: string): string | undefined {
  const v = table[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') fail(key, `${key} must be a non-empty string, not ${show(v)}`);
  return typeof v === 'string' ? v : undefined;
}

function optBool({ table, fail }: RuleCheck, key: string): boolean | undefined {
  const v = table[key];
  if (v !== undefined && typeof v !== 'boolean') fail(key, `${key} must be true or false, not ${show(v)}`);
  return typeof v === 'boolean' ? v : undefined;
}

function regex(c: RuleCheck, key: string): RegExp | undefined {
  const src = optString(c, key);
  if (src === undefined) return undefined;
  const r = checkRegex(src);
  if (!r.ok) c.fail(key, `${key}: ${r.message}`);
  return r.ok ? r.regex : undefined;
}

/** The trimmed prefixes; a prefix that is not plain shell words is a warning that says how it matches. */
function commandPrefixesOf({ table, where, report, fail }: RuleCheck, decision: unknown): string[] | undefined {
  if (table.commandPrefix === undefined) return undefined;
  let commandPrefixes = stringList(table.commandPrefix);
  if (!commandPrefixes)
    fail('commandPrefix', 'commandPrefix must be a non-empty string or an array of non-empty strings');
  else commandPrefixes = commandPrefixes.map((p) => p.trim());
  // Stryker disable next-line ArrayDeclaration: equivalent; a bad commandPrefix is already an error, and whatever the loop checks only adds warnings
  for (const p of commandPrefixes ?? []) {
    const problem = parseCommandPrefix(p).problem;
    if (problem === undefined) continue;
    const how =
      decision === 'allow'
        ? 'it allows only commands whose text starts with it, followed by a blank or the end'
        : 'it matches commands whose text starts with it, as Gemini CLI does';
    report(
      'warning',
      where('commandPrefix'),
      `commandPrefix ${JSON.stringify(p)} is not plain shell words (${problem}); ${how}`,
    );
  }
  return commandPrefixes;
}

/** commandPrefix and commandRegex: shell rules only, one of them, and never with argsPattern. */
function checkCommandKeys({ table, fail }: RuleCheck): void {
  if (table.commandPrefix === undefined && table.commandRegex === undefined) return;
  const key = table.commandPrefix !== undefined ? 'commandPrefix' : 'commandRegex';
  if (table.toolName !== 'run_shell_command') fail(key, `${key} only applies to toolName = "run_shell_command"`);
  if (table.argsPattern !== undefined) fail(key, `${key} and argsPattern cannot be combined in one rule`);
  if (table.commandPrefix !== undefined && table.commandRegex !== undefined)
    fail('commandRegex', 'commandPrefix and commandRegex cannot be combined in one rule');
}

function modesOf({ table, fail }: RuleCheck): ApprovalMode[] | undefined {
  if (table.modes === undefined) return undefined;
  const list = Array.isArray(table.modes) ? table.modes : undefined;
  const bad = list ? list.filter((m) => !MODES.includes(m as ApprovalMode)) : [table.modes];
  if (bad.length === 0) return list as ApprovalMode[];
  const hint = bad.includes('auto_edit') ? ' (the TOML spelling is "autoEdit")' : '';
  fail(
    'modes',
    `modes must be an array of ${MODES.map((m) => `"${m}"`).join(', ')}; ${show(bad[0])} is not one${hint}`,
  );
  return undefined;
}

function toolAnnotationsOf({ table, fail }: RuleCheck): Record<string, unknown> | undefined {
  if (table.toolAnnotations === undefined) return undefined;
  if (isTable(table.toolAnnotations)) return { ...table.toolAnnotations };
  fail('toolAnnotations', 'toolAnnotations must be a table, e.g. { readOnlyHint = true }');
  return undefined;
}

/**
 * Gemini CLI tests commandRegex after `"command":"` in the JSON text of the arguments, unanchored at
 * the end. An allow rule's pattern is grouped first, so that `ls|cat` cannot match `cat` anywhere in
 * the arguments; deny and ask_user rules keep Gemini CLI's exact reading.
 */
function commandRegexOf(checked: RegExp | undefined, allow: boolean): RegExp | undefined {
  if (!checked) return undefined;
  return new RegExp(allow ? `"command":"(?:${checked.source})` : `"command":"${checked.source}`, checked.flags);
}

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

function stringList(v: unknown): string[] | undefined {
  const list = typeof v === 'string' ? [v] : Array.isArray(v) ? v : undefined;
  if (!list || list.length === 0 || !list.every((s) => typeof s === 'string' && s !== '')) return undefined;
  return list as string[];
}

// Stryker disable next-line ConditionalExpression,StringLiteral: unreachable; smol-toml gives bigints only with its integersAsBigInt option, which is not set
const show = (v: unknown): string => (typeof v === 'bigint' ? String(v) : (JSON.stringify(v) ?? String(v)));
// Stryker disable next-line MethodExpression: equivalent; smol-toml's first message line has no blanks around it
const firstLine = (s: string): string => s.split('\n')[0]!.trim();

/**
 * Where things are in the text: smol-toml gives values, not positions, so the headers and keys are
 * found by scanning lines. `[[rule]]` headers come in document order, the order of the parsed array.
 * (A header-like line inside a multi-line string would be miscounted; policy files do not do that.)
 */
function scanLayout(text: string) {
  const lines = text.split(/\r?\n/);
  const rules: Block[] = [];
  const checkers: Pos[] = [];
  // Per line: which section it belongs to (-1 top level, rule index, or -2 something else).
  const owner: number[] = [];
  let current = -1;
  lines.forEach((l, n) => {
    const arr = /^\s*\[\[\s*([A-Za-z0-9_."-]+)\s*\]\]/.exec(l);
    const tbl = arr ? undefined : /^\s*\[\s*([A-Za-z0-9_."-]+)\s*\]/.exec(l);
    if (arr) {
      const name = arr[1]!.replace(/"/g, '');
      if (name === 'rule') {
        current = rules.length;
        const header = { line: n + 1, column: l.indexOf('[') + 1 };
        rules.push({ header, keyPos: () => undefined });
      } else {
        if (name === 'safety_checker') checkers.push({ line: n + 1, column: l.indexOf('[') + 1 });
        current = name.startsWith('rule.') ? current : -2;
      }
    } else if (tbl) {
      if (tbl[1] === 'safety_checker') checkers.push({ line: n + 1, column: l.indexOf('[') + 1 });
      // [rule.safety_checker] and similar belong to the rule above; anything else starts a new section.
      current = tbl[1]!.startsWith('rule.') ? current : -2;
    }
    owner.push(current);
  });
  const find = (index: number, key: string): Pos | undefined => {
    const re = new RegExp(
      `^(\\s*)(?:\\[{1,2}\\s*rule\\.)?(?:${escape(key)}|"${escape(key)}"|'${escape(key)}')\\s*[=.\\]]`,
    );
    for (let n = 0; n < lines.length; n++) {
      if (owner[n] !== index) continue;
      const m = re.exec(lines[n]!);
      if (m) return { line: n + 1, column: m[1]!.length + 1 };
    }
    return undefined;
  };
  rules.forEach((b, i) => (b.keyPos = (key) => find(i, key)));
  return {
    rules,
    checkers,
    topKey: (key: string): Pos => {
      const tableHeader = lines.findIndex((l) => new RegExp(`^\\s*\\[{1,2}\\s*${escape(key)}[\\].]`).test(l));
      if (tableHeader >= 0) return { line: tableHeader + 1, column: lines[tableHeader]!.indexOf('[') + 1 };
      return find(-1, key) ?? { line: 1, column: 1 };
    },
  };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
