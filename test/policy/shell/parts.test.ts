/**
 * The splitter's whole answer for one command line: every simple command it runs (its text, argv as
 * bash builds it, which words are static, the assignments in front, the redirections around it),
 * the files it writes, and whether it changes directory or environment. Then its limits: how deep
 * it follows, and how many answers it keeps.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashGrammar, splitShell, type ShellSplit } from '../../../src/policy/shell/split.js';
import { P, S } from '../../support/shell-split-rows.js';

beforeAll(() => loadBashGrammar());

describe('splitShell, in full', () => {
  it.each<[string, ShellSplit]>([
    [
      'A=1 B=2 git log > out 2>&1',
      S(
        [
          P('A=1 B=2 git log', ['git', 'log'], [true, true], {
            assignments: ['A=1', 'B=2'],
            redirected: true,
            writesFile: true,
          }),
        ],
        { writes: [{ text: 'out', path: 'out' }] },
      ),
    ],
    [
      'echo $(ls) > out',
      S(
        [
          P('echo $(ls)', ['echo', '$(ls)'], [true, false], { redirected: true, writesFile: true }),
          P('ls', ['ls'], [true], {}),
        ],
        { writes: [{ text: 'out', path: 'out' }] },
      ),
    ],
    [
      '{ ls; pwd; } >> log.txt',
      S(
        [
          P('ls', ['ls'], [true], { redirected: true, writesFile: true }),
          P('pwd', ['pwd'], [true], { redirected: true, writesFile: true }),
        ],
        { writes: [{ text: 'log.txt', path: 'log.txt' }] },
      ),
    ],
    [
      'env A=1 B=2 rm -f x',
      S([
        P('env A=1 B=2 rm -f x', ['env', 'A=1', 'B=2', 'rm', '-f', 'x'], [true, true, true, true, true, true], {}),
        P('rm -f x', ['rm', '-f', 'x'], [true, true, true], { assignments: ['A=1', 'B=2'] }),
      ]),
    ],
    [
      'xargs -I{} mv {} dst < list',
      S([
        P('xargs -I{} mv {} dst', ['xargs', '-I{}', 'mv', '{}', 'dst'], [true, true, true, true, true], {
          redirected: true,
        }),
        P('mv {} dst', ['mv', '{}', 'dst'], [true, false, true], { redirected: true }),
      ]),
    ],
    [
      'find . -exec cp {} /tmp \\;',
      S([
        P(
          'find . -exec cp {} /tmp \\;',
          ['find', '.', '-exec', 'cp', '{}', '/tmp', ';'],
          [true, true, true, true, true, true, true],
          {},
        ),
        P('cp {} /tmp', ['cp', '{}', '/tmp'], [true, false, true], {}),
      ]),
    ],
    [
      'cat <<EOF | sh\nls\nEOF',
      S([P('sh', ['sh'], [true], {}), P('cat', ['cat'], [true], { redirected: true })], {
        unknowns: ['a shell that reads its script from standard input: "sh"'],
      }),
    ],
    [
      'export A=1 B',
      S([P('export A=1 B', ['export', 'A=1', 'B'], [true, false, false], {})], { changesEnvironment: true }),
    ],
    ['unset x', S([P('unset x', ['unset', 'x'], [true, false], {})])],
    ['[[ -f x ]]', S([P('[[ -f x ]]', ['[[', '-f x'], [true, false], {})])],
    [
      'declare -r y=1 > f',
      S([P('declare -r y=1', ['declare', '-r', 'y=1'], [true, true, false], { redirected: true, writesFile: true })], {
        writes: [{ text: 'f', path: 'f' }],
      }),
    ],
    ['r\\\nm -rf x', S([P('rm -rf x', ['rm', '-rf', 'x'], [true, true, true], {})])],
    ["echo 'a\\\nb'", S([P("echo 'a\\\nb'", ['echo', 'a\\\nb'], [true, true], {})])],
    ['echo "a\\\nb"', S([P('echo "ab"', ['echo', 'ab'], [true, true], {})])],
    ["cat <<'E'\na\\\nb\nE", S([P('cat', ['cat'], [true], { redirected: true })])],
    ['ls # c \\\nrm x', S([P('ls', ['ls'], [true], {}), P('rm x', ['rm', 'x'], [true, true], {})])],
    [
      'echo `echo \\`id\\``',
      S([
        P('echo `echo \\`id\\``', ['echo', '`echo \\`id\\``'], [true, false], {}),
        P('echo `id`', ['echo', '`id`'], [true, false], {}),
        P('id', ['id'], [true], {}),
      ]),
    ],
    [
      'echo "`echo \\"x\\"`"',
      S([
        P('echo "`echo \\"x\\"`"', ['echo', '"`echo \\"x\\"`"'], [true, false], {}),
        P('echo "x"', ['echo', 'x'], [true, true], {}),
      ]),
    ],
    ['x=1 y=$(id)', S([P('id', ['id'], [true], {})])],
    ['time -p ls', S([P('time -p ls', ['time', '-p', 'ls'], [true, true, true], {}), P('ls', ['ls'], [true], {})])],
    [
      'ls && cd sub && ls',
      S([P('ls', ['ls'], [true], {}), P('cd sub', ['cd', 'sub'], [true, true], {}), P('ls', ['ls'], [true], {})], {
        changesDirectory: true,
      }),
    ],
    ['cd', S([P('cd', ['cd'], [true], {})], { changesDirectory: true })],
    [
      'pushd x; popd',
      S([P('pushd x', ['pushd', 'x'], [true, true], {}), P('popd', ['popd'], [true], {})], { changesDirectory: true }),
    ],
    [
      'echo a > /dev/null',
      S([P('echo a', ['echo', 'a'], [true, true], { redirected: true })], {
        writes: [{ text: '/dev/null', path: '/dev/null' }],
      }),
    ],
    [
      'echo a >/dev/stderr',
      S([P('echo a', ['echo', 'a'], [true, true], { redirected: true })], {
        writes: [{ text: '/dev/stderr', path: '/dev/stderr' }],
      }),
    ],
    ['ls 1>&2', S([P('ls', ['ls'], [true], { redirected: true })])],
    ['ls 2>&-', S([P('ls', ['ls'], [true], { redirected: true })])],
    ['ls >&-', S([P('ls', ['ls'], [true], { redirected: true })])],
    ['cat 3< f', S([P('cat', ['cat'], [true], { redirected: true })])],
    [
      'sh 3< f',
      S([P('sh', ['sh'], [true], { redirected: true })], {
        unknowns: ['a shell that reads its script from standard input: "sh"'],
      }),
    ],
    [
      'exec >> log',
      S([P('exec', ['exec'], [true], { redirected: true, writesFile: true })], {
        writes: [{ text: 'log', path: 'log' }],
      }),
    ],
    [
      'ls >& f',
      S([P('ls', ['ls'], [true], { redirected: true, writesFile: true })], { writes: [{ text: 'f', path: 'f' }] }),
    ],
  ])('%j', (command, split) => {
    expect(splitShell(command)).toEqual(split);
  });
});

describe('splitShell, its limits', () => {
  const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const evals = (n: number) => {
    let c = 'ls';
    for (let i = 0; i < n; i++) c = `eval ${sq(c)}`;
    return c;
  };
  const deep = ['commands nested more than 8 levels deep'];

  it('follows scripts eight levels deep; a ninth is not read, and says so', () => {
    expect(splitShell(evals(3))).toEqual(S([P('ls', ['ls'], [true])]));
    // Quoted here-documents nest without quoting growing at each level (eval's quotes grow fourfold).
    const heredocs = (n: number) => {
      let c = 'ls';
      for (let i = 1; i <= n; i++) c = `bash <<'E${i}'\n${c}\nE${i}`;
      return c;
    };
    const bashes = (n: number) => Array.from({ length: n }, () => P('bash', ['bash'], [true], { redirected: true }));
    expect(splitShell(heredocs(8))).toEqual(S([...bashes(8), P('ls', ['ls'], [true], { redirected: true })]));
    expect(splitShell(heredocs(9))).toEqual(S(bashes(9), { unknowns: deep }));
  });

  it('follows wrapped commands eight levels deep', () => {
    const nohups = (n: number) => `${'nohup '.repeat(n)}ls`;
    expect(splitShell(nohups(8)).parts.at(-1)?.text).toBe('ls');
    expect(splitShell(nohups(8)).unknowns).toEqual([]);
    expect(splitShell(nohups(9)).parts.at(-1)?.text).toBe('nohup ls');
    expect(splitShell(nohups(9)).unknowns).toEqual(deep);
  });

  it('keeps the last 256 answers, the most recently used last', () => {
    const first = splitShell('echo cache-first');
    const fill = (tag: string, n: number) => {
      for (let i = 0; i < n; i++) splitShell(`echo cache-${tag}-${i}`);
    };
    fill('a', 255);
    // The oldest of 256 is still there; asking for it makes it the newest.
    expect(splitShell('echo cache-first')).toBe(first);
    fill('b', 255);
    expect(splitShell('echo cache-first')).toBe(first);
    fill('c', 256);
    const again = splitShell('echo cache-first');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
