import { messageOf } from '../common/errors.js';
import { firstMatch, subjectOf, type Subject } from './match.js';
import { ALWAYS_SOURCE, isCommandSpecific, type TieredRule } from './rule.js';
import { isDestructive, isKnownReadOnly } from './shell-heuristics.js';
import { splitShell, type ShellPart } from './shell-split.js';
import type { ApprovalMode, Decision, PolicyContext, PolicyQuery, PolicyVerdict, RuleRef } from './types.js';

export const SHELL_TOOL = 'run_shell_command';

const STRICTNESS: { readonly [D in Decision]: number } = { allow: 0, ask_user: 1, deny: 2 };

const UNMATCHED: { readonly [C in PolicyContext]: { decision: Decision; why: string } } = {
  action: { decision: 'deny', why: 'no rule matched; the action denies unmatched calls' },
  interactive: { decision: 'ask_user', why: 'no rule matched; unmatched calls are asked about' },
  headless: { decision: 'deny', why: 'no rule matched; headless runs deny unmatched calls' },
};

/** One checked unit (the call, or one sub-command of it) and how it came out. */
interface Unit {
  decision: Decision;
  rule: TieredRule | undefined;
  why: string;
}

/**
 * The one decision path. `rules` are sorted highest final priority first, ties in load order.
 * Fails closed: anything thrown while deciding is a deny that says what went wrong.
 */
export function decide(rules: readonly TieredRule[], context: PolicyContext, q: PolicyQuery, mode: ApprovalMode): PolicyVerdict {
  try {
    const unit = q.toolName === SHELL_TOOL && typeof q.args.command === 'string'
      ? decideShell(rules, context, q, q.args.command, mode)
      : decideWhole(rules, context, subjectOf(q), mode);
    return finish(unit, context);
  } catch (e) {
    return { decision: 'deny', rule: null, reason: `policy check failed, so the call is denied: ${messageOf(e)}` };
  }
}

function finish(u: Unit, context: PolicyContext): PolicyVerdict {
  const rule = u.rule ? refOf(u.rule) : null;
  if (u.decision === 'ask_user' && context === 'headless') {
    return { decision: 'deny', rule, reason: `${u.why}; nobody can be asked in a headless run, so it is denied` };
  }
  const msg = u.decision === 'deny' && u.rule?.denyMessage ? `: ${u.rule.denyMessage}` : '';
  return { decision: u.decision, rule, reason: `${u.why}${msg}` };
}

export function refOf(r: TieredRule): RuleRef {
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

function decideWhole(rules: readonly TieredRule[], context: PolicyContext, s: Subject, mode: ApprovalMode): Unit {
  const r = firstMatch(rules, s, mode, context);
  if (!r) return { decision: UNMATCHED[context].decision, rule: undefined, why: UNMATCHED[context].why };
  return { decision: r.decision, rule: r, why: `${r.decision} by ${describe(r)}` };
}

/**
 * A shell call is checked per sub-command; the strictest outcome wins. A rule with an `argsPattern`
 * is also tested against the whole command line, since such patterns are written against it.
 * What cannot be parsed is never allowed by a rule that narrows by command text.
 */
function decideShell(rules: readonly TieredRule[], context: PolicyContext, q: PolicyQuery, command: string, mode: ApprovalMode): Unit {
  const split = splitShell(command);
  const whole = subjectOf(q);
  const units: Unit[] = [];
  split.parts.forEach((part, i) => {
    const label = split.parts.length > 1 ? `sub-command ${i + 1} of ${split.parts.length} ("${part.text}")` : `"${part.text}"`;
    units.push(decidePart(rules, context, { ...whole, args: { ...q.args, command: part.text }, part }, mode, label));
  });

  if (split.parseError || split.parts.length === 0) {
    const u = decideWhole(rules, context, whole, mode);
    // A person's exact approval of this very command line (see allowAlways) is the one exception.
    if (split.parseError && u.decision === 'allow' && u.rule && isCommandSpecific(u.rule) && u.rule.source !== ALWAYS_SOURCE) {
      units.push({ decision: 'ask_user', rule: u.rule, why: `the command does not parse, so ${describe(u.rule)} cannot allow it` });
    } else {
      units.push(split.parseError ? { ...u, why: `the command does not parse; ${u.why}` } : u);
    }
  } else if (split.parts.length > 1 || split.parts[0]!.text !== command.trim()) {
    const r = firstMatch(rules, whole, mode, context, (x) => x.argsPattern !== undefined);
    if (r) units.push({ decision: r.decision, rule: r, why: `${r.decision} for the whole command by ${describe(r)}` });
  }

  let worst = units[0]!;
  for (const u of units) if (STRICTNESS[u.decision] > STRICTNESS[worst.decision]) worst = u;
  return worst;
}

function decidePart(rules: readonly TieredRule[], context: PolicyContext, s: Subject, mode: ApprovalMode, label: string): Unit {
  const part = s.part as ShellPart;
  const base = decideWhole(rules, context, s, mode);
  const u: Unit = { ...base, why: `${label}: ${base.why}` };
  if (u.decision === 'deny') return u;
  const nameKnown = part.literal[0] === true && part.assignments.length === 0;

  if (u.decision === 'allow' && mode !== 'yolo' && nameKnown && isDestructive(part.words)) {
    return { ...u, decision: 'ask_user', why: `${label}: destructive command, always asked outside yolo mode (${base.why})` };
  }
  if (u.decision === 'ask_user' && (!u.rule || !isCommandSpecific(u.rule)) && nameKnown && part.literal.every(Boolean) && isKnownReadOnly(part.words)) {
    u.decision = 'allow';
    u.why = `${label}: known read-only command, raised from ask_user to allow (${base.why})`;
  }
  if (u.decision === 'allow' && part.redirected && !u.rule?.allowRedirection && mode !== 'autoEdit' && mode !== 'yolo') {
    return { ...u, decision: 'ask_user', why: `${label}: redirection needs approval unless the rule sets allowRedirection (${u.why.slice(label.length + 2)})` };
  }
  return u;
}
