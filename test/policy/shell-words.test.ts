/**
 * What bash makes of words, statically: the value after quote removal when nothing expands, the
 * source text (and not literal) when anything might; and the substitution syntax tree-sitter leaves
 * as plain text, which is either split as a script (backticks in ${...} and here-documents) or
 * reported. Each row is a whole line with every part (argv, which words are literal) and every unknown.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { initShellParser, splitShell } from '../../src/policy/shell-split.js';
import { excerpt } from '../../src/policy/shell-words.js';

beforeAll(() => initShellParser());

describe('words and the text tree-sitter left unparsed', () => {
  it.each<[string, Array<[string[], boolean[]]>, string[]]>([
    [
      'echo $"a"',
      [
        [
          ['echo', '"a"'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo x$"a"',
      [
        [
          ['echo', 'x$"a"'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo "a"b',
      [
        [
          ['echo', 'ab'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo a{b,c}',
      [
        [
          ['echo', 'a{b,c}'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo {a..c}',
      [
        [
          ['echo', '{a..c}'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo {a}',
      [
        [
          ['echo', '{a}'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo a{,}',
      [
        [
          ['echo', 'a{,}'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo ~x',
      [
        [
          ['echo', '~x'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo x~',
      [
        [
          ['echo', 'x~'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo a?',
      [
        [
          ['echo', 'a?'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo [ab]',
      [
        [
          ['echo', '[ab]'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo a\\*',
      [
        [
          ['echo', 'a*'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      "echo a'*'",
      [
        [
          ['echo', 'a*'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo \'x\'"y"z',
      [
        [
          ['echo', 'xyz'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "a\\$b"',
      [
        [
          ['echo', 'a$b'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "a\\"b"',
      [
        [
          ['echo', 'a"b'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "a\\\\b"',
      [
        [
          ['echo', 'a\\b'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "a\\nb"',
      [
        [
          ['echo', 'a\\nb'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "a$b"',
      [
        [
          ['echo', '"a$b"'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo 12',
      [
        [
          ['echo', '12'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo a\\ b',
      [
        [
          ['echo', 'a b'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "*"',
      [
        [
          ['echo', '*'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "a"*',
      [
        [
          ['echo', '"a"*'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      "echo '{a,b}'",
      [
        [
          ['echo', '{a,b}'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      "echo a'b'$c",
      [
        [
          ['echo', "a'b'$c"],
          [true, false],
        ],
      ],
      [],
    ],
    [
      "echo $'a\\nb'",
      [
        [
          ['echo', "$'a\\nb'"],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo "a\\\nb"',
      [
        [
          ['echo', 'ab'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "${x:-\'$[y]\'}"',
      [
        [
          ['echo', '"${x:-\'$[y]\'}"'],
          [true, false],
        ],
      ],
      ['"$[" that the parser left as text in "\'$[y]\'"'],
    ],
    [
      'echo "${x:-\'${y}\'}"',
      [
        [
          ['echo', '"${x:-\'${y}\'}"'],
          [true, false],
        ],
      ],
      ['"${" that the parser left as text in "\'${y}\'"'],
    ],
    [
      'echo "${x:-\'<(id)\'}"',
      [
        [
          ['echo', '"${x:-\'<(id)\'}"'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo ${x:->(id)}',
      [
        [
          ['echo', '${x:->(id)}'],
          [true, false],
        ],
      ],
      ['">(" that the parser left as text in ">(id)"'],
    ],
    [
      'echo ${x:-<(id)}',
      [
        [
          ['echo', '${x:-<(id)}'],
          [true, false],
        ],
      ],
      ['"<(" that the parser left as text in "<(id)"'],
    ],
    [
      'echo "$(echo ${x:-<(id)})"',
      [
        [
          ['echo', '"$(echo ${x:-<(id)})"'],
          [true, false],
        ],
        [
          ['echo', '${x:-<(id)}'],
          [true, false],
        ],
      ],
      ['"<(" that the parser left as text in "<(id)"'],
    ],
    [
      'cat <(echo ${x:-<(id)})',
      [
        [
          ['cat', '<(echo ${x:-<(id)})'],
          [true, false],
        ],
        [
          ['echo', '${x:-<(id)}'],
          [true, false],
        ],
      ],
      ['"<(" that the parser left as text in "<(id)"'],
    ],
    [
      'cat <<EOF\n${x:-`id`}\nEOF',
      [
        [['id'], [true]],
        [['cat'], [true]],
      ],
      [],
    ],
    ['cat <<EOF\na `id\nEOF', [[['cat'], [true]]], ['a backtick the parser did not read as a substitution, in "a `id"']],
    ['cat <<-EOF\n\t${x:-`id`}\n\tEOF', [[['cat'], [true]]], ['"${" that the parser left as text in "${x:-`id`}"']],
    // Inside backticks a doubled backslash is one: the inner script is `echo a\b`, whose word is ab.
    [
      'echo ${x:-`echo a\\\\b`}',
      [
        [
          ['echo', '${x:-`echo a\\\\b`}'],
          [true, false],
        ],
        [
          ['echo', 'ab'],
          [true, true],
        ],
      ],
      [],
    ],
  ])('%j', (command, parts, unknowns) => {
    const s = splitShell(command);
    expect({ parts: s.parts.map((p) => [p.words, p.literal]), unknowns: s.unknowns }).toEqual({ parts, unknowns });
  });
});

describe('excerpt', () => {
  it('quotes text on one line, cut to 60 characters with an ellipsis', () => {
    expect(excerpt('a \n\t b ')).toBe('"a b"');
    expect(excerpt('x'.repeat(60))).toBe(JSON.stringify('x'.repeat(60)));
    expect(excerpt('x'.repeat(61))).toBe(JSON.stringify(`${'x'.repeat(59)}…`));
    expect(excerpt('abcdef', 4)).toBe('"abc…"');
  });
});
