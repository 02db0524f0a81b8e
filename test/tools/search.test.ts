import { rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_GLOB_RESULTS } from '../../src/tools/builtin/glob.js';
import { createRepo, git, makeTempDir, writeFiles } from '../support/git-repo.js';
import { call, makeEnv, refusal } from './helpers.js';

const FILES = {
  'src/a.ts': 'export function alpha() {}\nconst x = alpha();\n',
  'src/b.tsx': 'export const Beta = () => alpha;\n',
  'src/deep/c.ts': 'ALPHA in caps\n',
  'docs/guide.md': 'alpha docs\n',
  'bin/blob.bin': Buffer.from([0x61, 0x6c, 0x70, 0x68, 0x61, 0x00, 0x01]),
  'dist/bundle.js': 'alpha bundled\n',
  'notes.log': 'alpha log\n',
  '.gitignore': 'dist/\n*.log\n',
  '.geminiignore': 'docs/\n',
};

/** The same tree as a git work tree and as a plain directory: both engines must agree. */
const trees = () => {
  const gitDir = createRepo(FILES).dir;
  writeFiles(gitDir, { 'src/untracked.ts': 'alpha untracked\n' });
  const plain = makeTempDir('agent-action-plain-');
  writeFiles(plain, { ...FILES, 'src/untracked.ts': 'alpha untracked\n' });
  return [
    ['git', gitDir],
    ['plain', plain],
  ] as const;
};

describe.each(trees())('grep_search in a %s tree', (_kind, dir) => {
  const env = makeEnv(dir);

  it('finds lines grouped by file, case-insensitive by default, skipping ignored and binary files', async () => {
    const out = await call(env, 'grep_search', { pattern: 'alpha' });
    expect(out.forModel).toBe(
      [
        'Found 5 matches in 4 files for pattern "alpha" in the workspace:',
        '---',
        'File: src/a.ts',
        'L1: export function alpha() {}',
        'L2: const x = alpha();',
        '---',
        'File: src/b.tsx',
        'L1: export const Beta = () => alpha;',
        '---',
        'File: src/deep/c.ts',
        'L1: ALPHA in caps',
        '---',
        'File: src/untracked.ts',
        'L1: alpha untracked',
        '---',
      ].join('\n'),
    );
    expect(out.forHuman).toBe('grep alpha: 5 matches in 4 files');
  });

  it.each([
    [{ pattern: 'alpha', case_sensitive: true, names_only: true }, ['src/a.ts', 'src/b.tsx', 'src/untracked.ts']],
    [
      { pattern: 'alpha', include_pattern: '*.{ts,tsx}', exclude_pattern: 'const', names_only: true },
      ['src/a.ts', 'src/deep/c.ts', 'src/untracked.ts'],
    ],
    [{ pattern: 'alpha', dir_path: 'src/deep', names_only: true }, ['src/deep/c.ts']],
    [{ pattern: 'alpha', include_pattern: 'deep/**', dir_path: 'src', names_only: true }, ['src/deep/c.ts']],
    [{ pattern: '\\bBeta\\b\\s*=', case_sensitive: true, names_only: true }, ['src/b.tsx']],
    [{ pattern: '^ALPHA in caps$', case_sensitive: true, names_only: true }, ['src/deep/c.ts']],
    [{ pattern: '^const x', names_only: true }, ['src/a.ts']],
  ])('%j finds %j', async (args, files) => {
    const out = await call(env, 'grep_search', args);
    expect(out.forModel.split('\n').slice(1)).toEqual(files);
  });

  it('caps per file and in total, and says so', async () => {
    const perFile = await call(env, 'grep_search', { pattern: 'alpha', max_matches_per_file: 1 });
    expect(perFile.forModel).not.toContain('L2:');
    const capped = await call(env, 'grep_search', { pattern: 'alpha', total_max_matches: 2 });
    expect(capped.forModel).toContain('Found 2 matches in 1 file');
    expect(capped.forModel).toContain('[results capped at 2 matches;');
  });

  it('answers no matches plainly, and is reached by its old name', async () => {
    expect((await call(env, 'search_file_content', { pattern: 'zzz_nothing' })).forModel).toBe(
      'No matches found for pattern "zzz_nothing" in the workspace.',
    );
  });

  it('a cancelled search reports cancelled', async () => {
    const ac = new AbortController();
    ac.abort();
    expect((await call(env, 'grep_search', { pattern: 'alpha' }, ac.signal)).error?.code).toBe('cancelled');
    expect((await call(env, 'glob', { pattern: '*' }, ac.signal)).error?.code).toBe('cancelled');
  });

  it('refuses a bad regex before running', async () => {
    const r = await refusal(env, 'grep_search', { pattern: '(unclosed' });
    expect(r).toMatchObject({ code: 'invalid_args' });
    expect(r.message).toMatch(/^\/pattern is not a valid regular expression/);
  });
});

