import { describe, expect, it } from 'vitest';
import { parsePolicyToml } from '../../src/policy/load-toml.js';

const parse = (text: string) => parsePolicyToml(text, 'p.toml');
const errors = (text: string) => parse(text).diagnostics.filter((d) => d.severity === 'error');
const warnings = (text: string) => parse(text).diagnostics.filter((d) => d.severity === 'warning');

describe('parsePolicyToml', () => {
  it('warns, with the line, about a commandPrefix that is not plain shell words, and keeps the rule', () => {
    const { rules, diagnostics } = parse(`[[rule]]
toolName = "run_shell_command"
decision = "deny"
priority = 1
commandPrefix = ['git commit -m "fix', "echo $HOME", 'git commit -m "fix"']
`);
    expect(rules).toHaveLength(1);
    expect(diagnostics.map((d) => [d.severity, d.line, d.message])).toEqual([
      [
        'warning',
        5,
        'rule #1: commandPrefix "git commit -m \\"fix" is not plain shell words (it has an unclosed double quote); it matches commands whose text starts with it, as Gemini CLI does',
      ],
      [
        'warning',
        5,
        'rule #1: commandPrefix "echo $HOME" is not plain shell words (it has "$", which bash would expand or treat as syntax); it matches commands whose text starts with it, as Gemini CLI does',
      ],
    ]);
  });

  it('compiles commandRegex as Gemini CLI does: after "command":" in the arguments\' JSON; an allow pattern is grouped', () => {
    const { rules } = parse(`[[rule]]
toolName = "run_shell_command"
commandRegex = "ls|cat"
decision = "allow"
priority = 1

[[rule]]
toolName = "run_shell_command"
commandRegex = "ls|cat"
decision = "deny"
priority = 1
`);
    expect(rules.map((r) => r.commandRegex!.source)).toEqual(['"command":"(?:ls|cat)', '"command":"ls|cat']);
  });

  it('reads every field', () => {
    const { rules, diagnostics } = parse(`
[[rule]]
name = "n"
toolName = "run_shell_command"
commandPrefix = ["git  log", "ls"]
decision = "allow"
priority = 7
modes = ["default", "autoEdit"]
interactive = true
allowRedirection = true
denyMessage = "no"

[[rule]]
toolName = "x"
mcpName = "srv"
subagent = "helper"
argsPattern = "\\"a\\":1"
toolAnnotations = { readOnlyHint = true }
decision = "deny"
priority = 999
`);
    expect(diagnostics).toEqual([]);
    expect(rules[0]).toMatchObject({
      toolNames: ['run_shell_command'],
      commandPrefixes: ['git  log', 'ls'],
      decision: 'allow',
      priority: 7,
      modes: ['default', 'autoEdit'],
      interactive: true,
      allowRedirection: true,
      denyMessage: 'no',
      name: 'n',
      line: 2,
      source: 'p.toml',
    });
    expect(rules[1]).toMatchObject({
      toolNames: ['x'],
      mcpName: 'srv',
      subagent: 'helper',
      toolAnnotations: { readOnlyHint: true },
      line: 13,
    });
    expect(rules[1]!.argsPattern!.source).toBe('"a":1');
  });

  it.each([
    ['syntax error', '[[rule]]\ntoolName = "x\n', 2, /does not parse/],
    ['missing toolName', '\n[[rule]]\ndecision = "allow"\npriority = 1\n', 2, /toolName is missing/],
    ['missing decision', '[[rule]]\ntoolName = "x"\npriority = 1\n', 1, /decision is missing/],
    [
      'bad decision',
      '[[rule]]\ntoolName = "x"\npriority = 1\ndecision = "maybe"\n',
      4,
      /decision must be allow, deny or ask_user/,
    ],
    ['missing priority', '[[rule]]\ntoolName = "x"\ndecision = "allow"\n', 1, /priority is missing/],
    ['priority too big', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1000\n', 4, /0 to 999.*next tier/],
    ['negative priority', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = -1\n', 4, /0 to 999/],
    ['fractional priority', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1.5\n', 4, /integer/],
    ['string priority', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = "5"\n', 4, /integer/],
    [
      'invalid regex',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\n  argsPattern = "(a"\n',
      5,
      /argsPattern: invalid regular expression/,
    ],
    [
      'catastrophic regex',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\nargsPattern = "(a+)+$"\n',
      5,
      /catastrophic/,
    ],
    [
      'catastrophic commandRegex',
      '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 1\ncommandRegex = "(\\\\w*)*x"\n',
      5,
      /catastrophic/,
    ],
    [
      'prefix on other tool',
      '[[rule]]\ntoolName = "read_file"\ncommandPrefix = "ls"\ndecision = "allow"\npriority = 1\n',
      3,
      /only applies to toolName = "run_shell_command"/,
    ],
    ['bad mode', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\nmodes = ["auto_edit"]\n', 5, /autoEdit/],
    ['empty toolName', '[[rule]]\ntoolName = ""\ndecision = "allow"\npriority = 1\n', 2, /non-empty/],
    [
      'bad interactive',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\ninteractive = "yes"\n',
      5,
      /true or false/,
    ],
  ])('%s: error with file, line and column', (_name, text, line, message) => {
    const errs = errors(text);
    expect(errs.length).toBeGreaterThan(0);
    expect(errs[0]).toMatchObject({ file: 'p.toml', line });
    expect(errs[0]!.column).toBeGreaterThan(0);
    expect(errs[0]!.message).toMatch(message);
  });

  it('reports every error in a file, not just the first, and keeps the good rules', () => {
    const { rules, diagnostics } = parse(`
[[rule]]
toolName = "ok"
decision = "allow"
priority = 1

[[rule]]
decision = "allow"
priority = 1

[[rule]]
toolName = "x"
decision = "allow"
priority = 5000
argsPattern = "(x*)*"
`);
    expect(rules.map((r) => r.toolNames[0])).toEqual(['ok']);
    expect(diagnostics.map((d) => [d.line, d.message.replace(/:.*/, '')])).toEqual([
      [7, 'rule #2'],
      [14, 'rule #3'],
      [15, 'rule #3'],
    ]);
  });

  it('puts the column of an indented key', () => {
    expect(errors('[[rule]]\ntoolName = "x"\ndecision = "allow"\n    priority = 1.5\n')[0]).toMatchObject({
      line: 4,
      column: 5,
    });
  });

  it('column of a TOML syntax error comes from the parser', () => {
    expect(errors('[[rule]]\ntoolName = = "x"\n')[0]).toMatchObject({ line: 2, column: expect.any(Number) });
  });

  it.each([
    [
      'unknown key',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\ncolour = "red"\n',
      5,
      /unknown key "colour"/,
    ],
    ['safety_checker table', '[[safety_checker]]\ntoolName = "*"\npriority = 1\n', 1, /not supported/],
    [
      'nested safety checker',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\n[rule.safety_checker]\ntype = "in-process"\n',
      5,
      /not supported/,
    ],
    [
      'deprecated snake case',
      '[[rule]]\ntoolName = "x"\ndecision = "deny"\npriority = 1\ndeny_message = "m"\n',
      5,
      /deprecated.*denyMessage/,
    ],
    ['unknown top-level key', '[[rules]]\ntoolName = "x"\n', 1, /unknown top-level key "rules".*did you mean/],
  ])('%s: warning, not error', (_name, text, line, message) => {
    expect(errors(text)).toEqual([]);
    const w = warnings(text);
    expect(w[0]).toMatchObject({ line });
    expect(w[0]!.message).toMatch(message);
  });

  it('accepts regexes with lookbehind (the catastrophe check still runs on them)', () => {
    expect(errors('[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\nargsPattern = "(?<=a)b"\n')).toEqual([]);
    expect(
      errors('[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\nargsPattern = "(?<=a)(b+)+"\n')[0]!.message,
    ).toMatch(/catastrophic/);
  });
});

describe('parsePolicyToml diagnostics, exactly as a person reads them', () => {
  const head = '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\n';
  it.each<[string, string, Array<[string, number, number, string]>]>([
    [
      'a syntax error',
      '[[rule]]\ntoolName = "x\n',
      [['error', 2, 14, 'TOML does not parse: control characters are not allowed in strings']],
    ],
    [
      'an integer TOML cannot hold',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 9007199254740993\n',
      [['error', 4, 12, 'TOML does not parse: integer value cannot be represented losslessly']],
    ],
    [
      'no toolName',
      '\n[[rule]]\ndecision = "allow"\npriority = 1\n',
      [['error', 2, 1, 'rule #1: toolName is missing (use "*" for every tool)']],
    ],
    [
      'an empty toolName',
      '[[rule]]\ntoolName = ""\ndecision = "allow"\npriority = 1\n',
      [['error', 2, 1, 'rule #1: toolName must be a non-empty string or an array of non-empty strings']],
    ],
    [
      'a quoted toolName key of the wrong type',
      '[[rule]]\n"toolName" = 5\ndecision = "allow"\npriority = 1\n',
      [['error', 2, 1, 'rule #1: toolName must be a non-empty string or an array of non-empty strings']],
    ],
    [
      'a toolName list with an empty name',
      '[[rule]]\ntoolName = ["a", ""]\ndecision = "allow"\npriority = 1\n',
      [['error', 2, 1, 'rule #1: toolName must be a non-empty string or an array of non-empty strings']],
    ],
    [
      'an empty toolName list',
      '[[rule]]\ntoolName = []\ndecision = "allow"\npriority = 1\n',
      [['error', 2, 1, 'rule #1: toolName must be a non-empty string or an array of non-empty strings']],
    ],
    [
      'no decision',
      '[[rule]]\ntoolName = "x"\npriority = 1\n',
      [['error', 1, 1, 'rule #1: decision is missing (allow, deny or ask_user)']],
    ],
    [
      'a bad decision',
      '[[rule]]\ntoolName = "x"\npriority = 1\ndecision = "maybe"\n',
      [['error', 4, 1, 'rule #1: decision must be allow, deny or ask_user, not "maybe"']],
    ],
    [
      'no priority',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\n',
      [['error', 1, 1, 'rule #1: priority is missing (an integer from 0 to 999)']],
    ],
    [
      'priority 1000',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1000\n',
      [
        [
          'error',
          4,
          1,
          'rule #1: priority must be an integer from 0 to 999, not 1000 (1000 and above would jump into the next tier)',
        ],
      ],
    ],
    [
      'priority -1',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = -1\n',
      [['error', 4, 1, 'rule #1: priority must be an integer from 0 to 999, not -1']],
    ],
    [
      'priority 1.5',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1.5\n',
      [['error', 4, 1, 'rule #1: priority must be an integer from 0 to 999, not 1.5']],
    ],
    [
      'a string priority',
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = "5"\n',
      [['error', 4, 1, 'rule #1: priority must be an integer from 0 to 999, not "5"']],
    ],
    [
      'an invalid regex, indented',
      `${head}  argsPattern = "(a"\n`,
      [['error', 5, 3, 'rule #1: argsPattern: invalid regular expression: /(a/: Unterminated group']],
    ],
    [
      'a catastrophic regex',
      `${head}argsPattern = "(a+)+$"\n`,
      [
        [
          'error',
          5,
          1,
          'rule #1: argsPattern: catastrophic regular expression /(a+)+$/: a repeated group contains another repetition (like (a+)+), which can take exponential time; rewrite it without nested quantifiers',
        ],
      ],
    ],
    [
      'commandPrefix on another tool',
      '[[rule]]\ntoolName = "read_file"\ncommandPrefix = "ls"\ndecision = "allow"\npriority = 1\n',
      [['error', 3, 1, 'rule #1: commandPrefix only applies to toolName = "run_shell_command"']],
    ],
    [
      'commandRegex on another tool',
      '[[rule]]\ntoolName = "x"\ncommandRegex = "ls"\ndecision = "deny"\npriority = 1\n',
      [['error', 3, 1, 'rule #1: commandRegex only applies to toolName = "run_shell_command"']],
    ],
    [
      'commandPrefix that is not a string',
      '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = [1]\ndecision = "deny"\npriority = 1\n',
      [['error', 3, 1, 'rule #1: commandPrefix must be a non-empty string or an array of non-empty strings']],
    ],
    [
      'commandPrefix with commandRegex and argsPattern',
      '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "ls"\ncommandRegex = "x"\nargsPattern = "y"\ndecision = "allow"\npriority = 1\n',
      [
        ['error', 3, 1, 'rule #1: commandPrefix and argsPattern cannot be combined in one rule'],
        ['error', 4, 1, 'rule #1: commandPrefix and commandRegex cannot be combined in one rule'],
      ],
    ],
    [
      'commandRegex with argsPattern',
      '[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "x"\nargsPattern = "y"\ndecision = "allow"\npriority = 1\n',
      [['error', 3, 1, 'rule #1: commandRegex and argsPattern cannot be combined in one rule']],
    ],
    [
      "modes with Gemini CLI's settings spelling",
      `${head}modes = ["auto_edit"]\n`,
      [
        [
          'error',
          5,
          1,
          'rule #1: modes must be an array of "default", "autoEdit", "yolo", "plan"; "auto_edit" is not one (the TOML spelling is "autoEdit")',
        ],
      ],
    ],
    [
      'modes as a string',
      `${head}modes = "yolo"\n`,
      [['error', 5, 1, 'rule #1: modes must be an array of "default", "autoEdit", "yolo", "plan"; "yolo" is not one']],
    ],
    [
      'a bad interactive',
      `${head}interactive = "yes"\n`,
      [['error', 5, 1, 'rule #1: interactive must be true or false, not "yes"']],
    ],
    [
      'a bad allowRedirection',
      `${head}allowRedirection = 1\n`,
      [['error', 5, 1, 'rule #1: allowRedirection must be true or false, not 1']],
    ],
    [
      'toolAnnotations that is not a table',
      `${head}toolAnnotations = 3\n`,
      [['error', 5, 1, 'rule #1: toolAnnotations must be a table, e.g. { readOnlyHint = true }']],
    ],
    [
      'toolAnnotations that is a date',
      `${head}toolAnnotations = 1979-05-27\n`,
      [['error', 5, 1, 'rule #1: toolAnnotations must be a table, e.g. { readOnlyHint = true }']],
    ],
    [
      'toolAnnotations that is a list',
      `${head}toolAnnotations = [1]\n`,
      [['error', 5, 1, 'rule #1: toolAnnotations must be a table, e.g. { readOnlyHint = true }']],
    ],
    [
      'an empty mcpName',
      `${head}mcpName = ""\n`,
      [['error', 5, 1, 'rule #1: mcpName must be a non-empty string, not ""']],
    ],
    [
      'a number for subagent',
      `${head}subagent = 5\n`,
      [['error', 5, 1, 'rule #1: subagent must be a non-empty string, not 5']],
    ],
    ['an empty name', `${head}name = ""\n`, [['error', 5, 1, 'rule #1: name must be a non-empty string, not ""']]],
    [
      'a list for denyMessage',
      `${head}denyMessage = ["a"]\n`,
      [['error', 5, 1, 'rule #1: denyMessage must be a non-empty string, not ["a"]']],
    ],
    ['"rule" as a value', 'rule = 5\n', [['error', 1, 1, '"rule" must be an array of tables, written [[rule]]']]],
    [
      '"rule" as one table',
      '\n[rule]\ntoolName="x"\n',
      [['error', 2, 1, '"rule" must be an array of tables, written [[rule]]']],
    ],
    ['a rule that is not a table', 'rule = [1]\n', [['error', 1, 1, 'rule #1: must be a table']]],
    [
      'the second rule broken',
      `${head}\n[[rule]]\ntoolName = "y"\ndecision = "no"\npriority = 1\n`,
      [['error', 8, 1, 'rule #2: decision must be allow, deny or ask_user, not "no"']],
    ],
    ['an unknown key', `${head}colour = "red"\n`, [['warning', 5, 1, 'rule #1: unknown key "colour" ignored']]],
    [
      'deny_message',
      '[[rule]]\ntoolName = "x"\ndecision = "deny"\npriority = 1\ndeny_message = "m"\n',
      [['warning', 5, 1, 'rule #1: "deny_message" is deprecated; write "denyMessage"']],
    ],
    [
      'allow_redirection',
      `${head}allow_redirection = true\n`,
      [['warning', 5, 1, 'rule #1: "allow_redirection" is deprecated; write "allowRedirection"']],
    ],
    [
      'a safety checker inside a rule',
      `${head}[rule.safety_checker]\ntype = "in-process"\n`,
      [['warning', 5, 1, 'rule #1: safety checkers are not supported by agent-action; ignored']],
    ],
    [
      'two safety checker tables',
      '[[safety_checker]]\na=1\n  [[safety_checker]]\nb=2\n',
      [
        ['warning', 1, 1, '[[safety_checker]] is not supported by agent-action; the table is ignored'],
        ['warning', 3, 3, '[[safety_checker]] is not supported by agent-action; the table is ignored'],
      ],
    ],
    [
      'one safety checker table',
      '\n [safety_checker]\na=1\n',
      [['warning', 2, 2, '[[safety_checker]] is not supported by agent-action; the table is ignored']],
    ],
    ['an unknown top-level key', `foo = 1\n${head}`, [['warning', 1, 1, 'unknown top-level key "foo" ignored']]],
    ['an unknown top-level table', '\n  [foo]\na = 1\n', [['warning', 2, 3, 'unknown top-level key "foo" ignored']]],
    [
      '[[rules]]',
      '[[rules]]\ntoolName = "x"\n',
      [['warning', 1, 1, 'unknown top-level key "rules" ignored (did you mean [[rule]]?)']],
    ],
    [
      'an allow prefix that is not plain words',
      '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "ls *"\ndecision = "allow"\npriority = 1\n',
      [
        [
          'warning',
          3,
          1,
          'rule #1: commandPrefix "ls *" is not plain shell words (it has "*", which bash would expand or treat as syntax); it allows only commands whose text starts with it, followed by a blank or the end',
        ],
      ],
    ],
  ])('%s', (_name, text, want) => {
    expect(parse(text).diagnostics.map((d) => [d.severity, d.line, d.column, d.message])).toEqual(want);
    for (const d of parse(text).diagnostics) expect(d.file).toBe('p.toml');
  });

  it('keeps a rule that only has warnings, with the current spelling of deprecated keys', () => {
    expect(
      parse(
        '[[rule]]\ntoolName = "x"\ndecision = "deny"\npriority = 3\ndeny_message = "no"\nallow_redirection = false\ncolour = 1\n',
      ).rules,
    ).toEqual([
      {
        toolNames: ['x'],
        decision: 'deny',
        priority: 3,
        allowRedirection: false,
        denyMessage: 'no',
        source: 'p.toml',
        line: 1,
      },
    ]);
  });

  it('a rule with only the required keys has nothing else set; optional keys are kept only when given', () => {
    expect(parse('[[rule]]\ntoolName = ["a", "b"]\ndecision = "ask_user"\npriority = 0\n').rules).toEqual([
      { toolNames: ['a', 'b'], decision: 'ask_user', priority: 0, source: 'p.toml', line: 1 },
    ]);
    expect(parse(`${head}interactive = false\nallowRedirection = false\n`).rules[0]).toMatchObject({
      interactive: false,
      allowRedirection: false,
    });
    expect(
      parse(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "  git log  "\ndecision = "allow"\npriority = 999\n',
      ).rules[0],
    ).toMatchObject({
      commandPrefixes: ['git log'],
      priority: 999,
    });
  });

  it('finds a key after a blank line and a comment in its block, and not a same-named key of another block', () => {
    const text =
      '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\n\n[[rule]]\n# the second\ntoolName = "y"\n\ndecision = "allow"\n priority = 1.5\n';
    expect(parse(text).diagnostics.map((d) => [d.line, d.column])).toEqual([[11, 2]]);
  });
});
