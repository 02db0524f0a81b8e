import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveInWorkspace } from '../../src/tools/workspace.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';
import { call, makeEnv, refusal } from './helpers.js';

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
    await expect(resolveInWorkspace(dir, 'src/a.ts', 'read')).resolves.toEqual({ abs: join(dir, 'src/a.ts'), rel: 'src/a.ts', exists: true });
    await expect(resolveInWorkspace(dir, join(dir, 'src/a.ts'), 'read')).resolves.toMatchObject({ rel: 'src/a.ts' });
    await expect(resolveInWorkspace(dir, 'new/deep/file.ts', 'write')).resolves.toEqual({ abs: join(dir, 'new/deep/file.ts'), rel: 'new/deep/file.ts', exists: false });
    await expect(resolveInWorkspace(dir, 'src-alias/new.ts', 'write')).resolves.toMatchObject({ rel: 'src/new.ts', exists: false });
    await expect(resolveInWorkspace(dir, '', 'read')).resolves.toMatchObject({ rel: '.' });
  });

  it.each([
    ['../escape.txt', 'read', /outside the workspace/],
    ['/etc/passwd', 'read', /outside the workspace/],
    ['link-file', 'read', /symlink .* outside the workspace/],
    ['link-dir/secret.txt', 'read', /symlink .* outside the workspace/],
    ['link-dir/new.txt', 'write', /symlink .* outside the workspace/],
    ['dangling', 'write', /dangling symlink/],
    ['.git/config', 'read', /git internals/],
    ['.git/hooks/pre-commit', 'write', /writes into \.git\/ are refused/],
    ['sub/.git/config', 'write', /writes into \.git\/ are refused/],
    ['.GIT/HEAD', 'write', /writes into \.git\/ are refused/],
    ['gitlink/config', 'write', /writes into \.git\/ are refused/],
  ] as const)('refuses %s (%s)', async (path, access, why) => {
    const { dir } = setup();
    const err = await resolveInWorkspace(dir, path, access).then(
      () => undefined,
      (e: { code: string; message: string }) => e,
    );
    expect(err?.code).toBe('outside_workspace');
    expect(err?.message).toMatch(why);
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
