/**
 * Where the action pushes is decided when it starts, from `origin` as actions/checkout left it,
 * before the model can touch `.git/config`.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRemoteUrl, readActionRemote } from '../../src/action/action-remote.js';
import { commitWorktree, pushHead } from '../../src/action/publish/commits.js';
import { createRepo, git, makeTempDir } from '../support/git-repo.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

const at = { serverUrl: 'https://github.example.com/', repository: { owner: 'octo', repo: 'hello' } };

describe('parseRemoteUrl', () => {
  it.each([
    ['an https origin as checkout writes it', 'https://github.com/octo/hello', 'https://github.com/octo/hello'],
    [
      'credentials in the URL are dropped (the token travels as a header)',
      'https://x-access-token:ghs_abc@github.com/octo/hello.git',
      'https://github.com/octo/hello.git',
    ],
    [
      'an ssh origin becomes the server https URL',
      'git@github.com:octo/hello.git',
      'https://github.example.com/octo/hello',
    ],
    ['an ssh:// origin too', 'ssh://git@github.com/octo/hello.git', 'https://github.example.com/octo/hello'],
    ['an ext:: origin too (it would run a command)', 'ext::sh -c evil', 'https://github.example.com/octo/hello'],
    ['a local path stays (tests, mirrors)', '/srv/git/hello.git', '/srv/git/hello.git'],
    ['a file:// URL stays', 'file:///srv/git/hello.git', 'file:///srv/git/hello.git'],
    ['no origin at all: the server URL', '', 'https://github.example.com/octo/hello'],
  ])('%s', (_name, origin, expected) => {
    expect(parseRemoteUrl(origin, at)).toBe(expected);
  });
});

describe('readActionRemote', () => {
  it("reads origin's URL now and keeps it, whatever .git/config says later", async () => {
    const { dir, remote } = createRepo({ 'a.txt': 'a\n' }, { remote: true });
    made.push(dir, remote!);
    const read = await readActionRemote({ workspace: dir, token: 'ghs_token', ...at });
    expect(read).toEqual({ url: remote, token: 'ghs_token' });
    // The model rewrites origin afterwards; the push still goes where origin pointed at the start.
    git(dir, 'remote', 'set-url', 'origin', 'https://evil.example/steal.git');
    writeFileSync(join(dir, 'a.txt'), 'b\n');
    await commitWorktree(dir, { subject: 'x' });
    await pushHead(dir, 'feature', { remote: read });
    expect(git(remote!, 'show', 'feature:a.txt')).toBe('b');
  });

  it('a workspace that is no repository: the server URL', async () => {
    const dir = makeTempDir('agent-action-nogit-');
    made.push(dir);
    expect(await readActionRemote({ workspace: dir, token: 't', ...at })).toEqual({
      url: 'https://github.example.com/octo/hello',
      token: 't',
    });
  });
});
