import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_LINES, MAX_LINE_CHARS } from '../../src/tools/builtin/read-file.js';
import { createRepo, makeTempDir, writeFiles } from '../support/git-repo.js';
import { call, makeEnv, prepare, refusal } from './helpers.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

function repo() {
  return createRepo({
    'small.txt': 'alpha\nbeta\ngamma\n',
    'long.txt': lines(5000),
    'empty.txt': '',
    'crlf.txt': 'one\r\ntwo\r\n',
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), // "café" in Latin-1
    'utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi there\n', 'utf16le')]),
    'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
    'wide.txt': 'x'.repeat(MAX_LINE_CHARS + 50) + '\n',
    'src/app.ts': 'export {};\n',
    'src/GEMINI.md': 'memory\n',
    'build/out.js': 'generated\n',
    '.gitignore': 'build/\n*.log\n',
    'debug.log': 'noise\n',
  }).dir;
}

describe('read_file', () => {
  it('reads a whole small file', async () => {
    const out = await call(makeEnv(repo()), 'read_file', { file_path: 'small.txt' });
    expect(out).toEqual({ forModel: 'alpha\nbeta\ngamma', forHuman: 'read small.txt (3 lines)' });
  });

  it('reads a line range', async () => {
    const out = await call(makeEnv(repo()), 'read_file', { file_path: 'long.txt', start_line: 10, end_line: 12 });
    expect(out.forModel).toBe(
      '[truncated: showing lines 10-12 of 5000; read lines 13-2012 next (start_line: 13)]\nline 10\nline 11\nline 12',
    );
  });

  it('caps a long file and says what to read next', async () => {
    const out = await call(makeEnv(repo()), 'read_file', { file_path: 'long.txt' });
    const first = out.forModel.split('\n')[0];
    expect(first).toBe(
      `[truncated: showing lines 1-${MAX_LINES} of 5000; read lines ${MAX_LINES + 1}-4000 next (start_line: ${MAX_LINES + 1})]`,
    );
    expect(out.forModel.split('\n')).toHaveLength(MAX_LINES + 1);
    const tail = await call(makeEnv(repo()), 'read_file', { file_path: 'long.txt', start_line: 4999 });
    expect(tail.forModel).toBe('[showing lines 4999-5000 of 5000]\nline 4999\nline 5000');
  });

  it.each([
    ['empty.txt', '(empty file)'],
    ['crlf.txt', 'one\ntwo'],
    ['latin1.txt', '[file is not valid UTF-8; shown decoded as Windows-1252 (Latin-1)]\ncafé'],
    ['utf16.txt', '[file is UTF-16LE; shown decoded]\nhi there'],
    [
      'image.png',
      'Cannot display image.png: binary file (12 bytes). Use run_shell_command (e.g. file, xxd | head) to inspect it.',
    ],
  ])('%s reads as %j', async (file, expected) => {
    expect((await call(makeEnv(repo()), 'read_file', { file_path: file })).forModel).toBe(expected);
  });

  it('cuts a very long line', async () => {
    const out = await call(makeEnv(repo()), 'read_file', { file_path: 'wide.txt' });
    expect(out.forModel).toContain(`[line cut at ${MAX_LINE_CHARS} of ${MAX_LINE_CHARS + 50} characters]`);
  });

  it.each([
    [{ file_path: 'missing.txt' }, 'not_found'],
    [{ file_path: 'src' }, 'invalid_args'],
    [{ file_path: 'small.txt', start_line: 5, end_line: 2 }, 'invalid_args'],
  ])('refuses %j with %s', async (args, code) => {
    expect((await refusal(makeEnv(repo()), 'read_file', args)).code).toBe(code);
  });

  it('reads a file past the synchronous size (256 KiB) the same way: whole, to its last line', async () => {
    const dir = makeTempDir('read-big-');
    const lines = Array.from({ length: 30_000 }, (_, i) => `row ${i + 1} ${'x'.repeat(10)}`);
    writeFiles(dir, { 'big.txt': `${lines.join('\n')}\n` });
    const out = await call(makeEnv(dir), 'read_file', { file_path: 'big.txt', start_line: 29_999 });
    expect(out.forModel).toBe(
      `[showing lines 29999-30000 of 30000]\nrow 29999 ${'x'.repeat(10)}\nrow 30000 ${'x'.repeat(10)}`,
    );
  });

  it('refuses a file that became a FIFO between prepare and run, rather than block on it', async () => {
    const dir = makeTempDir('read-fifo-');
    writeFiles(dir, { 'pipe.txt': 'plain\n' });
    const p = await prepare(makeEnv(dir), 'read_file', { file_path: 'pipe.txt' });
    rmSync(join(dir, 'pipe.txt'));
    execFileSync('mkfifo', [join(dir, 'pipe.txt')]);
    const out = await p.run({ signal: new AbortController().signal });
    expect(out.error).toMatchObject({ code: 'failed', message: 'pipe.txt is no longer a regular file' });
  });

  it('says when start_line is past the end', async () => {
    expect((await call(makeEnv(repo()), 'read_file', { file_path: 'small.txt', start_line: 9 })).forModel).toBe(
      'small.txt has 3 lines; start_line 9 is past the end.',
    );
  });

  it('appends just-in-time memory for the directory it read from', async () => {
    const dir = repo();
    const asked: string[] = [];
    const env = makeEnv(dir, {
      memoryFor: async (d) => (asked.push(d), d.endsWith('src') ? '--- src/GEMINI.md ---\nmemory' : undefined),
    });
    expect((await call(env, 'read_file', { file_path: 'src/app.ts' })).forModel).toBe(
      'export {};\n\n--- src/GEMINI.md ---\nmemory',
    );
    expect((await call(env, 'read_file', { file_path: 'small.txt' })).forModel).toBe('alpha\nbeta\ngamma');
    expect(asked).toEqual([join(dir, 'src'), dir]);
  });

  it('redacts secret values from what it returns', async () => {
    const dir = repo();
    writeFiles(dir, { 'leak.txt': 'token=ghs_abcdef123456\n' });
    expect(
      (await call(makeEnv(dir, { secrets: ['ghs_abcdef123456'] }), 'read_file', { file_path: 'leak.txt' })).forModel,
    ).toBe('token=***');
  });
});

