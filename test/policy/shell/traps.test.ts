/**
 * The constructs that run code later, one trap at a time: the argv checks directly, the tree checks
 * through whole command lines, each with a near miss that must stay accounted for.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashGrammar, splitShell } from '../../../src/policy/shell/split.js';
import { declarationTrap, nameArgumentTrap, steersLaterCommands } from '../../../src/policy/shell/traps.js';

beforeAll(() => loadBashGrammar());

const SUBSCRIPT = 'a variable name with a subscript, which bash evaluates as arithmetic: ';

describe('nameArgumentTrap', () => {
  it.each<[string[], boolean]>([
    [['printf', '-v', 'a[1]', 'x'], true],
    [['printf', '%s', 'a[1]'], false],
    [['wait', '-p', 'a[1]'], true],
    [['wait', '-v', 'a[1]'], false],
    [['unset', 'a[1]'], true],
    [['unset', 'a'], false],
    [['test', '-v', 'a[1]'], true],
    [['[', '-v', 'a[1]', ']'], true],
    [['[', 'a[1]', ']'], false],
    [['[[', '-v a[1]', ']]'], true],
    [['[[', 'x || -v a[1]', ']]'], true],
    [['[[', 'x-v a[1]', ']]'], false],
    [['[[', '-n a[1]', ']]'], false],
    [['echo', '-v', 'a[1]'], false],
    // Every builtin that takes variable names (bug: one left out of the list runs `a[$(id)]`).
    [['read', 'a[1]'], true],
    [['mapfile', 'a[1]'], true],
    [['readarray', 'a[1]'], true],
    [['getopts', 'ab', 'a[1]'], true],
    [['declare', 'a[1]'], true],
    [['typeset', 'a[1]'], true],
    [['local', 'a[1]'], true],
    [['export', 'a[1]'], true],
    [['readonly', 'a[1]'], true],
    [['read', 'a'], false],
  ])('%j: %s', (words, trapped) => {
    const text = words.join(' ');
    expect(nameArgumentTrap(words, text)).toBe(trapped ? `${SUBSCRIPT}${JSON.stringify(text)}` : undefined);
  });
});

describe('declarationTrap', () => {
  const why = (text: string) =>
    `a declaration with -i or -n, whose values are evaluated later: ${JSON.stringify(text)}`;
  it.each<[string[], boolean[], boolean]>([
    [['declare', '-i', 'x'], [true, true, true], true],
    [['declare', '-ai', 'x'], [true, true, true], true],
    [['declare', '+n', 'x'], [true, true, true], true],
    [['declare', '-a', 'x'], [true, true, true], false],
    [['declare', 'x=-n'], [true, true], false],
    [['declare', 'x=-i'], [true, true], false],
    // A flag known only at run time is not read as one (the word's text is not its value).
    [['declare', '-i', 'x'], [true, false, true], false],
  ])('%j (literal %j): %s', (words, literal, trapped) => {
    const text = words.join(' ');
    expect(declarationTrap(words, literal, text)).toBe(trapped ? why(text) : undefined);
  });
});

describe('steersLaterCommands', () => {
  it.each<[string, boolean]>([
    ['foo', false],
    ['ab', false],
    ['_x9', false],
    ['x_npm_config_y', false],
    ['PATH', true],
    ['Path', true],
    ['aB', true],
    ['9a', true],
    ['_', true],
    ['http_proxy', true],
    ['no_proxy', true],
    ['npm_config_registry', true],
  ])('%j: %s', (name, steers) => {
    expect(steersLaterCommands(name)).toBe(steers);
  });
});

describe('traps in whole command lines', () => {
  it.each<[string, string[]]>([
    // Values holding substitution text that a later expansion could run.
    ["x=$'abc'", []],
    ["x=$'\\x41'", ['a variable set to text that holds a command substitution: "x=$\'\\\\x41\'"']],
    ['x="\\$(id)"', ['a variable set to text that holds a command substitution: "x=\\"\\\\$(id)\\""']],
    ['x="a\\nb"', []],
    ["x=a'$(id)'", ['a variable set to text that holds a command substitution: "x=a\'$(id)\'"']],
    ['x=a\\`id\\`', ['a variable set to text that holds a command substitution: "x=a\\\\`id\\\\`"']],
    ['x=a\\nb', []],
    // Inside single quotes a backslash is a plain character: `\$b` stays text (bug: scanning raw strings for escapes).
    ["x='a\\$b'", []],
    // Arithmetic: only literal numbers.
    ['echo $(( 0x10 ))', []],
    ['echo $(( 12 ))', []],
    // Operators over literal numbers are still literal (bug: a kind of expression missing from the allowed list).
    ['echo $(( 1 + 2 ))', []],
    ['echo $(( -1 ))', []],
    ['echo $(( (1) ))', []],
    ['echo $(( 1 ? 2 : 3 ))', []],
    ['echo $(( 1 # c\n ))', []],
    ['echo $(( 1a ))', ['arithmetic on values known only at run time: "$(( 1a ))"']],
    ['[[ 0x10 -eq 16 ]]', []],
    ['[[ -12 -eq 1 ]]', []],
    ['[[ a1 -eq 1 ]]', ['an arithmetic comparison of values known only at run time: "[[ a1 -eq 1 ]]"']],
    ['[[ 1a -eq 1 ]]', ['an arithmetic comparison of values known only at run time: "[[ 1a -eq 1 ]]"']],
    ['[[ $x -ne 1 ]]', ['an arithmetic comparison of values known only at run time: "[[ $x -ne 1 ]]"']],
    ['[[ $x -le 1 ]]', ['an arithmetic comparison of values known only at run time: "[[ $x -le 1 ]]"']],
    ['[[ $x -gt 1 ]]', ['an arithmetic comparison of values known only at run time: "[[ $x -gt 1 ]]"']],
    ['[[ $x -ge 1 ]]', ['an arithmetic comparison of values known only at run time: "[[ $x -ge 1 ]]"']],
    ['[[ $x == 1 ]]', []],
    ['[[ $x -eqa 1 ]]', []],
    [
      '[[ -n $x && $y -eq 1 ]]',
      ['an arithmetic comparison of values known only at run time: "[[ -n $x && $y -eq 1 ]]"'],
    ],
    // Subscripts: only literal indexes, @ and *.
    ['echo ${a[12]}', []],
    ['echo ${a[x1]}', ['an array subscript, which bash evaluates as arithmetic: "a[x1]"']],
    ['echo ${a[1x]}', ['an array subscript, which bash evaluates as arithmetic: "a[1x]"']],
    ['echo ${a[@]} ${a[*]} ${a[0]}', []],
    // Indirect, prompt and substring expansions.
    ['echo ${!x@}', []],
    ['echo ${!x*}', []],
    ['echo ${!x@Q}', ['an indirect expansion: "${!x@Q}"']],
    ['echo ${x@Q} ${x@a}', []],
    ['echo ${x:y}', ['a substring offset, which bash evaluates as arithmetic: "${x:y}"']],
    ['echo ${x:1:$n}', ['a substring offset, which bash evaluates as arithmetic: "${x:1:$n}"']],
    ['echo ${x:1:2x}', ['a substring offset, which bash evaluates as arithmetic: "${x:1:2x}"']],
    ['echo ${x:1:x2}', ['a substring offset, which bash evaluates as arithmetic: "${x:1:x2}"']],
    ['echo ${x:1:12}', []],
    ['echo ${x: -1}', []],
    ['echo ${x:-$y}', []],
  ])('%j', (command, unknowns) => {
    expect(splitShell(command).unknowns).toEqual(unknowns);
  });

  it.each<[string, boolean]>([
    ['x=1', false],
    ['PATH=/tmp', true],
    ['A[1]=x', true],
    ['x=1 ls', false],
    ['PATH=/tmp ls', false],
    ['export PATH', true],
    ['for PATH in a; do :; done', true],
    ['for i in a; do :; done', false],
  ])('%j changes the environment: %s', (command, changes) => {
    expect(splitShell(command).changesEnvironment).toBe(changes);
  });
});