describe.each(trees())('glob in a %s tree', (_kind, dir) => {
  const env = makeEnv(dir);
  beforeAll(() => {
    // Distinct mtimes so "newest first" is observable without sleeping.
    const t = Date.now() / 1000;
    utimesSync(join(dir, 'src/a.ts'), t - 300, t - 300);
    utimesSync(join(dir, 'src/b.tsx'), t - 100, t - 100);
    utimesSync(join(dir, 'src/deep/c.ts'), t - 200, t - 200);
    utimesSync(join(dir, 'src/untracked.ts'), t - 400, t - 400);
  });

  it.each([
    [{ pattern: '**/*.ts' }, ['src/deep/c.ts', 'src/a.ts', 'src/untracked.ts']],
    [{ pattern: '*.TS' }, ['src/deep/c.ts', 'src/a.ts', 'src/untracked.ts']],
    [{ pattern: '*.TS', case_sensitive: true }, []],
    [{ pattern: 'src/*.{ts,tsx}' }, ['src/b.tsx', 'src/a.ts', 'src/untracked.ts']],
    [{ pattern: '*.ts', dir_path: 'src/deep' }, ['src/deep/c.ts']],
    [{ pattern: 'dist/*.js' }, []],
    [{ pattern: 'dist/*.js', respect_git_ignore: false }, ['dist/bundle.js']],
    [{ pattern: 'docs/*' }, []],
    [{ pattern: 'docs/*', respect_gemini_ignore: false }, ['docs/guide.md']],
  ])('%j gives %j', async (args, expected) => {
    const out = await call(env, 'glob', args);
    const listed = expected.length === 0 ? [] : out.forModel.split('\n').slice(1);
    expect(listed).toEqual(expected);
    if (expected.length === 0) expect(out.forModel).toMatch(/^No files found matching pattern/);
  });
});

describe('glob starts its listing in the literal folders of its pattern, and finds the same files', () => {
  it.each([
    [{ pattern: 'lib/*.ts' }, ['Lib/a.ts', 'lib/b.ts']],
    [{ pattern: 'lib/*.ts', case_sensitive: true }, ['lib/b.ts']],
    [{ pattern: 'ONLY/deep/*.ts' }, ['only/deep/c.ts']],
    [{ pattern: 'only/**/*.ts', dir_path: 'only' }, []],
    [{ pattern: 'deep/*.ts', dir_path: 'only' }, ['only/deep/c.ts']],
    [{ pattern: 'gone/*.ts' }, []],
  ])('%j gives %j', async (args, expected) => {
    const dir = createRepo({ 'Lib/a.ts': '', 'lib/b.ts': '', 'only/deep/c.ts': '' }).dir;
    const out = await call(makeEnv(dir), 'glob', args);
    expect(expected.length === 0 ? [] : out.forModel.split('\n').slice(1).sort()).toEqual(expected);
  });
});

