/**
 * grep_search outside a git work tree through the system's grep (src/tools/system-grep.ts): the
 * walker's file list (every .gitignore applies, which `grep -r` would not do), path order, symlinks
 * confined to the workspace, FIFOs skipped; and the RE2 walker when the grep cannot take the search.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GrepMatch, GrepQuery } from '../../src/tools/grep-engines.js';
import { compileLinearRegex } from '../../src/tools/linear-regex.js';
import { systemGrep, type SplitOptions } from '../../src/tools/system-grep.js';
import { makeTempDir, writeFiles } from '../support/git-repo.js';
import { call, makeEnv } from './helpers.js';

const query = (root: string, pattern: string, over: Partial<GrepQuery> = {}): GrepQuery => ({
  root,
  absDir: root,
  regex: compileLinearRegex('pattern', pattern, over.ignoreCase ?? false),
  ignoreCase: false,
  keepPath: () => true,
  signal: new AbortController().signal,
  ...over,
});

async function collect(
  q: GrepQuery,
  stopAfter = Infinity,
  split?: SplitOptions,
): Promise<{ outcome: string; found: GrepMatch[] }> {
  const found: GrepMatch[] = [];
  const outcome = await systemGrep(q, (m) => found.push(m) < stopAfter, split);
  return { outcome, found };
}

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

describe('systemGrep', () => {
  it('searches the files the walker lists, in path order, with line numbers, and never a .gitignored one', async () => {
    const dir = makeTempDir('sysgrep-');
    writeFiles(dir, {
      'b.ts': 'one\nneedle two\n',
      'a/z.ts': 'needle: a colon in the text\n',
      'a/ignored.log': 'needle\n',
      'build/out.js': 'needle\n',
      '.gitignore': 'build/\n*.log\n',
      'bin.dat': Buffer.from('needle\0\x01'),
    });
    const { outcome, found } = await collect(query(dir, 'needle'));
    expect(outcome).toBe('done');
    expect(found).toEqual([
      { file: 'a/z.ts', line: 1, text: 'needle: a colon in the text' },
      { file: 'b.ts', line: 2, text: 'needle two' },
    ]);
  });

  it('stops when the caller has enough, honours keepPath, the directory searched and the case', async () => {
    const dir = makeTempDir('sysgrep-');
    writeFiles(dir, { 'x/1.txt': 'NEEDLE\n', 'x/2.txt': 'needle\n', 'y/3.txt': 'needle\n' });
    expect((await collect(query(dir, 'needle'), 1)).found.map((m) => m.file)).toEqual(['x/2.txt']);
    expect((await collect(query(dir, 'needle', { ignoreCase: true }), 1)).found.map((m) => m.file)).toEqual([
      'x/1.txt',
    ]);
    expect(
      (await collect(query(dir, 'needle', { ignoreCase: true, keepPath: (f) => f !== 'x/1.txt' }))).found.map(
        (m) => m.file,
      ),
    ).toEqual(['x/2.txt', 'y/3.txt']);
    expect((await collect(query(dir, 'needle', { absDir: join(dir, 'y') }))).found.map((m) => m.file)).toEqual([
      'y/3.txt',
    ]);
  });

  it('splits a large tree between greps run side by side, and reports exactly what one grep would, in path order', async () => {
    const dir = makeTempDir('sysgrep-');
    const files: Record<string, string> = {};
    // 40 files; every third has two matches, file 7 five, so a slice's buffer fills part-way through a file.
    for (let i = 0; i < 40; i++)
      files[`d${String(i % 4)}/f${String(i).padStart(2, '0')}.txt`] =
        i === 7 ? 'hit\nhit\nx\nhit\nhit\nhit\n' : i % 3 === 0 ? `hit ${i}\nmiss\nhit again\n` : 'miss\n';
    writeFiles(dir, files);
    const one: SplitOptions = { processes: 1, minFiles: 1, maxBuffered: 1000 };
    const sequential = await collect(query(dir, 'hit'), Infinity, one);
    expect(sequential.found).toHaveLength(2 * 14 + 5);
    for (const split of [
      { processes: 4, minFiles: 5, maxBuffered: 1000 },
      { processes: 3, minFiles: 5, maxBuffered: 2 },
      { processes: 2, minFiles: 5, maxBuffered: 1 },
    ]) {
      expect(await collect(query(dir, 'hit'), Infinity, split), JSON.stringify(split)).toEqual(sequential);
      // The caller has enough in the middle of a later slice: the same first matches as one grep gives.
      for (const stop of [1, 9, 17, 25])
        expect((await collect(query(dir, 'hit'), stop, split)).found).toEqual(sequential.found.slice(0, stop));
    }
    // Fewer files than minFiles per process: one grep.
    expect(await collect(query(dir, 'hit'), Infinity, { processes: 4, minFiles: 100, maxBuffered: 1 })).toEqual(
      sequential,
    );
  });

  it('a search cancelled while its greps run side by side fails as aborted, and leaves nothing unhandled', async () => {
    const dir = makeTempDir('sysgrep-');
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${String(i).padStart(2, '0')}.txt`] = 'hit\n';
    writeFiles(dir, files);
    const ctrl = new AbortController();
    const found: GrepMatch[] = [];
    const run = systemGrep(query(dir, 'hit', { signal: ctrl.signal }), (m) => (found.push(m), ctrl.abort(), true), {
      processes: 3,
      minFiles: 5,
      maxBuffered: 1000,
    });
    await expect(run).rejects.toThrow(/abort/i);
    expect(found.length).toBeGreaterThan(0);
  });

  it('follows a symlink only to a regular file inside the workspace; a FIFO does not block it', async () => {
    const outside = makeTempDir('sysgrep-outside-');
    writeFiles(outside, { 'secret.txt': 'needle outside\n' });
    const dir = makeTempDir('sysgrep-');
    writeFiles(dir, { 'real.txt': 'needle inside\n' });
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'out-link'));
    symlinkSync(join(dir, 'real.txt'), join(dir, 'in-link'));
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    symlinkSync(join(dir, 'pipe'), join(dir, 'pipe-link'));
    const { outcome, found } = await collect(query(dir, 'needle'));
    expect(outcome).toBe('done');
    expect(found.map((m) => `${m.file}:${m.text}`)).toEqual(['in-link:needle inside', 'real.txt:needle inside']);
  });

  it('is unsupported when the PCRE step limit stops grep, or the grep has no -P; grep_search then answers with the RE2 walker', async () => {
    const dir = makeTempDir('sysgrep-');
    writeFiles(dir, { 'a.txt': `${'a'.repeat(40)}b\n`, 'b.txt': 'needle\n' });
    expect((await collect(query(dir, '^(a|a)*$'))).outcome).toBe('unsupported');
    // A grep like BSD grep's, which rejects -P.
    const bin = makeTempDir('sysgrep-bin-');
    writeFiles(bin, { grep: '#!/bin/sh\necho "grep: invalid option -- P" >&2\nexit 2\n' });
    chmodSync(join(bin, 'grep'), 0o755);
    process.env.PATH = `${bin}:${PATH}`;
    expect((await collect(query(dir, 'needle'))).outcome).toBe('unsupported');
    const out = await call(makeEnv(dir), 'grep_search', { pattern: 'needle' });
    expect(out.forModel).toBe(
      [
        'Found 1 match in 1 file for pattern "needle" in the workspace:',
        '---',
        'File: b.txt',
        'L1: needle',
        '---',
      ].join('\n'),
    );
  });
});
