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
});
