/**
 * Where a policy diagnostic points: smol-toml gives values, not positions, so headers and keys are
 * found by scanning lines (load-toml.ts scanLayout). Each case is a spelling TOML allows and a
 * person writes (indented or spaced headers, quoted names, other tables between rules), checked for
 * the exact line and column; and what a file that cannot yield rules returns.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicyToml } from '../../src/policy/load-toml.js';

const at = (text: string) =>
  parsePolicyToml(text, 'p.toml').diagnostics.map((d) => `${d.line}:${d.column} ${d.severity}: ${d.message}`);
const BAD = 'decision must be allow, deny or ask_user, not "no"';
const CHECKER = 'warning: [[safety_checker]] is not supported by agent-action; the table is ignored';

describe('positions', () => {
  it.each<[string, string, string[]]>([
    [
      'a spaced [[ rule ]] header',
      '[[ rule ]]\ntoolName = "x"\npriority = 1\ndecision = "no"\n',
      [`4:1 error: rule #1: ${BAD}`],
    ],
    [
      'a quoted [["rule"]] header',
      '[["rule"]]\ntoolName = "x"\npriority = 1\ndecision = "no"\n',
      [`4:1 error: rule #1: ${BAD}`],
    ],
    [
      'an indented header, for an error without a key',
      '\n  [[rule]]\n  toolName = "x"\n  priority = 1\n',
      ['2:3 error: rule #1: decision is missing (allow, deny or ask_user)'],
    ],
    [
      'a header-like string is not a header',
      '[[rule]]\ntoolName = "x"\npriority = 1\ndecision = "[[rule]]"\n',
      ['4:1 error: rule #1: decision must be allow, deny or ask_user, not "[[rule]]"'],
    ],
    [
      'a key of another array table before the rules is not theirs',
      '[[foo]]\ndecision = 1\n[[rule]]\ntoolName = "a"\ndecision = "allow"\npriority = 1\n[[rule]]\ntoolName = "b"\ndecision = "allow"\npriority = 1\n[[rule]]\ntoolName = "c"\npriority = 1\ndecision = "no"\n',
      ['1:1 warning: unknown top-level key "foo" ignored', `14:1 error: rule #3: ${BAD}`],
    ],
    [
      'a top-level key on the first line, indented',
      '  foo = 1\n',
      ['1:3 warning: unknown top-level key "foo" ignored'],
    ],
    ['a top-level key on a later line', '\n\n foo = 1\n', ['3:2 warning: unknown top-level key "foo" ignored']],
    [
      'a safety checker table after another table',
      'x = 1\n[foo]\na = 1\n[safety_checker]\nb = 1\n',
      [
        '1:1 warning: unknown top-level key "x" ignored',
        '2:1 warning: unknown top-level key "foo" ignored',
        `4:1 ${CHECKER}`,
      ],
    ],
    [
      'a safety checker array after another array',
      '[[foo]]\na = 1\n[[safety_checker]]\nb = 1\n',
      ['1:1 warning: unknown top-level key "foo" ignored', `3:1 ${CHECKER}`],
    ],
    [
      'a spaced [ safety_checker ] table',
      'x = 1\n[ safety_checker ]\na = 1\n',
      ['1:1 warning: unknown top-level key "x" ignored', `2:1 ${CHECKER}`],
    ],
    [
      'a spaced [[ safety_checker ]] array',
      'x = 1\n[[ safety_checker ]]\na = 1\n',
      ['1:1 warning: unknown top-level key "x" ignored', `2:1 ${CHECKER}`],
    ],
    [
      'a safety checker that is a value, not a table',
      'x = 1\nsafety_checker = 5\n',
      ['1:1 warning: unknown top-level key "x" ignored', `1:1 ${CHECKER}`],
    ],
    [
      'a safety checker array inside a rule',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\n[[rule.safety_checker]]\ntype = "in-process"\n',
      ['5:1 warning: rule #1: safety checkers are not supported by agent-action; ignored'],
    ],
  ])('%s', (_n, text, want) => {
    expect(at(text)).toEqual(want);
  });
});

describe('a bad value is reported once, and its old spelling is still checked', () => {
  it.each<[string, string, string[]]>([
    [
      'denyMessage and deny_message both bad',
      'denyMessage = 5\ndeny_message = 6',
      [
        '6:1 warning: rule #1: "deny_message" is deprecated; write "denyMessage"',
        '5:1 error: rule #1: denyMessage must be a non-empty string, not 5',
        '6:1 error: rule #1: deny_message must be a non-empty string, not 6',
      ],
    ],
    [
      'allowRedirection and allow_redirection both bad',
      'allowRedirection = 1\nallow_redirection = 2',
      [
        '6:1 warning: rule #1: "allow_redirection" is deprecated; write "allowRedirection"',
        '5:1 error: rule #1: allowRedirection must be true or false, not 1',
        '6:1 error: rule #1: allow_redirection must be true or false, not 2',
      ],
    ],
    [
      'a pattern that is not a string is not also compiled',
      'argsPattern = ["("]',
      ['5:1 error: rule #1: argsPattern must be a non-empty string, not ["("]'],
    ],
  ])('%s', (_n, fields, want) => {
    expect(at(`[[rule]]\ntoolName = "x"\ndecision = "deny"\npriority = 1\n${fields}\n`)).toEqual(want);
  });
});

describe('what comes back besides diagnostics', () => {
  it.each<[string, string]>([
    ['a syntax error', '[[rule]\n'],
    ['no rules', 'x = 1\n'],
    ['"rule" that is not an array of tables', 'rule = 5\n'],
  ])('%s: no rules', (_n, text) => {
    expect(parsePolicyToml(text, 'p.toml').rules).toStrictEqual([]);
  });

  it('a rule with only the required keys has no other key at all, not even undefined ones', () => {
    expect(
      parsePolicyToml('[[rule]]\ntoolName = "x"\ndecision = "deny"\npriority = 2\n', 'p.toml').rules,
    ).toStrictEqual([{ toolNames: ['x'], decision: 'deny', priority: 2, source: 'p.toml', line: 1 }]);
  });
});
