/**
 * The index's contract beyond the first match: for each call it keeps only rules that can match, in
 * priority order. A bucket that is too wide only slows decisions down (the first match stays the
 * same), so these tests read the kept rules themselves and expect exact lists: a prefix rule kept
 * for a sub-command whose first word or token it cannot match, a pattern kept where its literal
 * start is absent, a sub-command-only pattern kept for a whole call, all fail here. The kept rules
 * are read through the two functions firstMatch itself calls: createShape (once per shape) and
 * candidateLists (per call), or a subset's list of the shape. Rules are told apart by their
 * (unique) priority.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { placeRules } from '../../src/policy/engine.js';
import { parsePolicyToml } from '../../src/policy/load-toml.js';
import { compileRule, LazyArgsText, subjectOf, type CompiledRule, type Subject } from '../../src/policy/match.js';
import { ALWAYS_SOURCE, type Rule } from '../../src/policy/rule.js';
import {
  candidateLists,
  createLinearRuleIndex,
  createRuleIndex,
  createShape,
  type RuleIndex,
} from '../../src/policy/rule-index.js';
import { loadBashGrammar, splitShell } from '../../src/policy/shell/split.js';

beforeAll(() => loadBashGrammar());

const rulesOf = (toml: string, extra: Rule[] = []) =>
  placeRules([
    { tier: 'user', rules: parsePolicyToml(toml, 'p.toml').rules },
    { tier: 'user', rules: extra },
  ]);
/** The rules compiled as the index compiles them (in sorted order, each knowing its place). */
const index = (toml: string, extra: Rule[] = []): CompiledRule[] => rulesOf(toml, extra).map(compileRule);
const rule = (tool: string, fields: string, decision: string, priority: number) =>
  `[[rule]]\ntoolName = "${tool}"\n${fields}\ndecision = "${decision}"\npriority = ${priority}\n`;
const shell = (fields: string, decision: string, priority: number) =>
  rule('run_shell_command', fields, decision, priority);
/** Matches every shell call: the one rule every lookup keeps. */
const anyShell = shell('', 'ask_user', 1);

/** The whole shell call, as the engine looks it up besides its sub-commands. */
const whole = (command: string): Subject => subjectOf({ toolName: 'run_shell_command', args: { command } });
/** The call's first sub-command, as the engine looks it up (decide.ts). */
function sub(command: string): Subject {
  const part = splitShell(command).parts[0]!;
  return { ...whole(command), args: { command: part.text }, part };
}
/** The rules a lookup would test, each once, in priority order. */
function kept(rules: readonly CompiledRule[], s: Subject, subset?: 'argsPattern' | 'approvedCommand'): number[] {
  const shape = createShape(rules, s, { mode: 'default', context: 'action' });
  const lists = subset ? [shape[subset]] : candidateLists(shape, s, new LazyArgsText(s.args));
  return [...new Set(lists.flat())].sort((a, b) => a.at - b.at).map((c) => c.rule.priority);
}

describe('command-prefix rules: kept by the first word or token of a sub-command', () => {
  const idx = () =>
    index(shell('commandPrefix = "git"', 'deny', 9) + shell('commandPrefix = "ls"', 'allow', 8) + anyShell);

  it('kept for a sub-command they begin, each once, in priority order', () => {
    expect(kept(idx(), sub('git log'))).toEqual([9, 1]);
    expect(kept(idx(), sub('ls -la'))).toEqual([8, 1]);
  });

  it('not kept for another first word, even one sharing all but the last letter', () => {
    expect(kept(idx(), sub('gix'))).toEqual([1]);
    expect(kept(idx(), sub('cat x'))).toEqual([1]);
  });

  it('not kept for a whole call: they match sub-commands only', () => {
    expect(kept(idx(), whole('git log'))).toEqual([1]);
  });

  it('a prefix starting with a quote has an empty first token, as does a sub-command starting with one', () => {
    const quoted = index(shell('commandPrefix = \'"git" log\'', 'deny', 9) + anyShell);
    expect(kept(quoted, sub('"ls"'))).toEqual([9, 1]);
    expect(kept(quoted, sub('ls'))).toEqual([1]);
  });

  it('an empty prefix can match any sub-command: kept for every one', () => {
    const empty: Rule = {
      toolNames: ['run_shell_command'],
      decision: 'deny',
      priority: 9,
      commandPrefixes: [''],
      source: 'extra',
      line: 0,
    };
    const withEmpty = index(anyShell, [empty]);
    expect(kept(withEmpty, sub('git log'))).toEqual([9, 1]);
  });
});

