/**
 * The splitter's walk over the tree, construct by construct, with its whole answer checked exactly
 * (toStrictEqual: a write whose target is only known at run time has no `path` key at all). Each row
 * names the mistake it catches.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { loadBashGrammar, splitShell, type ShellSplit } from '../../../src/policy/shell/split.js';
import { P, S } from '../../support/shell-split-rows.js';

beforeAll(() => loadBashGrammar());

const out = { text: 'out', path: 'out' };

describe('line continuations, removed where bash removes them', () => {
  it.each<[string, ShellSplit]>([
    // Inside "${x:-'...'}" the single quotes are plain characters: the continuation goes.
    ['echo "${x:-\'a\\\nb\'}"', S([P('echo "${x:-\'ab\'}"', ['echo', '"${x:-\'ab\'}"'], [true, false])])],
    // ...but inside a substitution within double quotes they quote again: it stays.
    [
      'echo "$(echo \'a\\\nb\')"',
      S([
        P('echo "$(echo \'a\\\nb\')"', ['echo', '"$(echo \'a\\\nb\')"'], [true, false]),
        P("echo 'a\\\nb'", ['echo', 'a\\\nb'], [true, true]),
      ]),
    ],
    [
      "cat <(echo 'a\\\nb')",
      S([
        P("cat <(echo 'a\\\nb')", ['cat', "<(echo 'a\\\nb')"], [true, false]),
        P("echo 'a\\\nb'", ['echo', 'a\\\nb'], [true, true]),
      ]),
    ],
    // Within double quotes `<(` is text, and the single quotes with it; bash prints `<(echo 'ab')` for both.
    [
      'echo "${x:-<(echo \'a\\\nb\')}"',
      S(
        [
          P('echo "${x:-<(echo \'ab\')}"', ['echo', '"${x:-<(echo \'ab\')}"'], [true, false]),
          P("echo 'ab'", ['echo', 'ab'], [true, true]),
        ],
        {
          unknowns: ['an incomplete command (missing "word")'],
        },
      ),
    ],
    ['echo "<(echo \'a\\\nb\')"', S([P('echo "<(echo \'ab\')"', ['echo', "<(echo 'ab')"], [true, true])])],
    // In ANSI-C quoting it stays (bash prints a, backslash, newline, b); in double quotes `$'` is text.
    ["echo $'a\\\nb'", S([P("echo $'a\\\nb'", ['echo', "$'a\\\nb'"], [true, false])])],
    ['echo "$\'a\\\nb\'"', S([P('echo "$\'ab\'"', ['echo', "$'ab'"], [true, true])])],
    // A quoted here-document is read as written: the shell reading it keeps the continuation in quotes.
    [
      "bash <<'E'\necho 'a\\\nb'\nE",
      S([
        P('bash', ['bash'], [true], { redirected: true }),
        P("echo 'a\\\nb'", ['echo', 'a\\\nb'], [true, true], { redirected: true }),
      ]),
    ],
    // Only a backslash before a newline goes; `\ ` stays an escaped blank.
    ['echo a\\ b \\\nc', S([P('echo a\\ b c', ['echo', 'a b', 'c'], [true, true, true])])],
    // An escaped backslash does not escape the newline after it... but the next backslash does.
    ['echo \\\\\\\nls', S([P('echo \\\\ls', ['echo', '\\ls'], [true, true])])],
    // Several continuations, cut in order.
    ['r\\\nm -r\\\nf x', S([P('rm -rf x', ['rm', '-rf', 'x'], [true, true, true])])],
    ["echo 'a' \\\nb", S([P("echo 'a' b", ['echo', 'a', 'b'], [true, true, true])])],
    // A comment ends at the newline, backslash or not: `> out` is a command of its own.
    ['ls #c \\\n> out', S([P('ls', ['ls'], [true])], { writes: [out] })],
  ])('%j', (command, split) => {
    expect(splitShell(command)).toStrictEqual(split);
  });
});

describe('comments', () => {
  it.each<[string, ShellSplit]>([
    ['# just a comment', S([])],
    ['ls #c', S([P('ls', ['ls'], [true])])],
    // bash starts a comment only after a blank or an operator; tree-sitter is not so careful.
    [
      '[[ a ]]#c',
      S([P('[[ a ]]', ['[[', 'a'], [true, true])], { unknowns: ['a "#" the parser took for a comment: "#c"'] }),
    ],
    [
      'echo x>#y',
      S([P('echo x', ['echo', 'x'], [true, true])], {
        unknowns: ['text that does not parse as bash: ">#y"', 'a "#" the parser took for a comment: "#y"'],
      }),
    ],
    [
      'echo a\\ #b > out',
      S([P('echo a\\ #b', ['echo', 'a #b'], [true, true], { redirected: true, writesFile: true })], { writes: [out] }),
    ],
  ])('%j', (command, split) => {
    expect(splitShell(command)).toStrictEqual(split);
  });
});

describe('redirections', () => {
  it.each<[string, ShellSplit]>([
    // A redirection alone truncates the file.
    ['> out', S([], { writes: [out] })],
    [
      'ls > a 2> b',
      S([P('ls', ['ls'], [true], { redirected: true, writesFile: true })], {
        writes: [
          { text: 'a', path: 'a' },
          { text: 'b', path: 'b' },
        ],
      }),
    ],
    // A target known only at run time: no path.
    [
      'echo a > $F',
      S([P('echo a', ['echo', 'a'], [true, true], { redirected: true, writesFile: true })], {
        writes: [{ text: '$F' }],
      }),
    ],
    [
      'ls >> $HOME/x',
      S([P('ls', ['ls'], [true], { redirected: true, writesFile: true })], { writes: [{ text: '$HOME/x' }] }),
    ],
    // What a target's substitution runs is found, and writes to a pipe, not to the file.
    [
      'echo > $(id)',
      S([P('id', ['id'], [true]), P('echo', ['echo'], [true], { redirected: true, writesFile: true })], {
        writes: [{ text: '$(id)' }],
      }),
    ],
    [
      'ls > ${x:-`id`}',
      S([P('id', ['id'], [true]), P('ls', ['ls'], [true], { redirected: true, writesFile: true })], {
        writes: [{ text: '${x:-`id`}' }],
      }),
    ],
    ['cat < ${x:-`id`}', S([P('id', ['id'], [true]), P('cat', ['cat'], [true], { redirected: true })])],
    [
      'cat ${x:-`id`} > out',
      S(
        [
          P('cat ${x:-`id`}', ['cat', '${x:-`id`}'], [true, false], { redirected: true, writesFile: true }),
          P('id', ['id'], [true]),
        ],
        { writes: [out] },
      ),
    ],
    [
      'cat <(ls) > out',
      S(
        [
          P('cat <(ls)', ['cat', '<(ls)'], [true, false], { redirected: true, writesFile: true }),
          P('ls', ['ls'], [true]),
        ],
        { writes: [out] },
      ),
    ],
    [
      'echo $(ls > f)',
      S(
        [
          P('echo $(ls > f)', ['echo', '$(ls > f)'], [true, false]),
          P('ls', ['ls'], [true], { redirected: true, writesFile: true }),
        ],
        { writes: [{ text: 'f', path: 'f' }] },
      ),
    ],
    [
      'FOO=$(id) ls > out',
      S(
        [
          P('FOO=$(id) ls', ['ls'], [true], { assignments: ['FOO=$(id)'], redirected: true, writesFile: true }),
          P('id', ['id'], [true]),
        ],
        { writes: [out] },
      ),
    ],
    // Words tree-sitter hangs on the redirection are the command's, walked once.
    [
      'echo a > f $(id)',
      S(
        [
          P('echo a', ['echo', 'a', '$(id)'], [true, true, false], { redirected: true, writesFile: true }),
          P('id', ['id'], [true]),
        ],
        { writes: [{ text: 'f', path: 'f' }] },
      ),
    ],
    ['ls 2>&1 `c`', S([P('ls', ['ls', '`c`'], [true, false], { redirected: true }), P('c', ['c'], [true])])],
    // A function's body redirected where it is defined: nothing runs it here.
    ['f() { ls; } > out', S([P('ls', ['ls'], [true])], { writes: [out] })],
    // bash reads `10<` as a redirection of descriptor 10; `a1` and `1a` are words.
    ['rm 10<f', S([P('rm', ['rm'], [true], { redirected: true })])],
    ['cat a1<f', S([P('cat a1', ['cat', 'a1'], [true, true], { redirected: true })])],
    ['cat 1a<f', S([P('cat 1a', ['cat', '1a'], [true, true], { redirected: true })])],
  ])('%j', (command, split) => {
    expect(splitShell(command)).toStrictEqual(split);
  });
});

describe('here-documents and here-strings', () => {
  it.each<[string, ShellSplit]>([
    // The body is walked once.
    ['cat <<EOF\n`id`\nEOF', S([P('id', ['id'], [true]), P('cat', ['cat'], [true], { redirected: true })])],
    [
      'cat <<EOF > f\n${x:-`id`}\nEOF',
      S([P('id', ['id'], [true]), P('cat', ['cat'], [true], { redirected: true, writesFile: true })], {
        writes: [{ text: 'f', path: 'f' }],
      }),
    ],
    // No body: the here-document never ends.
    ['cat <<EOF', S([P('cat', ['cat'], [true])], { unknowns: ['text that does not parse as bash: "<<EOF"'] })],
    ['cat <<<${x:-`id`}', S([P('id', ['id'], [true]), P('cat <<<${x:-`id`}', ['cat'], [true], { redirected: true })])],
    [
      "bash <<<'rm x' > out",
      S(
        [
          P("bash <<<'rm x'", ['bash'], [true], { redirected: true, writesFile: true }),
          P('rm x', ['rm', 'x'], [true, true], { redirected: true, writesFile: true }),
        ],
        { writes: [out] },
      ),
    ],
    [
      "bash <<< 'rm x' 2>/dev/null",
      S(
        [
          P("bash <<< 'rm x'", ['bash'], [true], { redirected: true }),
          P('rm x', ['rm', 'x'], [true, true], { redirected: true }),
        ],
        {
          writes: [{ text: '/dev/null', path: '/dev/null' }],
        },
      ),
    ],
    // A script known only at run time is not read.
    [
      'bash <<< "$X"',
      S([P('bash <<< "$X"', ['bash'], [true], { redirected: true })], {
        unknowns: ['a shell that reads its script from standard input: "bash <<< \\"$X\\""'],
      }),
    ],
  ])('%j', (command, split) => {
    expect(splitShell(command)).toStrictEqual(split);
  });
});

describe('substitutions', () => {
  it.each<[string, ShellSplit]>([
    [
      'diff <(ls a) >(cat)',
      S([
        P('diff <(ls a) >(cat)', ['diff', '<(ls a)', '>(cat)'], [true, false, false]),
        P('ls a', ['ls', 'a'], [true, true]),
        P('cat', ['cat'], [true]),
      ]),
    ],
    // `$(...)` is parsed as written: `\$x` stays a literal `$x`.
    [
      'echo $(echo \\$x)',
      S([
        P('echo $(echo \\$x)', ['echo', '$(echo \\$x)'], [true, false]),
        P('echo \\$x', ['echo', '$x'], [true, true]),
      ]),
    ],
    // In backticks outside double quotes, `\"` keeps its backslash; inside them it loses it.
    [
      'echo `echo \\"x\\"`',
      S([
        P('echo `echo \\"x\\"`', ['echo', '`echo \\"x\\"`'], [true, false]),
        P('echo \\"x\\"', ['echo', '"x"'], [true, true]),
      ]),
    ],
    [
      'echo "`echo \\"x\\"`"',
      S([
        P('echo "`echo \\"x\\"`"', ['echo', '"`echo \\"x\\"`"'], [true, false]),
        P('echo "x"', ['echo', 'x'], [true, true]),
      ]),
    ],
    [
      'echo 2>&1 ` `',
      S([P('echo', ['echo'], [true], { redirected: true })], {
        unknowns: ['text that does not parse as bash: "` `"', 'backticks the parser misread, in "` `"'],
      }),
    ],
    [
      'A=${x:-`id`} ls',
      S([P('A=${x:-`id`} ls', ['ls'], [true], { assignments: ['A=${x:-`id`}'] }), P('id', ['id'], [true])]),
    ],
  ])('%j', (command, split) => {
    expect(splitShell(command)).toStrictEqual(split);
  });
});

describe('commands, assignments and builtins', () => {
  it.each<[string, ShellSplit]>([
    ['popd', S([P('popd', ['popd'], [true])], { changesDirectory: true })],
    [
      '$CMD -rf /',
      S([P('$CMD -rf /', ['$CMD', '-rf', '/'], [false, true, true])], {
        unknowns: ['a command whose name is only known at run time: "$CMD -rf /"'],
      }),
    ],
    [
      'A=1 then',
      S([P('A=1 then', ['then'], [true], { assignments: ['A=1'] })], {
        unknowns: ['a reserved word where a command name should be (the parser misread the line): "A=1 then"'],
      }),
    ],
    [
      'BASH_ENV=x bash -c ls',
      S([P('ls', ['ls'], [true])], {
        unknowns: ['variables set for `bash` (BASH_ENV, ENV...) can make it run other code: "BASH_ENV=x bash -c ls"'],
      }),
    ],
    // Assignments alone stay in the shell: an upper-case name may steer what runs later.
    ['X=1 Y=$(id)', S([P('id', ['id'], [true])], { changesEnvironment: true })],
    ['x=1 y=$(id)', S([P('id', ['id'], [true])])],
    [
      'x=$(ls) y=1 env',
      S([P('x=$(ls) y=1 env', ['env'], [true], { assignments: ['x=$(ls)', 'y=1'] }), P('ls', ['ls'], [true])]),
    ],
    [
      "PS4='$(id)' ls",
      S([P("PS4='$(id)' ls", ['ls'], [true], { assignments: ["PS4='$(id)'"] })], {
        unknowns: ['a variable set to text that holds a command substitution: "PS4=\'$(id)\'"'],
      }),
    ],
    ['export PATH', S([P('export PATH', ['export', 'PATH'], [true, false])], { changesEnvironment: true })],
    ['export path', S([P('export path', ['export', 'path'], [true, false])])],
    ['unset PATH', S([P('unset PATH', ['unset', 'PATH'], [true, false])])],
    // Single brackets compare strings as written; only [[ ]] evaluates its operands as arithmetic.
    ['[ $x -eq 1 ]', S([P('[ $x -eq 1 ]', ['[', '$x -eq 1'], [true, false])])],
    [
      '[[ $x -eq 1 ]]',
      S([P('[[ $x -eq 1 ]]', ['[[', '$x -eq 1'], [true, false])], {
        unknowns: ['an arithmetic comparison of values known only at run time: "[[ $x -eq 1 ]]"'],
      }),
    ],
    ['[[ x # c\n ]]', S([P('[[ x # c\n ]]', ['[[', 'x'], [true, true])])],
    ['export A=1 # c', S([P('export A=1', ['export', 'A=1'], [true, false])], { changesEnvironment: true })],
  ])('%j', (command, split) => {
    expect(splitShell(command)).toStrictEqual(split);
  });
});

describe('nesting limits reach every way in', () => {
  const deep = 'commands nested more than 8 levels deep';
  /** `script` run by eight shells, each reading the next from a quoted here-document. */
  const inside8 = (script: string) => {
    let c = script;
    for (let i = 1; i <= 8; i++) c = `bash <<'E${i}'\n${c}\nE${i}`;
    return c;
  };
  const bashes = Array.from({ length: 8 }, () => P('bash', ['bash'], [true], { redirected: true }));

  it('a backtick without backslashes is read at the depth of its command', () => {
    expect(splitShell(inside8('echo `ls`'))).toStrictEqual(
      S([...bashes, P('echo `ls`', ['echo', '`ls`'], [true, false], { redirected: true }), P('ls', ['ls'], [true])]),
    );
  });

  it('a backtick split again (it holds backslashes) is one level deeper', () => {
    expect(splitShell(inside8('echo `echo \\$x`'))).toStrictEqual(
      S([...bashes, P('echo `echo \\$x`', ['echo', '`echo \\$x`'], [true, false], { redirected: true })], {
        unknowns: [deep],
      }),
    );
  });

  it('a backtick inside ${...} is one level deeper', () => {
    expect(splitShell(inside8('cat ${x:-`id`}'))).toStrictEqual(
      S([...bashes, P('cat ${x:-`id`}', ['cat', '${x:-`id`}'], [true, false], { redirected: true })], {
        unknowns: [deep],
      }),
    );
  });
});

describe('before the grammar is loaded', () => {
  it('splitShell says what to do first', async () => {
    vi.resetModules();
    const fresh = await import('../../../src/policy/shell/split.js');
    expect(() => fresh.splitShell('ls')).toThrow(
      expect.objectContaining({
        kind: 'internal',
        message: 'the bash grammar is not loaded: await loadBashGrammar() first',
      }),
    );
  });
});
