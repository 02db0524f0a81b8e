import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommandPrefix, quoteWord } from '../../src/policy/command-prefix.js';

describe('parseCommandPrefix', () => {
  it.each<[string, string[] | string]>([
    ['git commit -m "fix"', ['git', 'commit', '-m', 'fix']],
    ["grep -r 'TODO: '", ['grep', '-r', 'TODO: ']],
    ['echo "a  b"', ['echo', 'a  b']],
    ['echo a\\ b', ['echo', 'a b']],
    ['echo "say \\"hi\\""', ['echo', 'say "hi"']],
    ["a'b'\"c\"d", ['abcd']],
    ['  npm   test  ', ['npm', 'test']],
    ['git log a#b', ['git', 'log', 'a#b']],
    ['git commit -m "fix', 'it has an unclosed double quote'],
    ["echo 'x", 'it has an unclosed single quote'],
    ['echo $HOME', 'it has "$", which bash would expand or treat as syntax'],
    ['echo "$HOME"', 'it has an expansion inside double quotes'],
    ['ls *.ts', 'it has "*", which bash would expand or treat as syntax'],
    ['ls ~', 'it has "~", which bash would expand or treat as syntax'],
    ['a; b', 'it has ";", which bash would expand or treat as syntax'],
    ['echo \\', 'it ends with a backslash'],
  ])('%j', (prefix, want) => {
    const p = parseCommandPrefix(prefix);
    if (typeof want === 'string') expect(p).toEqual({ source: prefix, problem: want });
    else expect(p).toEqual({ source: prefix, words: want });
  });

  it('quoteWord round-trips any word through parseCommandPrefix', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (w) => {
        expect(parseCommandPrefix(quoteWord(w)).words).toEqual([w]);
      }),
      { seed: 11, numRuns: 500 },
    );
  });
});