describe('glob and files deleted since the last commit', () => {
  it('lists neither a tracked file deleted from the work tree (git still lists it) nor counts it, sorted or past the cap', async () => {
    const small = createRepo({ 'a.ts': '', 'b.ts': '', 'c.ts': '' }).dir;
    rmSync(join(small, 'b.ts'));
    const out = await call(makeEnv(small), 'glob', { pattern: '*.ts' });
    expect(out.forModel.split('\n')[0]).toBe('Found 2 files matching "*.ts" in the workspace, newest first:');
    expect(out.forModel.split('\n').slice(1).sort()).toEqual(['a.ts', 'c.ts']);
    const files: Record<string, string> = {};
    for (let i = 0; i < 202; i++) files[`f${String(i).padStart(3, '0')}.ts`] = '';
    const many = createRepo(files).dir;
    rmSync(join(many, 'f000.ts'));
    const capped = (await call(makeEnv(many), 'glob', { pattern: '*.ts' })).forModel.split('\n');
    expect(capped[0]).toBe(
      'Found 201 files matching "*.ts" in the workspace (showing the first 200 by path; narrow the pattern to see the rest):',
    );
    expect(capped.slice(1, 3)).toEqual(['f001.ts', 'f002.ts']);
    expect(capped).toHaveLength(201);
    // One more gone: the 200 left are all shown, by path, with nothing to narrow.
    rmSync(join(many, 'f001.ts'));
    expect((await call(makeEnv(many), 'glob', { pattern: '*.ts' })).forModel.split('\n')[0]).toBe(
      'Found 200 files matching "*.ts" in the workspace, by path:',
    );
  });
});

describe('10,000 files', () => {
  const big = () => {
    const files: Record<string, string> = { '.gitignore': 'skip/\n' };
    for (let i = 0; i < 10_000; i++)
      files[`pkg${i % 50}/mod${i}.ts`] = `export const value${i} = ${i};\n${i % 1000 === 0 ? 'NEEDLE here\n' : ''}`;
    for (let i = 0; i < 200; i++) files[`skip/ignored${i}.ts`] = 'NEEDLE ignored\n';
    return files;
  };
  const gitDir = createRepo(big()).dir;
  const plain = makeTempDir('agent-action-plain-');
  writeFiles(plain, big());

  it.each([
    ['git', gitDir],
    ['plain', plain],
  ])('grep_search finds exactly the 10 needles in the %s tree', async (_k, dir) => {
    const out = await call(makeEnv(dir), 'grep_search', { pattern: 'NEEDLE', case_sensitive: true, names_only: true });
    const files = out.forModel.split('\n').slice(1).sort();
    expect(files).toEqual(Array.from({ length: 10 }, (_, k) => `pkg0/mod${k * 1000}.ts`).sort());
  });

  it.each([
    ['git', gitDir],
    ['plain', plain],
  ])('grep_search and glob cap their output in the %s tree', async (_k, dir) => {
    const g = await call(makeEnv(dir), 'grep_search', { pattern: 'export const' });
    expect(g.forModel).toMatch(/^Found 100 matches in 100 files/);
    expect(g.forModel).toContain('[results capped at 100 matches;');
    const gl = await call(makeEnv(dir), 'glob', { pattern: '**/*.ts' });
    expect(gl.forModel.split('\n')[0]).toBe(
      'Found 10000 files matching "**/*.ts" in the workspace (showing the first 200 by path; narrow the pattern to see the rest):',
    );
    const listed = gl.forModel.split('\n').slice(1);
    expect(listed).toHaveLength(MAX_GLOB_RESULTS);
    // Past the cap the order is the path's (no date per file): the first names in code-unit order.
    expect(listed.slice(0, 3)).toEqual(['pkg0/mod0.ts', 'pkg0/mod100.ts', 'pkg0/mod1000.ts']);
  });

  it('git grep sees an edit not yet committed', async () => {
    writeFiles(gitDir, { 'pkg1/mod1.ts': 'FRESH change\n' });
    const out = await call(makeEnv(gitDir), 'grep_search', {
      pattern: 'FRESH',
      case_sensitive: true,
      names_only: true,
    });
    expect(out.forModel.split('\n').slice(1)).toEqual(['pkg1/mod1.ts']);
    expect(git(gitDir, 'status', '--porcelain')).toContain('pkg1/mod1.ts');
  });
});
