import { describe, expect, it } from 'vitest';
import { editedBuildFile, isBuildFile } from '../../src/policy/build-files.js';

describe('build files (Gemini CLI build file protection)', () => {
  it.each<[string, boolean]>([
    ['package.json', true],
    ['sub/dir/Makefile', true],
    ['Dockerfile.dev', true],
    ['rules.bzl', true],
    ['cmake/x.CMAKE', true],
    ['go.sum', true],
    ['src/package.json.bak', false],
    ['README.md', false],
    ['makefile.txt', false],
  ])('%j is a build file: %s', (path, want) => {
    expect(isBuildFile(path)).toBe(want);
  });

  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['write_file', { file_path: 'package.json' }, 'package.json'],
    ['replace', { file_path: 'a/Makefile' }, 'a/Makefile'],
    ['mcp_fs_write_text', { path: 'Cargo.toml' }, 'Cargo.toml'],
    ['create_file', { filePath: 'pyproject.toml' }, 'pyproject.toml'],
    ['read_file', { file_path: 'package.json' }, undefined],
    ['write_file', { file_path: 'src/a.ts' }, undefined],
  ])('%s %j edits build file %j', (toolName, args, want) => {
    expect(editedBuildFile({ toolName, args }, [toolName])).toBe(want);
  });

  // Every name Gemini CLI protects, written out here (not read from the module): a name dropped
  // from the list, or misspelt, turns red.
  it.each([
    'BUILD',
    'BUILD.bazel',
    'WORKSPACE',
    'WORKSPACE.bazel',
    'MODULE.bazel',
    '.bazelrc',
    '.blazerc',
    'Makefile',
    'makefile',
    'GNUmakefile',
    'CMakeLists.txt',
    'package.json',
    'package-lock.json',
    'pnpm-lock.yaml',
    'yarn.lock',
    'bun.lockb',
    'setup.py',
    'setup.cfg',
    'pyproject.toml',
    'go.mod',
    'go.sum',
    'Cargo.toml',
    'Cargo.lock',
    'pom.xml',
    'build.gradle',
    'build.gradle.kts',
    'settings.gradle',
    'settings.gradle.kts',
    'Dockerfile',
    'Containerfile',
    'Dockerfile.ci',
    'Containerfile.arm64',
    'defs.bzl',
    'x.bazel',
    'deps.bzlmod',
    'rules.mk',
    'FindFoo.cmake',
    'RULES.MK',
  ])('%j, at the root and in a folder, is a build file', (name) => {
    expect([
      isBuildFile(name),
      isBuildFile(`a/b/${name}`),
      isBuildFile(`a\\b\\${name}`),
      isBuildFile(`${name}/`),
      isBuildFile(`a//${name}\0`),
    ]).toEqual([true, true, true, true, true]);
  });

  it.each([
    'Makefile.am',
    'xMakefile',
    'Dockerfile-old',
    'dockerfile',
    'package.json5',
    'PACKAGE.JSON',
    '.mk',
    'mk',
    'a.mk.txt',
    'bzl',
    '',
    '/',
    'a/',
  ])('%j is not a build file', (name) => {
    expect(isBuildFile(name)).toBe(false);
  });

  it.each(['write', 'edit', 'replace', 'patch', 'update', 'create', 'append', 'save'])(
    'a tool whose name has the word %j edits',
    (word) => {
      expect(
        editedBuildFile({ toolName: `mcp_fs_${word}_file`, args: { path: 'go.mod' } }, [`mcp_fs_${word}_file`]),
      ).toBe('go.mod');
      expect(editedBuildFile({ toolName: `x`, args: { file: 'go.mod' } }, ['x', `${word.toUpperCase()}-it`])).toBe(
        'go.mod',
      );
      // Only whole words: "rewrite", "saved" and "creates" are not the word.
      expect(editedBuildFile({ toolName: `re${word}s`, args: { path: 'go.mod' } }, [`re${word}s`])).toBeUndefined();
    },
  );

  it('takes the first path argument Gemini CLI reads, trimmed, and ignores what is not a string', () => {
    const edit = (args: Record<string, unknown>) => editedBuildFile({ toolName: 'write_file', args }, ['write_file']);
    expect(edit({ file_path: ' Makefile ' })).toBe(' Makefile ');
    expect(edit({ file_path: 'a.ts', path: 'Makefile' })).toBeUndefined();
    expect(edit({ path: 'Makefile', filePath: 'a.ts' })).toBe('Makefile');
    expect(edit({ filePath: 'Makefile', file: 'a.ts' })).toBe('Makefile');
    expect(edit({ file: 'Makefile' })).toBe('Makefile');
    expect(edit({ file_path: 42 })).toBeUndefined();
    expect(edit({})).toBeUndefined();
  });
});
