/** whyNotBranchName against git itself: `git check-ref-format --branch` is the oracle for every name. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { whyNotBranchName } from '../../src/git/ref-name.js';

const gitAccepts = (name: string): boolean =>
  spawnSync('git', ['check-ref-format', '--branch', name], { stdio: 'ignore' }).status === 0;

const NAMES = [
  'main',
  'release/2.x',
  'agent-action/issue-12-crash',
  'feature/ü-unicode',
  'a.b',
  'a/b.c/d',
  '',
  '-flag',
  'HEAD',
  'a b',
  'tab\there',
  'nul\u0001',
  'del\u007f',
  'til~de',
  'car^et',
  'col:on',
  'que?ry',
  'st*ar',
  'br[acket',
  'back\\slash',
  'two..dots',
  'at@{brace',
  '/leading',
  'trailing/',
  'double//slash',
  'ends.',
  '.hidden',
  'dir/.hidden',
  'x.lock',
  'dir/x.lock/y',
  'at@sign',
  'a/@/b',
];

describe('branch names as git checks them', () => {
  it.each(NAMES)('%j: the same verdict as git check-ref-format --branch', (name) => {
    expect(whyNotBranchName(name) === undefined).toBe(gitAccepts(name));
  });

  it('says why in words', () => {
    expect(whyNotBranchName('a b')).toBe('it contains a space');
    expect(whyNotBranchName('x\u0001')).toBe('it contains a control character (U+0001)');
    expect(whyNotBranchName('dir/x.lock')).toBe('its part "x.lock" ends with ".lock"');
    // git's --branch reads "@" as HEAD's branch; as a name of its own it is refused (check-ref-format rule 9).
    expect(whyNotBranchName('@')).toBe('"@" names no branch');
  });
});
