import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRepo, writeFiles } from '../support/git-repo.js';
import { call, makeEnv, prepare, refusal } from './helpers.js';

function repo() {
  return createRepo({
    'app.ts': 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n',
    'dup.ts': 'x();\ny();\nx();\nx();\n',
    'win.txt': 'first\r\nsecond\r\nthird\r\n',
    'latin1.txt': Buffer.from('caf\xe9\nbar\n', 'latin1'),
    'run.sh': '#!/bin/sh\necho old\n',
    'blob.bin': Buffer.from([1, 2, 0, 3]),
  }).dir;
}
const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');

describe('replace', () => {
  it('replaces exactly one occurrence and previews a unified diff', async () => {
    const dir = repo();
    const p = await prepare(makeEnv(dir), 'replace', {
      file_path: 'app.ts',
      old_string: 'const b = 2;',
      new_string: 'const b = 3;',
    });
    expect(p.title).toBe('edit app.ts (+1 -1)');
    expect(p.paths).toEqual(['app.ts']);
    expect(p.preview).toContain(
      '--- a/app.ts\n+++ b/app.ts\n@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n',
    );
    expect(read(dir, 'app.ts')).toContain('const b = 2;'); // prepare has no side effects
    const out = await p.run({ signal: new AbortController().signal });
    expect(out).toEqual({
      forModel: 'Successfully replaced 1 occurrence in app.ts.',
      forHuman: 'replaced 1 occurrence in app.ts',
    });
    expect(read(dir, 'app.ts')).toBe('const a = 1;\nconst b = 3;\nconst a2 = 1;\n');
  });

  it.each([
    [
      { old_string: 'nothing like it', new_string: 'z' },
      'failed',
      /old_string was not found in dup\.ts.*first line does not appear either/,
    ],
    [
      { old_string: '  y();', new_string: 'z' },
      'failed',
      /not found.*first line \(ignoring whitespace\) appears at line 2/,
    ],
    [
      { old_string: 'x();', new_string: 'z();' },
      'failed',
      /occurs 3 times in dup\.ts \(lines 1, 3, 4\) but 1 replacement was expected; include more surrounding lines.*or set expected_replacements to 3/,
    ],
    [
      { old_string: 'x();', new_string: 'z();', expected_replacements: 2 },
      'failed',
      /occurs 3 times .* but 2 replacements were expected/,
    ],
    [
      { old_string: 'y();', new_string: 'z();', expected_replacements: 2 },
      'failed',
      /occurs 1 times .* set expected_replacements to 1/,
    ],
    [{ old_string: 'y();', new_string: 'y();' }, 'invalid_args', /identical/],
    [{ old_string: '', new_string: 'z' }, 'invalid_args', /old_string is empty but dup\.ts exists/],
  ])('%j is refused (%s) and nothing changes', async (args, code, message) => {
    const dir = repo();
    const r = await refusal(makeEnv(dir), 'replace', { file_path: 'dup.ts', ...args });
    expect(r.code).toBe(code);
    expect(r.message).toMatch(message);
    expect(read(dir, 'dup.ts')).toBe('x();\ny();\nx();\nx();\n');
  });

  it.each([
    [{ expected_replacements: 3 }, 'z();\ny();\nz();\nz();\n'],
    [{ allow_multiple: true }, 'z();\ny();\nz();\nz();\n'],
  ])('replaces every occurrence with %j', async (extra, expected) => {
    const dir = repo();
    const out = await call(makeEnv(dir), 'replace', {
      file_path: 'dup.ts',
      old_string: 'x();',
      new_string: 'z();',
      ...extra,
    });
    expect(out.forModel).toBe('Successfully replaced 3 occurrences in dup.ts.');
    expect(read(dir, 'dup.ts')).toBe(expected);
  });

  it('keeps $ patterns in new_string literal', async () => {
    const dir = repo();
    await call(makeEnv(dir), 'replace', {
      file_path: 'app.ts',
      old_string: 'const b = 2;',
      new_string: "const b = '$&$1$$';",
    });
    expect(read(dir, 'app.ts')).toContain("const b = '$&$1$$';");
  });

  it('preserves CRLF line endings when the model sends LF', async () => {
    const dir = repo();
    await call(makeEnv(dir), 'replace', {
      file_path: 'win.txt',
      old_string: 'first\nsecond',
      new_string: 'first\nSECOND\nadded',
    });
    expect(read(dir, 'win.txt')).toBe('first\r\nSECOND\r\nadded\r\nthird\r\n');
  });

  it('preserves a Latin-1 file encoding and the executable bit', async () => {
    const dir = repo();
    await call(makeEnv(dir), 'replace', { file_path: 'latin1.txt', old_string: 'bar', new_string: 'bär' });
    expect(readFileSync(join(dir, 'latin1.txt'))).toEqual(Buffer.from('caf\xe9\nb\xe4r\n', 'latin1'));
    chmodSync(join(dir, 'run.sh'), 0o755);
    await call(makeEnv(dir), 'replace', { file_path: 'run.sh', old_string: 'old', new_string: 'new' });
    expect(statSync(join(dir, 'run.sh')).mode & 0o777).toBe(0o755);
  });

  it('creates a new file from an empty old_string, refuses binary and missing files', async () => {
    const dir = repo();
    const p = await prepare(makeEnv(dir), 'replace', {
      file_path: 'new/file.ts',
      old_string: '',
      new_string: 'hello\n',
    });
    expect(p.title).toBe('create new/file.ts');
    await p.run({ signal: new AbortController().signal });
    expect(read(dir, 'new/file.ts')).toBe('hello\n');
    expect(
      (await refusal(makeEnv(dir), 'replace', { file_path: 'blob.bin', old_string: 'a', new_string: 'b' })).code,
    ).toBe('invalid_args');
    expect(
      (await refusal(makeEnv(dir), 'replace', { file_path: 'gone.ts', old_string: 'a', new_string: 'b' })).code,
    ).toBe('not_found');
  });

  it('re-checks at run time: a file changed after approval fails instead of applying blindly', async () => {
    const dir = repo();
    const p = await prepare(makeEnv(dir), 'replace', {
      file_path: 'app.ts',
      old_string: 'const b = 2;',
      new_string: 'const b = 3;',
    });
    writeFiles(dir, { 'app.ts': 'rewritten meanwhile\n' });
    const out = await p.run({ signal: new AbortController().signal });
    expect(out.error?.code).toBe('failed');
    expect(out.forModel).toMatch(/old_string was not found/);
    expect(read(dir, 'app.ts')).toBe('rewritten meanwhile\n');
  });
});

