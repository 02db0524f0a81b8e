import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveInWorkspace } from '../../src/tools/workspace.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';
import { call, makeEnv, refusal } from './helpers.js';

/** The ToolFailure a promise rejects with, as { code, message }; undefined when it resolves. */
async function failureOf(p: Promise<unknown>): Promise<{ code: string; message: string } | undefined> {
  return p.then(
    () => undefined,
    (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
  );
}

function setup() {
  const { dir } = createRepo({ 'src/a.ts': 'export const a = 1;\n', 'README.md': '# r\n' });
  const outside = makeTempDir('agent-action-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET\n');
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'link-file'));
  symlinkSync(outside, join(dir, 'link-dir'));
  symlinkSync(join(dir, '.git'), join(dir, 'gitlink'));
  symlinkSync(join(outside, 'nope', 'missing.txt'), join(dir, 'dangling'));
  symlinkSync(join(dir, 'src'), join(dir, 'src-alias'));
  return { dir, outside, env: makeEnv(dir) };
}

describe('resolveInWorkspace', () => {
  it('resolves relative and absolute paths inside the root, and new files under real parents', async () => {
    const { dir } = setup();
    await expect(resolveInWorkspace(dir, 'src/a.ts', 'read')).resolves.toEqual({
      abs: join(dir, 'src/a.ts'),
      rel: 'src/a.ts',
      exists: true,
    });
    await expect(resolveInWorkspace(dir, join(dir, 'src/a.ts'), 'read')).resolves.toMatchObject({ rel: 'src/a.ts' });
    await expect(resolveInWorkspace(dir, 'new/deep/file.ts', 'write')).resolves.toEqual({
      abs: join(dir, 'new/deep/file.ts'),
      rel: 'new/deep/file.ts',
      exists: false,
    });
    await expect(resolveInWorkspace(dir, 'src-alias/new.ts', 'write')).resolves.toMatchObject({
      rel: 'src/new.ts',
      exists: false,
    });
    await expect(resolveInWorkspace(dir, '', 'read')).resolves.toMatchObject({ rel: '.' });
  });

  it('keeps a name that merely starts with two dots inside the workspace', async () => {
    const { dir } = setup();
    writeFileSync(join(dir, '..notes'), 'n\n');
    await expect(resolveInWorkspace(dir, '..notes', 'read')).resolves.toEqual({
      abs: join(dir, '..notes'),
      rel: '..notes',
      exists: true,
    });
    await expect(resolveInWorkspace(dir, 'src/..new', 'write')).resolves.toEqual({
      abs: join(dir, 'src/..new'),
      rel: 'src/..new',
      exists: false,
    });
  });

  it('treats blank paths as the root and trims the rest', async () => {
    const { dir } = setup();
    await expect(resolveInWorkspace(dir, '   ', 'read')).resolves.toEqual({ abs: dir, rel: '.', exists: true });
    await expect(resolveInWorkspace(dir, ' src/a.ts\n', 'read')).resolves.toEqual({
      abs: join(dir, 'src/a.ts'),
      rel: 'src/a.ts',
      exists: true,
    });
  });

  it('rebuilds a missing tail of several segments under the deepest real ancestor', async () => {
    const { dir } = setup();
    await expect(resolveInWorkspace(dir, 'src-alias/x/y/z.ts', 'write')).resolves.toEqual({
      abs: join(dir, 'src/x/y/z.ts'),
      rel: 'src/x/y/z.ts',
      exists: false,
    });
  });

  it('refuses a NUL byte as invalid arguments, before touching the file system', async () => {
    const { dir } = setup();
    const err = await failureOf(resolveInWorkspace(dir, 'src/a.ts\0.png', 'read'));
    expect(err).toEqual({ code: 'invalid_args', message: 'path contains a NUL byte' });
  });

  it('says a path is outside the workspace, and how to name one inside', async () => {
    const { dir } = setup();
    for (const given of ['../escape.txt', '..', '/etc/passwd', 'src/../../x']) {
      expect(await failureOf(resolveInWorkspace(dir, given, 'read'))).toEqual({
        code: 'outside_workspace',
        message: `${given} is outside the workspace (${dir}); use a path relative to the workspace root`,
      });
    }
  });

  it.each([
    ['link-file', 'read', /^link-file resolves through a symlink to .*secret\.txt, which is outside the workspace/],
    ['link-dir/secret.txt', 'read', /symlink .* outside the workspace/],
    ['link-dir/new.txt', 'write', /symlink .* outside the workspace/],
    ['dangling', 'write', /dangling symlink/],
    ['dangling/below.txt', 'write', /dangling symlink/],
    [
      '.git/config',
      'read',
      /^\.git\/config: git internals \(\.git\/\) are not readable by file tools; use run_shell_command with git/,
    ],
    [
      '.git/hooks/pre-commit',
      'write',
      /^\.git\/hooks\/pre-commit: writes into \.git\/ are refused; use run_shell_command with git/,
    ],
    ['.git', 'read', /git internals/],
    ['./.git', 'read', /git internals/],
    ['./.git/', 'read', /git internals/],
    ['a/../.git/config', 'read', /git internals/],
    ['src/../.git/hooks/post-checkout', 'write', /writes into \.git\/ are refused/],
    ['sub/.git/config', 'write', /writes into \.git\/ are refused/],
    ['gitlink', 'read', /git internals/],
    ['gitlink/config', 'write', /writes into \.git\/ are refused/],
    // Case variants: git's own directory on a case-insensitive file system (macOS, Windows). On
    // Linux these name other, legal directories; they are refused there too, one rule everywhere.
    ['.GIT/HEAD', 'write', /writes into \.git\/ are refused/],
    ['.Git/config', 'read', /git internals/],
    ['./.gIt/config', 'read', /git internals/],
    ['a/../.GIT/config', 'read', /git internals/],
  ] as const)('refuses %s (%s)', async (path, access, why) => {
    const { dir } = setup();
    const err = await failureOf(resolveInWorkspace(dir, path, access));
    expect(err?.code).toBe('outside_workspace');
    expect(err?.message).toMatch(why);
  });

  it('refuses .git/ named in the path even when .git is a symlink whose target has another name', async () => {
    const { dir } = createRepo({ 'README.md': '# r\n' });
    renameSync(join(dir, '.git'), join(dir, 'gitdir'));
    symlinkSync(join(dir, 'gitdir'), join(dir, '.git'));
    expect((await failureOf(resolveInWorkspace(dir, '.git/config', 'read')))?.message).toMatch(/git internals/);
    expect((await failureOf(resolveInWorkspace(dir, join(dir, '.git/HEAD'), 'write')))?.message).toMatch(
      /writes into \.git\/ are refused/,
    );
  });

  it("refuses a .GIT directory on Linux too, even one that is not git's", async () => {
    const { dir } = setup();
    mkdirSync(join(dir, '.GIT'));
    writeFileSync(join(dir, '.GIT', 'notes.txt'), 'not git\n');
    expect((await failureOf(resolveInWorkspace(dir, '.GIT/notes.txt', 'read')))?.code).toBe('outside_workspace');
  });
});

