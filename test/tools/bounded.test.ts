/**
 * Bounded work on hostile input. The model chooses regexes and globs, and can write the files the
 * tools read (.geminiignore, a FIFO in place of a file); none of it may block the event loop, where
 * the run's deadline timer lives, and no tool call may outlive the run.
 *
 * The regex and glob engines are linear (RE2): the proof here is that they refuse what only a
 * backtracking engine offers (backreferences, lookahead, negated extglobs) and finish inputs that
 * take a backtracking engine hours (`^(a|a)*$` on a 40-character line is 2^40 steps for V8 and
 * PCRE; each test's 60 s timeout is the only clock involved, and only the backtracking versions
 * come near it).
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitGrep, jsGrep, type GrepMatch } from '../../src/tools/grep-engines.js';
import { createGlobMatcher } from '../../src/tools/glob-matcher.js';
import { createIgnoreRules } from '../../src/tools/ignore-rules.js';
import { compileLinearRegex } from '../../src/tools/linear-regex.js';
import { guardRun, raceAbort } from '../../src/tools/tool-output.js';
import { createRepo, makeTempDir, writeFiles } from '../support/git-repo.js';
import { call, makeEnv, refusal } from './helpers.js';

const EVIL_LINE = `${'a'.repeat(40)}b`;
const EVIL_FILE = `${Array.from({ length: 200 }, () => EVIL_LINE).join('\n')}\nmatch me\n`;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('grep_search runs model regexes in a linear-time engine', () => {
  it.each([
    ['a backreference', '(a)\\1'],
    ['a named backreference', '(?<x>a)\\k<x>'],
    ['a lookahead', 'foo(?=bar)'],
    ['a negative lookahead', 'foo(?!bar)'],
  ])('refuses %s, which only a backtracking engine offers', async (_name, pattern) => {
    const dir = makeTempDir();
    dirs.push(dir);
    const r = await refusal(makeEnv(dir), 'grep_search', { pattern });
    expect(r.code).toBe('invalid_args');
    expect(r.message).toMatch(/^\/pattern is not a valid regular expression for the linear-time engine \(RE2\)/);
  });

  it('accepts lookbehind (re2js runs it in linear time) and JavaScript syntax', () => {
    expect(compileLinearRegex('p', '(?<=foo)bar', false).test('foobar')).toBe(true);
    expect(compileLinearRegex('p', '(?<name>\\d+)\\/x', false).test('12/x')).toBe(true);
    expect(compileLinearRegex('p', 'ABC', true).test('xabcx')).toBe(true);
  });

  it.each([
    ['a plain directory (the RE2 walker)', false],
    ['a git work tree (git grep, whose PCRE gives up at its step limit, then RE2)', true],
  ])("`^(a|a)*$` over 200 lines of 40 a's, in %s, answers correctly", async (_name, isGit) => {
    const dir = isGit ? createRepo({ 'evil.txt': EVIL_FILE }).dir : makeTempDir();
    dirs.push(dir);
    if (!isGit) writeFiles(dir, { 'evil.txt': EVIL_FILE });
    const out = await call(makeEnv(dir), 'grep_search', { pattern: '^(a|a)*$|^match me$', case_sensitive: true });
    expect(out.forModel).toBe(
      'Found 1 match in 1 file for pattern "^(a|a)*$|^match me$" in the workspace:\n---\nFile: evil.txt\nL201: match me\n---',
    );
  });

  it('git grep has a time limit: past it the search is handed to RE2', async () => {
    // 16,384 backtracking steps per line stay under PCRE's step limit, so only the clock stops git.
    const slow = `${Array.from({ length: 20_000 }, () => `${'a'.repeat(14)}b`).join('\n')}\n`;
    const { dir } = createRepo({ 'slow.txt': slow });
    dirs.push(dir);
    const matches: GrepMatch[] = [];
    const q = {
      root: dir,
      absDir: dir,
      regex: compileLinearRegex('p', '^(a|a)*$', false),
      ignoreCase: false,
      keepPath: () => true,
      signal: new AbortController().signal,
      gitTimeLimitMs: 1,
    };
    expect(await gitGrep(q, (m) => matches.push(m) > 0)).toBe('timeout');
    expect(await jsGrep(q, (m) => matches.push(m) > 0)).toEqual({ skippedLarge: 0 });
    expect(matches).toEqual([]);
  });

  it("the run's signal stops the RE2 walker between files", async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    writeFiles(dir, Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}.txt`, 'x\n'])));
    const ac = new AbortController();
    let seen = 0;
    const q = {
      root: dir,
      absDir: dir,
      regex: compileLinearRegex('p', 'x', false),
      ignoreCase: false,
      keepPath: () => true,
      signal: ac.signal,
    };
    await expect(
      jsGrep(q, () => {
        if (++seen === 1) ac.abort();
        return true;
      }),
    ).rejects.toThrow('aborted');
    expect(seen).toBeLessThan(100);
  });
});

describe('globs and ignore files match in linear time', () => {
  it('a many-star glob against a long name (3 s for picomatch at 40 characters)', () => {
    expect(createGlobMatcher('*a*a*a*a*a*a*a*a*a*a*a*a*b', true)('a'.repeat(5000))).toBe(false);
  });

  it('a gitignore line of repeated /** against a deep path (95 s for the ignore package)', () => {
    expect(
      createIgnoreRules()
        .add('a/**/**/**/**/**/**/**/b')
        .ignores(`${'a/'.repeat(2000)}c`),
    ).toBe(false);
    expect(createIgnoreRules().add('a/**/**/**/**/**/**/**/b').ignores('a/x/y/b')).toBe(true);
  });

  it('refuses a negated extglob, which has no linear-time form', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const r = await refusal(makeEnv(dir), 'glob', { pattern: '!(foo)*.ts' });
    expect(r).toEqual({
      code: 'invalid_args',
      message: 'glob pattern "!(foo)*.ts": negated extglob !(…) is not supported; match the files you want instead',
    });
  });

  it.each([
    ['*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/x/y/a.ts', true],
    ['**/*.{ts,tsx}', 'x/b.tsx', true],
    ['a/**', 'a', true],
    ['[!a]*', 'b.md', true],
    ['[!a]*', 'a.md', false],
    ['*.[jt]s', 'x/a.cs', false],
    ['file{1..3}.txt', 'file2.txt', true],
    ['@(foo|bar).js', 'bar.js', true],
    ['!*.ts', 'a.md', true],
    ['!*.ts', 'a.ts', false],
    ['\\*.txt', '*.txt', true],
    ['\\*.txt', 'x.txt', false],
    ['*.MD', 'readme.md', true],
    // The literal-tail quick reject (glob.ts) must agree with RE2 at the edges.
    ['!*.ts', 'a.tsx', true],
    ['src/*/index.ts', 'src/x/index.ts', true],
    ['src/*/index.ts', 'src/x/main.ts', false],
    ['a\\*b', 'a*b', true],
    ['*.s', 'X.S', true],
    ['*.s', 'x.\u017f', true], // RE2 folds the long s to s: never rejected by the ASCII tail
    ['*.k', 'x.\u212a', true], // nor the Kelvin sign to k
    ['*.ts', 'x.t', false],
  ])('glob %s on %s: %s', (glob, path, expected) => {
    expect(createGlobMatcher(glob, false)(path)).toBe(expected);
  });

  it('matches the literal tail case-sensitively when asked', () => {
    expect(createGlobMatcher('*.TS', true)('a.ts')).toBe(false);
    expect(createGlobMatcher('*.TS', true)('a.TS')).toBe(true);
    expect(createGlobMatcher('!*.TS', true)('a.ts')).toBe(true);
  });

  it.each([
    ['node_modules\n', 'x/node_modules/y.js', true],
    ['*.log\n!keep.log\n', 'keep.log', false],
    ['/build\n', 'x/build/a', false],
    ['/build\n', 'build/a', true],
    ['logs/\n!logs/important.log\n', 'logs/important.log', true],
    ['docs/*.md\n', 'docs/x/a.md', false],
    ['foo/\n', 'foo', false],
    ['foo/\n', 'foo/', true],
    ['{a,b}\n', '{a,b}', true],
  ])('ignore rules %j on %s: %s', (rules, path, expected) => {
    expect(createIgnoreRules().add(rules).ignores(path)).toBe(expected);
  });
});

describe('every tool call ends when the run does', () => {
  it('raceAbort: a call awaiting something that never settles is cancelled when the signal aborts', async () => {
    const ac = new AbortController();
    const never = new Promise<never>(() => undefined);
    const pending = raceAbort(ac.signal, never);
    ac.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    const out = guardRun(ac.signal, () => new Promise(() => undefined));
    expect((await out).error?.code).toBe('cancelled');
  });

  it('read_file and replace refuse a FIFO (a read would block forever) before running', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    writeFileSync(join(dir, 'ok.txt'), 'ok\n');
    expect(await refusal(makeEnv(dir), 'read_file', { file_path: 'pipe' })).toEqual({
      code: 'invalid_args',
      message: 'pipe is not a regular file',
    });
    expect(await refusal(makeEnv(dir), 'replace', { file_path: 'pipe', old_string: 'a', new_string: 'b' })).toEqual({
      code: 'invalid_args',
      message: 'pipe is not a regular file',
    });
    // A FIFO named .geminiignore is skipped, not read.
    execFileSync('mkfifo', [join(dir, '.geminiignore')]);
    expect((await call(makeEnv(dir), 'glob', { pattern: '*.txt' })).forModel).toContain('ok.txt');
  });
});