describe('write_file', () => {
  it('creates parents and previews a new-file diff', async () => {
    const dir = repo();
    const p = await prepare(makeEnv(dir), 'write_file', { file_path: 'a/b/c.txt', content: 'x\ny\n' });
    expect(p.title).toBe('create a/b/c.txt');
    expect(p.preview).toContain('--- /dev/null\n+++ b/a/b/c.txt');
    expect(existsSync(join(dir, 'a'))).toBe(false);
    expect((await p.run({ signal: new AbortController().signal })).forModel).toBe(
      'Successfully created a/b/c.txt (3 lines).',
    );
    expect(read(dir, 'a/b/c.txt')).toBe('x\ny\n');
  });

  it('overwrites, keeping CRLF', async () => {
    const dir = repo();
    const p = await prepare(makeEnv(dir), 'write_file', { file_path: 'win.txt', content: 'only\nthis\n' });
    expect(p.title).toBe('overwrite win.txt (+2 -3)');
    await p.run({ signal: new AbortController().signal });
    expect(read(dir, 'win.txt')).toBe('only\r\nthis\r\n');
  });

  it.each(['.git/config', '.git/hooks/pre-push', 'sub/.git/HEAD'])('refuses to write %s', async (file) => {
    const dir = repo();
    const before = read(dir, '.git/config');
    const r = await refusal(makeEnv(dir), 'write_file', { file_path: file, content: 'x' });
    expect(r.code).toBe('outside_workspace');
    expect(read(dir, '.git/config')).toBe(before);
  });

  it('a cancelled call writes nothing', async () => {
    const dir = repo();
    const p = await prepare(makeEnv(dir), 'write_file', { file_path: 'never.txt', content: 'x' });
    const ac = new AbortController();
    ac.abort();
    expect((await p.run({ signal: ac.signal })).error?.code).toBe('cancelled');
    expect(existsSync(join(dir, 'never.txt'))).toBe(false);
  });
});