describe('text matching: deny and ask_user prefixes by first token, plain allow prefixes by first word only', () => {
  const idx = () =>
    index(shell('commandPrefix = "git"', 'deny', 9) + shell('commandPrefix = "npm"', 'allow', 8) + anyShell);

  it('a deny prefix is kept where the text starts with it though the first word differs', () => {
    // `git"x"` is the word gitx, but its text starts with the token git.
    expect(kept(idx(), sub('git"x" status'))).toEqual([9, 1]);
  });

  it('a plain allow prefix is not kept where the first word is only the same text, not a literal word', () => {
    // The prefix `a\*b` is the literal word a*b; in `a*b x` the same text is a glob bash expands.
    const glob = index(shell("commandPrefix = 'a\\*b'", 'allow', 9) + anyShell);
    expect(kept(glob, sub("'a*b' x"))).toEqual([9, 1]);
    expect(kept(glob, sub('a*b x'))).toEqual([1]);
  });

  it('a plain allow prefix is not kept where only the text starts with it', () => {
    expect(kept(idx(), sub('npm"x" test'))).toEqual([1]);
    expect(kept(idx(), sub('npm test'))).toEqual([8, 1]);
  });
});

describe('patterns: kept only where their literal start occurs', () => {
  const idx = () =>
    index(
      rule('write_file', 'argsPattern = \'"file_path":"src/\'', 'deny', 9) +
        rule('write_file', 'argsPattern = "secret"', 'deny', 8) +
        rule('write_file', 'argsPattern = \'":"zzz\'', 'deny', 7) +
        rule('write_file', '', 'ask_user', 1),
    );
  const write = (args: Record<string, unknown>) => subjectOf({ toolName: 'write_file', args });

  it('a literal with a key: kept where that key and value start occur', () => {
    expect(kept(idx(), write({ file_path: 'src/a.ts' }))).toEqual([9, 8, 1]);
    expect(kept(idx(), write({ file_path: 'docs/a.md' }))).toEqual([8, 1]);
  });

  it('a literal without a key is kept for every call; one that starts with the key end only where it occurs', () => {
    expect(kept(idx(), write({ x: 'zzz' }))).toEqual([8, 7, 1]);
    expect(kept(idx(), write({ x: 'yyy' }))).toEqual([8, 1]);
  });
});

describe('commandRegex patterns: only sub-commands can match them', () => {
  it('not kept for the whole call, kept for a sub-command that holds their start', () => {
    const idx = () =>
      index(
        shell('commandRegex = "git"', 'deny', 9) +
          rule('write_file', 'argsPattern = \'"dir":"x\'', 'deny', 8) +
          anyShell,
      );
    expect(kept(idx(), whole('git log'))).toEqual([1]);
    expect(kept(idx(), sub('git log'))).toEqual([9, 1]);
    expect(kept(idx(), sub('ls'))).toEqual([1]);
  });

  it('an argsPattern with the same start is kept for the whole call', () => {
    const idx = () =>
      index(shell('commandRegex = "git"', 'deny', 9) + shell('argsPattern = \'"command":"ls\'', 'deny', 8) + anyShell);
    expect(kept(idx(), whole('ls -la'))).toEqual([8, 1]);
  });
});

describe('the subsets', () => {
  const approvedPattern: Rule = {
    toolNames: ['run_shell_command'],
    decision: 'allow',
    priority: 950,
    argsPattern: /"command":"make x"/,
    source: ALWAYS_SOURCE,
    line: 0,
  };
  // An approval without an argsPattern (a command prefix) is not an approved command line.
  const approvedPrefix: Rule = {
    toolNames: ['run_shell_command'],
    decision: 'allow',
    priority: 960,
    commandPrefixes: ['make'],
    source: ALWAYS_SOURCE,
    line: 0,
  };
  const approvedAny: Rule = {
    toolNames: ['run_shell_command'],
    decision: 'allow',
    priority: 970,
    source: ALWAYS_SOURCE,
    line: 0,
  };
  const toml = shell('argsPattern = "make"', 'deny', 5) + anyShell;
  const extra = [approvedPattern, approvedPrefix, approvedAny];

  it('kept: the argsPattern rules, and of those the approved ones', () => {
    const idx = () => index(toml, extra);
    expect(kept(idx(), whole('make x'), 'argsPattern')).toEqual([950, 5]);
    expect(kept(idx(), whole('make x'), 'approvedCommand')).toEqual([950]);
  });

  it.each<[string, () => RuleIndex]>([
    ['the index', () => createRuleIndex(rulesOf(toml, extra))],
    ['the linear lookup', () => createLinearRuleIndex(rulesOf(toml, extra))],
  ])('%s: an approval without an argsPattern never answers for the approved command lines', (_n, create) => {
    expect(
      create().firstMatch(whole('make y'), { mode: 'default', context: 'action' }, 'approvedCommand'),
    ).toBeUndefined();
    expect(
      create().firstMatch(whole('make x'), { mode: 'default', context: 'action' }, 'approvedCommand')?.priority,
    ).toBe(950);
  });

  it('a shape keeps only the rules whose mode and context fit, before any call is looked at', () => {
    const fitting = index(
      shell('argsPattern = "make"\nmodes = ["yolo"]', 'deny', 9) + shell('interactive = false', 'deny', 8) + anyShell,
    );
    expect(kept(fitting, sub('make x'))).toEqual([1]);
  });
});