describe('list_directory', () => {
  it('lists directories first, leaves out .git and ignored entries', async () => {
    const dir = repo();
    mkdirSync(join(dir, 'emptydir'));
    const out = await call(makeEnv(dir), 'list_directory', { dir_path: '.' });
    const listed = out.forModel.split('\n');
    expect(listed[0]).toBe('Directory listing for .:');
    expect(listed.slice(1, 3)).toEqual(['emptydir/', 'src/']);
    expect(listed).toContain('small.txt');
    expect(listed).not.toContain('build/');
    expect(listed).not.toContain('debug.log');
    expect(listed).not.toContain('.git/');
    expect(out.forModel).toContain('(2 entries ignored by .gitignore/.geminiignore)');
  });

  it('shows ignored entries when asked, and applies its own ignore globs', async () => {
    const out = await call(makeEnv(repo()), 'list_directory', {
      dir_path: '.',
      ignore: ['*.txt', '*.png'],
      file_filtering_options: { respect_git_ignore: false },
    });
    const listed = out.forModel.split('\n').slice(1);
    expect(listed).toEqual(['build/', 'src/', '.gitignore', 'debug.log']);
  });

  it('works outside git with nested .gitignore files', async () => {
    const dir = makeTempDir('agent-action-plain-');
    writeFiles(dir, {
      '.gitignore': 'tmp/\n',
      'pkg/.gitignore': 'secret.txt\n',
      'pkg/secret.txt': 's',
      'pkg/ok.txt': 'o',
      'tmp/x': 'x',
    });
    expect((await call(makeEnv(dir), 'list_directory', { dir_path: 'pkg' })).forModel).toBe(
      'Directory listing for pkg:\n.gitignore\nok.txt\n(1 entry ignored by .gitignore/.geminiignore)',
    );
    expect((await call(makeEnv(dir), 'list_directory', { dir_path: '.' })).forModel).toBe(
      'Directory listing for .:\npkg/\n.gitignore\n(1 entry ignored by .gitignore/.geminiignore)',
    );
  });

  it('appends memory and refuses files', async () => {
    const dir = repo();
    const env = makeEnv(dir, { memoryFor: async () => 'MEM' });
    expect((await call(env, 'list_directory', { dir_path: 'src' })).forModel).toBe(
      'Directory listing for src:\napp.ts\nGEMINI.md\n\nMEM',
    );
    expect((await refusal(env, 'list_directory', { dir_path: 'small.txt' })).code).toBe('invalid_args');
    expect((await refusal(env, 'list_directory', { dir_path: 'nope' })).code).toBe('not_found');
  });
});
