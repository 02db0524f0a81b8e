import { describe, expect, it } from 'vitest';
import { escapesWorkspace, whyWriteRefused } from '../../../src/policy/shell/paths.js';

const place = { workspace: '/ws/repo', dir: '.' };

describe('whyWriteRefused', () => {
  it.each<[string | undefined, string | undefined]>([
    ['out.txt', undefined],
    ['sub/dir/out.txt', undefined],
    ['./x', undefined],
    ['/ws/repo/out.txt', undefined],
    ['/dev/null', undefined],
    ['/dev/stderr', undefined],
    ['/dev/stdout', undefined],
    ['/dev/fd/1', undefined],
    ['/dev/fd/2', undefined],
    // Only the stream sinks: another descriptor or device is a file outside the workspace.
    ['/dev/fd/3', 'it is outside the workspace'],
    ['/dev/sda', 'it is outside the workspace'],
    [
      undefined,
      'its target is only known at run time (a variable, a substitution or a pattern), so it could be any file',
    ],
    ['.git/config', 'it is inside .git/, which only people change'],
    ['./.git/config', 'it is inside .git/, which only people change'],
    ['a/../.git/config', 'it is inside .git/, which only people change'],
    ['.GIT/config', 'it is inside .GIT/, which only people change'],
    ['sub/.git/config', 'it is inside .git/, which only people change'],
    ['.github/workflows/ci.yml', 'it is inside .github/, which only people change'],
    ['.gemini/policies/x.toml', 'it is inside .gemini/, which only people change'],
    ['/ws/repo/.git/config', 'it is inside .git/, which only people change'],
    ['.git', 'it is inside .git/, which only people change'],
    ['../x', 'it is outside the workspace'],
    ['a/../../x', 'it is outside the workspace'],
    ['/tmp/x', 'it is outside the workspace'],
    ['/ws/repo2/x', 'it is outside the workspace'],
    ['~/x', 'it is outside the workspace'],
  ])('%j -> %j', (path, why) => {
    expect(whyWriteRefused(path, place, false)).toBe(why);
  });

  it('after a change of directory, relative targets are unknown; absolute ones are still judged', () => {
    expect(whyWriteRefused('out.txt', place, true)).toMatch(/changes directory first/);
    expect(whyWriteRefused('/ws/repo/out.txt', place, true)).toBeUndefined();
    expect(whyWriteRefused('/dev/null', place, true)).toBeUndefined();
  });

  it('resolves relative targets from dir_path, and without a workspace every absolute path is outside', () => {
    expect(whyWriteRefused('../.git/config', { workspace: '/ws/repo', dir: 'sub' }, false)).toMatch(/inside \.git/);
    expect(whyWriteRefused('../../x', { workspace: '/ws/repo', dir: 'sub' }, false)).toMatch(/outside/);
    expect(whyWriteRefused('/ws/repo/out.txt', { dir: '.' }, false)).toMatch(/outside/);
  });

  // Bug caught: judging the absolute path itself instead of its part below the workspace root would
  // refuse every write in a checkout that happens to sit under a folder named .git/.github/.gemini.
  it('judges only the part of an absolute path below the workspace root', () => {
    const nested = { workspace: '/srv/.github/repo', dir: '.' };
    expect(whyWriteRefused('/srv/.github/repo/out.txt', nested, false)).toBeUndefined();
    expect(whyWriteRefused('/srv/.github/repo/.gemini/x', nested, false)).toBe(
      'it is inside .gemini/, which only people change',
    );
    expect(whyWriteRefused('/srv/.github/other/x', nested, false)).toBe('it is outside the workspace');
  });
});

describe('escapesWorkspace', () => {
  it.each<[string, boolean]>([
    ['src/a.ts', false],
    ['.', false],
    ['/ws/repo/src', false],
    // The workspace root itself, with or without its trailing slash, is inside (bug: only paths below it counted).
    ['/ws/repo', false],
    ['/ws/repo/', false],
    ['/ws/repo/src/..', false],
    ['/ws', true],
    ['/etc/passwd', true],
    ['../x', true],
    ['~', true],
    ['~/.ssh/id_rsa', true],
  ])('%j -> %s', (arg, want) => {
    expect(escapesWorkspace(arg, place)).toBe(want);
  });
});
