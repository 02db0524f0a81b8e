import { messageOf } from '../common/errors.js';
import { editedBuildFile, isBuildFile } from './build-files.js';
import { subjectOf, type MatchScope, type Subject } from './match.js';
import type { RuleIndex } from './rule-index.js';
import { isCommandSpecific, type TieredRule } from './rule.js';
import { isDestructive, isKnownReadOnly } from './shell/heuristics.js';
import { whyWriteRefused, type ShellPlace } from './shell/paths.js';
import { loadBashGrammar, splitShell, type ShellPart, type ShellSplit } from './shell/split.js';
import type { ApprovalMode, Decision, PolicyContext, PolicyQuery, PolicyVerdict, RuleRef } from './types.js';

const SHELL_TOOL = 'run_shell_command';

const STRICTNESS: { readonly [D in Decision]: number } = { allow: 0, ask_user: 1, deny: 2 };

/**
 * What one decision is made under: the approval mode, who can be asked (the context), and the
 * workspace root when it is known (for shell paths). The engine keeps one per mode, and every rule
 * lookup of a decision receives this same object.
 */
export interface DecideSetting extends MatchScope {
  readonly workspace?: string;
}

/** What a call no rule matches gets. In yolo mode a person has said yes to everything, except in the Action. */
function unmatched(context: PolicyContext, mode: ApprovalMode): { decision: Decision; why: string } {
  if (mode === 'yolo' && context !== 'action')
    return { decision: 'allow', why: 'no rule matched; yolo mode allows unmatched calls (as Gemini CLI does)' };
  switch (context) {
    case 'action':
      return { decision: 'deny', why: 'no rule matched; the action denies unmatched calls' };
    case 'interactive':
      return { decision: 'ask_user', why: 'no rule matched; unmatched calls are asked about' };
    case 'headless':
      return { decision: 'deny', why: 'no rule matched; headless runs deny unmatched calls' };
  }
}

/** One checked unit (the call, one sub-command of it, one file it writes) and how it came out. */
interface Unit {
  decision: Decision;
  rule: TieredRule | undefined;
  why: string;
}

/** A shell call, which policy splits into the commands it runs: only these need the bash grammar. */
export const isShellCall = (q: PolicyQuery): q is PolicyQuery & { args: { command: string } } =>
  q.toolName === SHELL_TOOL && typeof q.args.command === 'string';

/**
 * The one decision path. `rules` are sorted highest final priority first, ties in load order, and indexed.
 * A shell call awaits the bash grammar (loaded once per process, with the first one). Fails closed:
 * anything thrown while deciding, a grammar that cannot load included, is a deny that says what went wrong.
 */
export async function decide(rules: RuleIndex, setting: DecideSetting, q: PolicyQuery): Promise<PolicyVerdict> {
  try {
    let unit: Unit;
    if (isShellCall(q)) {
      await loadBashGrammar();
      unit = decideShell({ rules, setting, q, command: q.args.command });
    } else {
      const subject = subjectOf(q);
      unit = guardBuildFiles(decideWhole(rules, setting, subject), q, subject);
    }
    return finish(unit, setting.context);
  } catch (e) {
    return { decision: 'deny', rule: null, reason: `policy check failed, so the call is denied: ${messageOf(e)}` };
  }
}

/** Gemini CLI's build file protection, in every mode: an allowed edit of package.json, a Makefile... is asked about. */
function guardBuildFiles(u: Unit, q: PolicyQuery, s: Subject): Unit {
  if (u.decision !== 'allow') return u;
  const file = editedBuildFile(q, s.names);
  if (file === undefined) return u;
  return {
    decision: 'ask_user',
    rule: undefined,
    why: `${file} is a build file (it says what build and test commands run), so editing it needs a person's confirmation, as in Gemini CLI (${u.why})`,
  };
}

