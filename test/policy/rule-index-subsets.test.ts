/**
 * The rule subsets a shell decision looks up besides all rules: the argsPattern rules (tested on the
 * whole command line) and, of those, the ones a person added by approving one exact command line
 * "always". Both the index and the linear reference it is checked against must pick the same rule.
 */
import { describe, expect, it } from 'vitest';
import { placeRules } from '../../src/policy/engine.js';
import { parsePolicyToml } from '../../src/policy/load-toml.js';
import { subjectOf } from '../../src/policy/match.js';
import { ALWAYS_SOURCE, type Rule } from '../../src/policy/rule.js';
import { createLinearRuleIndex, createRuleIndex, type RuleIndex } from '../../src/policy/rule-index.js';

const approved: Rule = {
  toolNames: ['run_shell_command'],
  decision: 'allow',
  priority: 950,
  argsPattern: /"command":"make x"/,
  source: ALWAYS_SOURCE,
  line: 0,
};
const toml = [
  '[[rule]]\ntoolName = "run_shell_command"\ndecision = "ask_user"\npriority = 999\n',
  '[[rule]]\ntoolName = "run_shell_command"\nargsPattern = "make"\ndecision = "deny"\npriority = 1\n',
].join('');
const sorted = placeRules([
  { tier: 'user', rules: parsePolicyToml(toml, 'p.toml').rules },
  { tier: 'workspace', rules: [approved] },
]);
const make = subjectOf({ toolName: 'run_shell_command', args: { command: 'make x' } });

// A fresh index per test: an index remembers shapes, and each test must build the one it looks up.
describe.each<[string, () => RuleIndex]>([
  ['the index', () => createRuleIndex(sorted)],
  ['the linear lookup', () => createLinearRuleIndex(sorted)],
])('%s', (_n, create) => {
  it('all rules: the highest', () => {
    expect(create().firstMatch(make, { mode: 'default', context: 'action' })).toMatchObject({
      source: 'p.toml',
      line: 1,
    });
  });

  it('argsPattern rules: the highest of those, from any source', () => {
    expect(create().firstMatch(make, { mode: 'default', context: 'action' }, 'argsPattern')).toMatchObject({
      source: 'p.toml',
      line: 5,
    });
  });

  it('approved command lines: only rules from approvals', () => {
    expect(create().firstMatch(make, { mode: 'default', context: 'action' }, 'approvedCommand')).toMatchObject({
      source: ALWAYS_SOURCE,
      line: 0,
    });
    expect(
      create().firstMatch(
        subjectOf({ toolName: 'run_shell_command', args: { command: 'make y' } }),
        { mode: 'default', context: 'action' },
        'approvedCommand',
      ),
    ).toBeUndefined();
  });
});
