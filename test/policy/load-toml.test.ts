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
      ['warning', 5, 'rule #1: commandPrefix "git commit -m \\"fix" is not plain shell words (it has an unclosed double quote); it matches commands whose text starts with it, as Gemini CLI does'],
      ['warning', 5, 'rule #1: commandPrefix "echo $HOME" is not plain shell words (it has "$", which bash would expand or treat as syntax); it matches commands whose text starts with it, as Gemini CLI does'],
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
      toolNames: ['run_shell_command'], commandPrefixes: ['git  log', 'ls'], decision: 'allow', priority: 7,
      modes: ['default', 'autoEdit'], interactive: true, allowRedirection: true, denyMessage: 'no', name: 'n', line: 2, source: 'p.toml',
    });
    expect(rules[1]).toMatchObject({ toolNames: ['x'], mcpName: 'srv', subagent: 'helper', toolAnnotations: { readOnlyHint: true }, line: 13 });
    expect(rules[1]!.argsPattern!.source).toBe('"a":1');
  });

  it.each([
    ['syntax error', '[[rule]]\ntoolName = "x\n', 2, /does not parse/],
    ['missing toolName', '\n[[rule]]\ndecision = "allow"\npriority = 1\n', 2, /toolName is missing/],
    ['missing decision', '[[rule]]\ntoolName = "x"\npriority = 1\n', 1, /decision is missing/],
    ['bad decision', '[[rule]]\ntoolName = "x"\npriority = 1\ndecision = "maybe"\n', 4, /decision must be allow, deny or ask_user/],
    ['missing priority', '[[rule]]\ntoolName = "x"\ndecision = "allow"\n', 1, /priority is missing/],
    ['priority too big', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1000\n', 4, /0 to 999.*next tier/],
    ['negative priority', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = -1\n', 4, /0 to 999/],
    ['fractional priority', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1.5\n', 4, /integer/],
    ['string priority', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = "5"\n', 4, /integer/],
    ['invalid regex', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\n  argsPattern = "(a"\n', 5, /argsPattern: invalid regular expression/],
    ['catastrophic regex', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\nargsPattern = "(a+)+$"\n', 5, /catastrophic/],
    ['catastrophic commandRegex', '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 1\ncommandRegex = "(\\\\w*)*x"\n', 5, /catastrophic/],
    ['prefix on other tool', '[[rule]]\ntoolName = "read_file"\ncommandPrefix = "ls"\ndecision = "allow"\npriority = 1\n', 3, /only applies to toolName = "run_shell_command"/],
    ['bad mode', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\nmodes = ["auto_edit"]\n', 5, /autoEdit/],
    ['empty toolName', '[[rule]]\ntoolName = ""\ndecision = "allow"\npriority = 1\n', 2, /non-empty/],
    ['bad interactive', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\ninteractive = "yes"\n', 5, /true or false/],
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
    expect(errors('[[rule]]\ntoolName = "x"\ndecision = "allow"\n    priority = 1.5\n')[0]).toMatchObject({ line: 4, column: 5 });
  });

  it('column of a TOML syntax error comes from the parser', () => {
    expect(errors('[[rule]]\ntoolName = = "x"\n')[0]).toMatchObject({ line: 2, column: expect.any(Number) });
  });

  it.each([
    ['unknown key', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\ncolour = "red"\n', 5, /unknown key "colour"/],
    ['safety_checker table', '[[safety_checker]]\ntoolName = "*"\npriority = 1\n', 1, /not supported/],
    ['nested safety checker', '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\n[rule.safety_checker]\ntype = "in-process"\n', 5, /not supported/],
    ['deprecated snake case', '[[rule]]\ntoolName = "x"\ndecision = "deny"\npriority = 1\ndeny_message = "m"\n', 5, /deprecated.*denyMessage/],
    ['unknown top-level key', '[[rules]]\ntoolName = "x"\n', 1, /unknown top-level key "rules".*did you mean/],
  ])('%s: warning, not error', (_name, text, line, message) => {
    expect(errors(text)).toEqual([]);
    const w = warnings(text);
    expect(w[0]).toMatchObject({ line });
    expect(w[0]!.message).toMatch(message);
  });

  it('accepts regexes with lookbehind (the catastrophe check still runs on them)', () => {
    expect(errors('[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\nargsPattern = "(?<=a)b"\n')).toEqual([]);
    expect(errors('[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = 1\nargsPattern = "(?<=a)(b+)+"\n')[0]!.message).toMatch(/catastrophic/);
  });
});