function finish(u: Unit, context: PolicyContext): PolicyVerdict {
  const rule = u.rule ? refOf(u.rule) : null;
  if (u.decision === 'ask_user' && context === 'headless') {
    return { decision: 'deny', rule, reason: `${u.why}; nobody can be asked in a headless run, so it is denied` };
  }
  const msg = u.decision === 'deny' && u.rule?.denyMessage ? `: ${u.rule.denyMessage}` : '';
  return { decision: u.decision, rule, reason: `${u.why}${msg}` };
}

function refOf(r: TieredRule): RuleRef {
  return {
    source: r.source,
    line: r.line,
    tier: r.tier,
    priority: r.finalPriority,
    decision: r.decision,
    ...(r.denyMessage !== undefined && { denyMessage: r.denyMessage }),
  };
}

const describe = (r: TieredRule): string =>
  `${r.name ? `rule "${r.name}"` : 'rule'} at ${r.source}${r.line ? `:${r.line}` : ''} (${r.tier} tier, priority ${formatPriority(r.finalPriority)})`;

export const formatPriority = (p: number): string => p.toFixed(3);

function decideWhole(rules: RuleIndex, setting: DecideSetting, s: Subject): Unit {
  const r = rules.firstMatch(s, setting);
  if (!r) return { ...unmatched(setting.context, setting.mode), rule: undefined };
  const deny = r.decision === 'allow' && r.belowWorkspaceDenies ? rules.workspaceDeny(s, setting) : undefined;
  if (deny)
    return {
      decision: 'deny',
      rule: deny,
      why: `deny by ${describe(deny)}: the repository's policy denies it, which ${describe(r)} may not override`,
    };
  return { decision: r.decision, rule: r, why: `${r.decision} by ${describe(r)}` };
}

interface ShellCall {
  rules: RuleIndex;
  setting: DecideSetting;
  q: PolicyQuery;
  command: string;
}

/**
 * A shell call is checked per sub-command, per file it writes and, when it holds anything the
 * splitter cannot account for, as a whole that no rule may allow by its text; the strictest wins.
 * A rule with an `argsPattern` is also tested against the whole command line.
 */
function decideShell(c: ShellCall): Unit {
  const { rules, setting, q, command } = c;
  const mode = setting.mode;
  const split = splitShell(command);
  const whole: Subject = { ...subjectOf(q), environmentChanged: split.changesEnvironment };
  const dirPath = typeof q.args.dir_path === 'string' ? q.args.dir_path : '';
  // Stryker disable next-line all: equivalent; the path checks join the directory with posix.join, to which '' and '.' are the same directory
  const dir = dirPath === '' ? '.' : dirPath;
  const place: ShellPlace = { ...(setting.workspace !== undefined && { workspace: setting.workspace }), dir };
  const units: Unit[] = split.parts.map((part, i) => {
    const label =
      split.parts.length > 1 ? `sub-command ${i + 1} of ${split.parts.length} ("${part.text}")` : `"${part.text}"`;
    return decidePart({ ...c, split, place }, { ...whole, args: { ...q.args, command: part.text }, part }, label);
  });
  if (mode !== 'yolo') units.push(...writeUnits(split, place), ...buildFileWriteUnits(split));
  if (split.unknowns.length > 0 || split.parts.length === 0) units.push(decideUnaccounted(c, split, whole));
  if (split.parts.length > 1 || (split.parts.length === 1 && split.parts[0]!.text !== command.trim())) {
    const r = rules.firstMatch(whole, setting, 'argsPattern');
    if (r) units.push({ decision: r.decision, rule: r, why: `${r.decision} for the whole command by ${describe(r)}` });
  }
  const approved = rules.firstMatch(whole, setting, 'approvedCommand');
  let worst: Unit | undefined;
  for (const unit of units) {
    // A person approved exactly this command line "always": what would only be asked is allowed; denials stay.
    const u =
      approved && unit.decision === 'ask_user'
        ? {
            decision: 'allow' as const,
            rule: approved,
            why: `allow by ${describe(approved)}, an approval of exactly this command`,
          }
        : unit;
    if (!worst || STRICTNESS[u.decision] > STRICTNESS[worst.decision]) worst = u;
  }
  return worst!;
}

