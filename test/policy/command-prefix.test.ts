import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommandPrefix, prefixMatches, quoteWord } from '../../src/policy/command-prefix.js';
import type { ShellPart } from '../../src/policy/shell/split.js';

describe('parseCommandPrefix', () => {
  it.each<[string, string[] | string]>([
    ['git commit -m "fix"', ['git', 'commit', '-m', 'fix']],
    ["grep -r 'TODO: '", ['grep', '-r', 'TODO: ']],
    ['echo "a  b"', ['echo', 'a  b']],
    ['echo a\\ b', ['echo', 'a b']],
    ['echo "say \\"hi\\""', ['echo', 'say "hi"']],
    ['a\'b\'"c"d', ['abcd']],
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

/** A sub-command as the splitter hands it over; `$…` words are known only at run time. */
const part = (text: string, assignments: string[] = []): ShellPart => {
  const words = text.split(' ').slice(assignments.length);
  return {
    text,
    words,
    literal: words.map((w) => !w.startsWith('$')),
    assignments,
    redirected: false,
    writesFile: false,
  };
};

describe('prefixMatches', () => {
  it.each<[string, string, string[], boolean, [boolean, boolean, boolean]]>([
    // prefix, sub-command, assignments in front, environment changed, [allow, deny, ask_user]
    ['git push', 'git push origin', [], false, [true, true, true]],
    ['git push', 'git push', [], false, [true, true, true]],
    ['git push', 'git pushy', [], false, [false, false, false]],
    ['git push', 'git', [], false, [false, false, false]],
    ['git push', 'git $X', [], false, [false, false, false]],
    // `A=1 git push`: an allow rule cannot vouch for it; a deny or ask_user rule still sees git push.
    ['git push', 'A=1 git push --force', ['A=1'], false, [false, true, true]],
    ['git push', 'GIT_DIR=x git push', ['GIT_DIR=x'], false, [false, true, true]],
    ['git push', 'git push', [], true, [false, true, true]],
    // Gemini CLI's text match, kept for deny and ask_user: a quote ends the prefix there.
    ['git log', 'git log"out"', [], false, [false, true, true]],
    // A prefix that is not plain words matches by text; for allow only before a blank or the end.
    ['ls *', 'ls * x', [], false, [true, true, true]],
    ['ls *', 'ls *', [], false, [true, true, true]],
    ['ls *', 'ls *.ts', [], false, [false, false, false]],
    ['ls *', 'ls *"x"', [], false, [false, true, true]],
    ['ls *', 'ls * x', [], true, [false, true, true]],
    ['ls *', 'A=1 ls * x', ['A=1'], false, [false, false, false]],
  ])(
    '%j against %j (assignments %j, environment changed %s): allow/deny/ask_user %j',
    (prefix, text, assignments, changed, want) => {
      const t = { part: part(text, assignments), environmentChanged: changed };
      const c = parseCommandPrefix(prefix);
      expect([prefixMatches(c, t, 'allow'), prefixMatches(c, t, 'deny'), prefixMatches(c, t, 'ask_user')]).toEqual(
        want,
      );
    },
  );
});