describe('file tools stay inside the workspace', () => {
  it.each([
    ['read_file', { file_path: 'link-file' }],
    ['read_file', { file_path: 'link-dir/secret.txt' }],
    ['list_directory', { dir_path: 'link-dir' }],
    ['glob', { pattern: '*', dir_path: 'link-dir' }],
    ['grep_search', { pattern: 'SECRET', dir_path: 'link-dir' }],
    ['write_file', { file_path: 'link-dir/x.txt', content: 'x' }],
    ['write_file', { file_path: '.git/hooks/post-checkout', content: '#!/bin/sh\necho pwned\n' }],
    ['replace', { file_path: 'link-file', old_string: 'TOP', new_string: 'BOTTOM' }],
    ['run_shell_command', { command: 'ls', dir_path: 'link-dir' }],
  ])('%s %j is refused before anything runs', async (name, args) => {
    const { env, outside, dir } = setup();
    expect((await refusal(env, name, args)).code).toBe('outside_workspace');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    expect(existsSync(join(dir, '.git/hooks/post-checkout'))).toBe(false);
  });

  it('grep_search does not follow a symlinked file out of the workspace, in or out of git', async () => {
    const { env, dir } = setup();
    const inGit = await call(env, 'grep_search', { pattern: 'TOP SECRET' });
    expect(inGit.forModel).not.toMatch(/TOP SECRET\n|L1: TOP SECRET/);
    const plain = makeTempDir('agent-action-plain-');
    mkdirSync(join(plain, 'd'));
    symlinkSync(join(setup().outside, 'secret.txt'), join(plain, 'd', 'leak.txt'));
    const out = await call(makeEnv(plain), 'grep_search', { pattern: 'TOP SECRET' });
    expect(out.forModel).toMatch(/No matches/);
    expect(dir).toBeTruthy();
  });
});