/** A redirection that writes outside the workspace, into .git/.github/.gemini, or somewhere unknown: denied outside yolo. */
function writeUnits(split: ShellSplit, place: ShellPlace): Unit[] {
  const units: Unit[] = [];
  for (const w of split.writes) {
    const why = whyWriteRefused(w.path, place, split.changesDirectory);
    if (why)
      units.push({
        decision: 'deny',
        rule: undefined,
        why: `a redirection writes ${JSON.stringify(w.text)}, and ${why}; only yolo mode lets a command write there`,
      });
  }
  return units;
}

/**
 * A redirection that writes a build file is an edit of it: asked about like write_file's (Gemini
 * CLI's build file protection), or `cat x.json > package.json` then an allowed `npm test` runs
 * anything. Yolo allows every command that could write it anyway.
 */
function buildFileWriteUnits(split: ShellSplit): Unit[] {
  return split.writes
    .filter((w) => w.path !== undefined && isBuildFile(w.path))
    .map((w) => ({
      decision: 'ask_user' as const,
      rule: undefined,
      why: `a redirection writes ${JSON.stringify(w.text)}, a build file (it says what build and test commands run), so it needs a person's confirmation like an edit of it`,
    }));
}

/**
 * The whole command when the splitter could not account for all of it (or found no command at all).
 * Rules for the whole call apply; none may allow it by its text, and outside yolo not even a rule
 * that allows every command (its destructive-command checks cannot see inside). A person's "always"
 * approval of this exact command line is the one exception (see decideShell).
 */
function decideUnaccounted(c: ShellCall, split: ShellSplit, whole: Subject): Unit {
  const u = decideWhole(c.rules, c.setting, whole);
  if (split.unknowns.length === 0) return u;
  const what = `the policy cannot tell everything this command runs (${split.unknowns[0]}${split.unknowns.length > 1 ? `, and ${split.unknowns.length - 1} more` : ''})`;
  if (u.decision === 'deny') return { ...u, why: `${what}; ${u.why}` };
  if (u.decision === 'allow' && c.setting.mode === 'yolo' && !(u.rule && isCommandSpecific(u.rule)))
    return { ...u, why: `${what}; yolo mode: ${u.why}` };
  return { decision: 'ask_user', rule: u.rule, why: `${what}, so no rule can allow it by its text (${u.why})` };
}

interface PartCall extends ShellCall {
  split: ShellSplit;
  place: ShellPlace;
}

function decidePart(c: PartCall, s: Subject, label: string): Unit {
  const { rules, setting, split, place } = c;
  const mode = setting.mode;
  const part = s.part as ShellPart;
  const base = decideWhole(rules, setting, s);
  const u: Unit = { ...base, why: `${label}: ${base.why}` };
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent; every check below applies to allow or ask_user only, so a deny passes them unchanged
  if (u.decision === 'deny') return u;

  if (u.decision === 'allow' && mode !== 'yolo' && part.literal[0] && isDestructive(part.words, part.literal)) {
    return {
      ...u,
      decision: 'ask_user',
      why: `${label}: destructive command, always asked outside yolo mode (${base.why})`,
    };
  }
  const known = part.literal.every(Boolean) && part.assignments.length === 0 && !split.changesEnvironment;
  if (
    u.decision === 'ask_user' &&
    (!u.rule || !isCommandSpecific(u.rule)) &&
    known &&
    !part.writesFile &&
    isKnownReadOnly(part.words, place)
  ) {
    u.decision = 'allow';
    u.why = `${label}: known read-only command, raised from ask_user to allow (${base.why})`;
  }
  if (
    u.decision === 'allow' &&
    part.redirected &&
    !u.rule?.allowRedirection &&
    mode !== 'autoEdit' &&
    mode !== 'yolo'
  ) {
    return {
      ...u,
      decision: 'ask_user',
      why: `${label}: redirection needs approval unless the rule sets allowRedirection (${u.why.slice(label.length + 2)})`,
    };
  }
  return u;
}
