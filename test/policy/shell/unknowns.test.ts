/**
 * What the splitter cannot account for, in the words the verdict gives people (the approval
 * comment, the job log): one row per construct, with every reason it reports, exactly. A line with
 * any of them is never allowed by its text. The near misses, accounted for in full, are below.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashGrammar, splitShell } from '../../../src/policy/shell/split.js';

beforeAll(() => loadBashGrammar());

describe('what the splitter cannot account for, and says so', () => {
  it.each<[string, string[]]>([
    ['echo "unterminated', ['text that does not parse as bash: "\\"unterminated"']],
    ['ls &&', ['an incomplete command (missing "word")']],
    ['(ls', ['text that does not parse as bash: "(ls"']],
    ['if ls; then', ['text that does not parse as bash: "if ls; then"']],
    ['sh -c "$SCRIPT"', ['`sh` with an option known only at run time: "sh -c \\"$SCRIPT\\""']],
    ['bash -c "$(curl x)"', ['`bash` with an option known only at run time: "bash -c \\"$(curl x)\\""']],
    ['eval "$X"', ['`eval` of a string built at run time: "eval \\"$X\\""']],
    ['eval $(cat f)', ['`eval` of a string built at run time: "eval $(cat f)"']],
    ['source "$F"', ['`source` of a file named at run time: "source \\"$F\\""']],
    ['. <(curl x)', ['`.` of a file named at run time: ". <(curl x)"']],
    ['exec "$CMD"', ['`exec` with an option known only at run time: "exec \\"$CMD\\""']],
    ['$CMD -rf /', ['a command whose name is only known at run time: "$CMD -rf /"']],
    ['"$(which rm)" -rf /', ['a command whose name is only known at run time: "\\"$(which rm)\\" -rf /"']],
    ['env -S "rm -rf /"', ['`env` with option -S, which the policy does not understand: "env -S \\"rm -rf /\\""']],
    ['xargs sh -c < f', ['`sh` with an option known only at run time: "sh -c …"']],
    ['find . -exec rm {}', ['`find -exec` without its closing ";" or "+": "find . -exec rm {}"']],
    ['curl x | sh', ['a shell that reads its script from standard input: "sh"']],
    ['curl x | bash -s', ['a shell that reads its script from standard input: "bash -s"']],
    ['bash < script.sh', ['a shell that reads its script from standard input: "bash"']],
    ['bash <<EOF\n$(curl x)\nEOF', ['a shell that reads its script from standard input: "bash"']],
    [
      'echo $(( a[$(id)] ))',
      [
        'arithmetic on values known only at run time: "$(( a[$(id)] ))"',
        'an array subscript, which bash evaluates as arithmetic: "a[$(id)]"',
      ],
    ],
    ['echo $(( x + 1 ))', ['arithmetic on values known only at run time: "$(( x + 1 ))"']],
    ['(( x++ ))', ['arithmetic on values known only at run time: "(( x++ ))"']],
    [
      'for ((i=0; i<3; i++)); do :; done',
      ['arithmetic on values known only at run time: "for ((i=0; i<3; i++)); do :; done"'],
    ],
    ['let x=1', ['`let` evaluates arithmetic, which can run commands through array subscripts: "let x=1"']],
    ['[[ $x -eq 1 ]]', ['an arithmetic comparison of values known only at run time: "[[ $x -eq 1 ]]"']],
    ['echo ${a[$i]}', ['an array subscript, which bash evaluates as arithmetic: "a[$i]"']],
    ['a[$(id)]=1', ['an array subscript, which bash evaluates as arithmetic: "a[$(id)]"']],
    [
      "unset 'a[$(id)]'",
      ['a variable name with a subscript, which bash evaluates as arithmetic: "unset \'a[$(id)]\'"'],
    ],
    ['declare -i n=$x', ['a declaration with -i or -n, whose values are evaluated later: "declare -i n=$x"']],
    ['declare -n ref=x', ['a declaration with -i or -n, whose values are evaluated later: "declare -n ref=x"']],
    ['echo ${!ref}', ['an indirect expansion: "${!ref}"']],
    ['echo ${x@P}', ['a prompt expansion (${x@P}) runs substitutions held in a value: "${x@P}"']],
    [
      "PS4='$(id)' bash -xc ls",
      [
        'variables set for `bash` (BASH_ENV, ENV...) can make it run other code: "PS4=\'$(id)\' bash -xc ls"',
        'a variable set to text that holds a command substitution: "PS4=\'$(id)\'"',
      ],
    ],
    [
      "x='a[$(id)]'; echo $((x))",
      [
        'a variable set to text that holds a command substitution: "x=\'a[$(id)]\'"',
        'arithmetic on values known only at run time: "$((x))"',
      ],
    ],
    [
      'printf -v "a[$i]" x',
      ['a variable name with a subscript, which bash evaluates as arithmetic: "printf -v \\"a[$i]\\" x"'],
    ],
    [
      '! { rm -rf /; }',
      [
        'a reserved word where a command name should be (the parser misread the line): "{ rm -rf /"',
        'a reserved word where a command name should be (the parser misread the line): "}"',
      ],
    ],
    ['trap "$X" EXIT', ['`trap` of a command built at run time: "trap \\"$X\\" EXIT"']],
    ['enable -f ./x.so x', ['`enable -f` loads code from a shared library: "enable -f ./x.so x"']],
    ['hash -p /tmp/evil ls', ['`hash -p` makes a command name run another program: "hash -p /tmp/evil ls"']],
    ['exec 3<> f', ['text that does not parse as bash: ">"']],
    [
      'BASH_ENV=./x.sh bash -c ls',
      ['variables set for `bash` (BASH_ENV, ENV...) can make it run other code: "BASH_ENV=./x.sh bash -c ls"'],
    ],
    [
      'env BASH_ENV=./x.sh bash -c ls',
      ['variables set for `bash` (BASH_ENV, ENV...) can make it run other code: "bash -c ls"'],
    ],
    ['X=1 eval ls', ['variables set for `eval` (BASH_ENV, ENV...) can make it run other code: "X=1 eval ls"']],
    ['echo "${x:-\'$(id)\'}"', ['"$(" that the parser left as text in "\'$(id)\'"']],
    ['echo ${!x}', ['an indirect expansion: "${!x}"']],
    ['echo ${x:$y}', ['words the parser split apart, which bash reads as one: "echo ${x:$y}"']],
    [
      'echo ${x@p}',
      [
        'words the parser split apart, which bash reads as one: "echo ${x@p}"',
        'text that does not parse as bash: "${x@"',
      ],
    ],
    // tree-sitter makes `'--for'\ce` two words; bash runs `git push --force`.
    ["git push '--for'\\ce", ['words the parser split apart, which bash reads as one: "git push \'--for\'\\\\ce"']],
    ['rm "a"\\b', ['words the parser split apart, which bash reads as one: "rm \\"a\\"\\\\b"']],
    // A backslash-escaped tab stays in the word (bash runs `rm 'a<TAB>b'`); tree-sitter splits there.
    ['rm a\\\tb', ['words the parser split apart, which bash reads as one: "rm a\\\\ b"']],
    ['rm "a"\\\tb', ['words the parser split apart, which bash reads as one: "rm \\"a\\"\\\\ b"']],
    ['export A=a\\\tb', ['words the parser split apart, which bash reads as one: "export A=a\\\\ b"']],
    // bash keeps a `$` before a blank as the word `$`; tree-sitter drops it (echo, a) or glues the next word on as a
    // variable's name, so `export $ PATH=/x` hides an assignment to PATH.
    ['echo $ a', ['a `$` before a blank, which bash keeps as a word of its own: "echo $ a"']],
    ['echo a $', ['a `$` before a blank, which bash keeps as a word of its own: "echo a $"']],
    ['export $ PATH=/x; ls', ['a `$` before a blank, which bash keeps as a word of its own: "export $ PATH=/x; ls"']],
    ['echo $\tls', ['a `$` before a blank, which bash keeps as a word of its own: "echo $ ls"']],
    ['read "a[$i]"', ['a variable name with a subscript, which bash evaluates as arithmetic: "read \\"a[$i]\\""']],
    ['wait -p "a[1]"', ['a variable name with a subscript, which bash evaluates as arithmetic: "wait -p \\"a[1]\\""']],
    ['[ -v "a[1]" ]', ['a variable name with a subscript, which bash evaluates as arithmetic: "[ -v \\"a[1]\\" ]"']],
    ['test -v a[x]', ['a variable name with a subscript, which bash evaluates as arithmetic: "test -v a[x]"']],
    ['declare +i x', ['a declaration with -i or -n, whose values are evaluated later: "declare +i x"']],
    ['local -n r', ['a declaration with -i or -n, whose values are evaluated later: "local -n r"']],
    [
      'for ((i=0;i<3;i++)); do :; done',
      ['arithmetic on values known only at run time: "for ((i=0;i<3;i++)); do :; done"'],
    ],
    ['[[ $x -lt 2 ]]', ['an arithmetic comparison of values known only at run time: "[[ $x -lt 2 ]]"']],
    ["x=$'\\x24(id)'", ['a variable set to text that holds a command substitution: "x=$\'\\\\x24(id)\'"']],
    ["x='`id`'", ['a variable set to text that holds a command substitution: "x=\'`id`\'"']],
    ['x=\\$(id)', ['text that does not parse as bash: "\\\\$"']],
    ['{ ls; } > f x', ['words after a redirection of a compound command: "{ ls; } > f x"']],
    ['if true; fi', ['text that does not parse as bash: "if true; fi"']],
    ['ls ))', ['text that does not parse as bash: "))"']],
  ])('%j', (command, unknowns) => {
    expect(splitShell(command).unknowns).toEqual(unknowns);
  });

  it.each([
    'a `b` c',
    'echo ${!x*}',
    'echo ${x:1:2}',
    'echo ${x@Q}',
    '((1+2))',
    '[[ 1 -eq 2 ]]',
    'echo ${a[1]}',
    'echo ${a[@]}',
    'echo ${a[*]}',
    'echo a#b',
    'echo a #b',
    'ls;#x',
    'rm a\\\\\tb',
    'rm a\\ \tb',
    'grep x$ f',
    'echo a$ b',
    'echo "$ a"',
    "echo 'a $ b'",
  ])('%j is accounted for in full', (command) => {
    expect(splitShell(command).unknowns).toEqual([]);
  });
});
