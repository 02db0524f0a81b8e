/**
 * What bash makes of words, statically: the value after quote removal when nothing expands, the
 * source text (and not literal) when anything might; and the substitution syntax tree-sitter leaves
 * as plain text, which is either split as a script (backticks in ${...} and here-documents) or
 * reported. Each row is a whole line with every part (argv, which words are literal) and every unknown.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashGrammar, splitShell } from '../../../src/policy/shell/split.js';
import { excerpt, scanUncovered, wordValue, type ScanFindings } from '../../../src/policy/shell/words.js';
import { useBashTrees } from '../../support/bash-trees.js';

const first = useBashTrees();
beforeAll(() => loadBashGrammar());

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
    [
      'cat <<EOF\na `id\nEOF',
      [[['cat'], [true]]],
      ['a backtick the parser did not read as a substitution, in "a `id"'],
    ],
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

// The continuation-joining step in splitShell stops after 4 rounds; each round here reveals one more
// `#` that an earlier parse took for a comment, so the fifth backslash-newline is still there and
// tree-sitter ends the word at it. bash joins it (`a#b#c#d#e#fg` is one word): unknown.
describe('a line continuation left inside a word', () => {
  const chain = 'a\\\n#b\\\n#c\\\n#d\\\n#e\\\n';
  it.each<[string, Array<[string[], boolean[]]>, string[]]>([
    [
      `echo ${chain}#f\\\ng`,
      [
        [
          ['echo', 'a#b#c#d#e'],
          [true, true],
        ],
        [['g'], [true]],
      ],
      ['a line continuation inside a word: "echo a#b#c#d#e\\\\ #f\\\\ g"'],
    ],
    // The excerpt is the 20 characters either side of the backslash.
    [
      `echo 01234567890123456789${chain}#f\\\nghijklmnopqrstuvwxyz012345`,
      [
        [
          ['echo', '01234567890123456789a#b#c#d#e'],
          [true, true],
        ],
        [['ghijklmnopqrstuvwxyz012345'], [true]],
      ],
      ['a line continuation inside a word: "90123456789a#b#c#d#e\\\\ #f\\\\ ghijklmnopqrst"'],
    ],
    // A blank or an operator on either side: bash ends the word there too, as the parser did.
    [
      `echo ${chain} f`,
      [
        [
          ['echo', 'a#b#c#d#e', 'f'],
          [true, true, true],
        ],
      ],
      [],
    ],
    [
      'echo a\\\n#b\\\n#c\\\n#d\\\n#e;\\\nf',
      [
        [
          ['echo', 'a#b#c#d#e'],
          [true, true],
        ],
        [['f'], [true]],
      ],
      [],
    ],
  ])('%j', (command, parts, unknowns) => {
    const s = splitShell(command);
    expect({ parts: s.parts.map((p) => [p.words, p.literal]), unknowns: s.unknowns }).toEqual({ parts, unknowns });
  });
});

describe('which text is quoted, expanded or never scanned', () => {
  it.each<[string, Array<[string[], boolean[]]>, string[]]>([
    // `$"a"b` is one word whose first part the locale may translate: not literal (tree-sitter leaves
    // the `$` outside the word's text).
    [
      'echo $"a"b',
      [
        [
          ['echo', '"a"b'],
          [true, false],
        ],
      ],
      [],
    ],
    // A tilde expands only at the start of the word: after quotes or an escaped character it is plain.
    [
      "echo ''~x",
      [
        [
          ['echo', '~x'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo \\a~x',
      [
        [
          ['echo', 'a~x'],
          [true, true],
        ],
      ],
      [],
    ],
    // Single quotes, ANSI-C quotes, comments and here-document delimiters hide `$(`.
    [
      "echo '$(id)'",
      [
        [
          ['echo', '$(id)'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      "echo $'$(id)'",
      [
        [
          ['echo', "$'$(id)'"],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo a # $(id)',
      [
        [
          ['echo', 'a'],
          [true, true],
        ],
      ],
      [],
    ],
    ['cat <<E$(x)\nE$(x)', [[['cat'], [true]]], []],
    // `$$` is the process id; the `{` after it starts a plain word, not `${`.
    [
      'echo $${x}',
      [
        [
          ['echo', '$${x}'],
          [true, false],
        ],
      ],
      [],
    ],
    // Inside double quotes `<(` is plain text.
    [
      "echo '<(id)'",
      [
        [
          ['echo', '<(id)'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "<(id)"',
      [
        [
          ['echo', '<(id)'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      'echo "a${x:-<(id)}"',
      [
        [
          ['echo', '"a${x:-<(id)}"'],
          [true, false],
        ],
      ],
      [],
    ],
    [
      'echo ${x:-"<(id)"}',
      [
        [
          ['echo', '${x:-"<(id)"}'],
          [true, false],
        ],
      ],
      [],
    ],
    ['cat <<EOF\n${x:-<(id)}\nEOF', [[['cat'], [true]]], []],
    // Backticks tree-sitter leaves as text in ${...} and here-documents are split as scripts.
    [
      'echo "${x:-`id`}"',
      [
        [
          ['echo', '"${x:-`id`}"'],
          [true, false],
        ],
        [['id'], [true]],
      ],
      [],
    ],
    [
      'echo ${x:-"`id`"}',
      [
        [
          ['echo', '${x:-"`id`"}'],
          [true, false],
        ],
        [['id'], [true]],
      ],
      [],
    ],
    [
      "cat <<EOF\n${x:-'`id`'}\nEOF",
      [
        [['id'], [true]],
        [['cat'], [true]],
      ],
      [],
    ],
    [
      'cat <<EOF\n<(id) `id`\nEOF',
      [
        [['id'], [true]],
        [['cat'], [true]],
      ],
      [],
    ],
    // Inside backticks `\$` is `$` (the inner word expands) and `\`` does not close them.
    [
      'cat <<EOF\n`echo a\\$b`\nEOF',
      [
        [
          ['echo', 'a$b'],
          [true, false],
        ],
        [['cat'], [true]],
      ],
      [],
    ],
    [
      'cat <<EOF\n`echo a\\`b`\nEOF',
      [
        [
          ['echo', 'a', '`b'],
          [true, true, false],
        ],
        [['b'], [true]],
        [['cat'], [true]],
      ],
      ['words the parser split apart, which bash reads as one: "echo a`b"'],
    ],
    // Inside "${x:-...}" single quotes are plain characters, however deep the nesting.
    [
      `echo ${'"${x:-'.repeat(33)}'$(id)'${'}"'.repeat(33)}`,
      [
        [
          ['echo', `${'"${x:-'.repeat(33)}'$(id)'${'}"'.repeat(33)}`],
          [true, false],
        ],
      ],
      ['"$(" that the parser left as text in "\'$(id)\'"'],
    ],
  ])('%j', (command, parts, unknowns) => {
    const s = splitShell(command);
    expect({ parts: s.parts.map((p) => [p.words, p.literal]), unknowns: s.unknowns }).toEqual({ parts, unknowns });
  });
});

// bash's blanks are space and tab; tree-sitter also splits at CR, VT and FF.
describe('characters tree-sitter takes for blanks and bash does not', () => {
  const why = 'a carriage return, vertical tab or form feed, which bash does not read as a blank, in';
  it.each<[string, Array<[string[], boolean[]]>, string[]]>([
    // bash: `echo a` + CR, then the command b; tree-sitter: one command continued over the line.
    [
      'echo a\\\r\nb',
      [
        [
          ['echo', 'a', 'b'],
          [true, true, true],
        ],
      ],
      [`${why} "echo a\\\\ b"`],
    ],
    [
      'echo a\rb',
      [
        [
          ['echo', 'a', 'b'],
          [true, true, true],
        ],
      ],
      [`${why} "echo a b"`],
    ],
    [
      'echo a\vb',
      [
        [
          ['echo', 'a', 'b'],
          [true, true, true],
        ],
      ],
      [`${why} "echo a b"`],
    ],
    [
      'echo a\fb',
      [
        [
          ['echo', 'a', 'b'],
          [true, true, true],
        ],
      ],
      [`${why} "echo a b"`],
    ],
    // A plain word holding what JavaScript calls a blank: the scan cannot tell it from a misread line
    // (bash keeps a no-break space in the word; reporting it is the safe side).
    [
      'echo a\u00a0b',
      [
        [
          ['echo', 'a\u00a0b'],
          [true, true],
        ],
      ],
      ['a word the parser misread ("\u00a0" inside it): "a b"'],
    ],
    // Quoted, in a here-document or in a comment they are plain characters to both.
    [
      'echo "a\rb"',
      [
        [
          ['echo', 'a\rb'],
          [true, true],
        ],
      ],
      [],
    ],
    [
      "echo 'a\rb'",
      [
        [
          ['echo', 'a\rb'],
          [true, true],
        ],
      ],
      [],
    ],
    ['cat <<EOF\na\rb\nEOF', [[['cat'], [true]]], []],
    [
      'echo a # x\ry',
      [
        [
          ['echo', 'a'],
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

describe('single nodes', () => {
  it('reads a quoted word after a detached `$` as plain text: only a `$` touching the quote translates it', () => {
    expect(wordValue(first('echo $ "a"', 'string'))).toBe('a');
    expect(wordValue(first('echo $"a"', 'string'))).toBeUndefined();
  });

  it('never scans an anonymous node: the `$(` token of a substitution is syntax, not text left unparsed', () => {
    const source = 'echo $(ls)';
    const into: ScanFindings = { backticks: [], unparsed: [] };
    const token = first(source, '$(');
    expect(token.isNamed).toBe(false);
    scanUncovered(token, source, into);
    expect(into).toEqual({ backticks: [], unparsed: [] });
  });
});

// Above 64 ancestors (up to the nearest substitution) the quoting around a text is not followed. Bug
// caught: the walk used to stop there silently, taking `'$(id)'` inside a deep "${x:-...}" for a quoted,
// never-scanned string, while bash runs the substitution (the line was split with no unknown).
describe('text nested deeper than the walk for quotes', () => {
  const nested = (n: number): string => `echo "${'${x:-'.repeat(n)}'$(id)'${'}'.repeat(n)}"`;

  it('at 64 ancestors the quotes are still followed', () => {
    expect(splitShell(nested(63)).unknowns).toEqual(['"$(" that the parser left as text in "\'$(id)\'"']);
  });

  it('past 64 the text is unknown', () => {
    expect(splitShell(nested(64)).unknowns).toEqual([
      'text nested more than 64 levels deep, whose quoting is not followed: "x"',
      'text nested more than 64 levels deep, whose quoting is not followed: "\'$(id)\'"',
    ]);
  });
});

// Text after the last node (here a CR ending the line) is scanned too (bug: only the gaps before and
// between children were, so `ls⏎` with a CR LF ending, a command named `ls\r` to bash, passed as ls).
describe('text after the last command', () => {
  it.each(['ls\r', 'ls \r', 'ls;\r'])('%j', (command) => {
    const s = splitShell(command);
    expect({ parts: s.parts.map((p) => p.words), unknowns: s.unknowns }).toEqual({
      parts: [['ls']],
      unknowns: [
        `a carriage return, vertical tab or form feed, which bash does not read as a blank, in ${JSON.stringify(command.trim())}`,
      ],
    });
  });
});

// The text of a here-document after an expansion is a heredoc_content node of its own, where
// tree-sitter leaves backticks as text too (bug: only the body itself counted as a here-document).
describe('backticks in a here-document after an expansion', () => {
  it('are split as a script', () => {
    const s = splitShell('cat <<EOF\n$x `id`\nEOF');
    expect({ parts: s.parts.map((p) => [p.words, p.literal]), unknowns: s.unknowns }).toEqual({
      parts: [
        [['id'], [true]],
        [['cat'], [true]],
      ],
      unknowns: [],
    });
  });
});

describe('a backslash outside quotes', () => {
  // Bug caught: testing the whole line for CR/VT/FF after a backslash, not the character it escapes.
  it('looks only at the character it escapes for a carriage return', () => {
    const s = splitShell('echo "a\rb" c\\d');
    expect({ parts: s.parts.map((p) => [p.words, p.literal]), unknowns: s.unknowns }).toEqual({
      parts: [
        [
          ['echo', 'a\rb', 'cd'],
          [true, true, true],
        ],
      ],
      unknowns: [],
    });
  });

  it('inside double quotes, backslash-newline disappears', () => {
    expect(splitShell('echo "a\\\nb"').parts.map((p) => p.words)).toEqual([['echo', 'ab']]);
  });
});
