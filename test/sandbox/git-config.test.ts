import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sanitizeGitConfig } from '../../src/sandbox/git-config.js';
import { makeTempDir } from '../support/git-repo.js';

/** What actions/checkout v4 leaves in .git/config with persist-credentials (the token is fake). */
const CHECKOUT_V4 = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = true
[remote "origin"]
\turl = https://github.com/octo/hello
\tfetch = +refs/heads/*:refs/remotes/origin/*
[gc]
\tauto = 0
[http "https://github.com/"]
\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX2Zha2U=
[branch "main"]
\tremote = origin
\tmerge = refs/heads/main
`;

/** checkout v6: the token lives in a file under RUNNER_TEMP, included by gitdir. */
const CHECKOUT_V6 = `[core]
\tbare = false
[includeIf "gitdir:/home/runner/work/hello/hello/.git"]
\tpath = /home/runner/work/_temp/git-credentials-4b1c.config
[includeIf "gitdir:/github/workspace/.git"]
\tpath = /github/runner_temp/git-credentials-4b1c.config
[remote "origin"]
\turl = https://github.com/octo/hello
`;

describe('sanitizeGitConfig', () => {
  it("drops actions/checkout v4's AUTHORIZATION header and keeps everything else", () => {
    const r = sanitizeGitConfig(CHECKOUT_V4);
    expect(r.text).not.toContain('AUTHORIZATION');
    expect(r.text).not.toContain('eC1hY2Nlc3MtdG9rZW46Z2hzX2Zha2U=');
    expect(r.text).toContain('[http "https://github.com/"]\n[branch "main"]');
    expect(r.text).toContain('\turl = https://github.com/octo/hello\n');
    expect(r.text).toContain('\tmerge = refs/heads/main\n');
    expect(r.changed).toBe(1);
  });

  it("drops checkout v6's include of the credential file", () => {
    const r = sanitizeGitConfig(CHECKOUT_V6);
    expect(r.text).not.toContain('git-credentials');
    expect(r.text).toContain('[remote "origin"]\n\turl = https://github.com/octo/hello');
    expect(r.changed).toBe(2);
  });

  it.each([
    [
      '[remote "origin"]\n\turl = https://x-access-token:ghs_abcdefgh@github.com/o/r.git\n',
      '[remote "origin"]\n\turl = https://github.com/o/r.git\n',
    ],
    [
      '[url "https://ghp_tokenvalue123@github.com/"]\n\tinsteadOf = https://github.com/\n',
      '[url "https://github.com/"]\n\tinsteadOf = https://github.com/\n',
    ],
    [
      '[credential]\n\thelper = store --file=/home/runner/.git-credentials\n\tusername = bot\n[core]\n\tbare = false\n',
      '[credential]\n[core]\n\tbare = false\n',
    ],
    [
      '[credential "https://github.com"]\n\thelper = !f() { echo password=$TOKEN; }; f\n',
      '[credential "https://github.com"]\n',
    ],
    ['[http]\n\tExtraHeader = Authorization: Bearer abc\n', '[http]\n'],
    // A value continued onto the next line goes with it.
    [
      '[http]\n\textraheader = AUTHORIZATION: \\\nbasic Zm9vYmFyYmF6\n\tsslVerify = true\n',
      '[http]\n\tsslVerify = true\n',
    ],
    // `[section] key = value` on one line.
    ['[credential] helper = store\n[core] editor = vi\n', '[credential]\n[core] editor = vi\n'],
    // Old-style subsection syntax.
    ['[http.https://github.com/]\n\textraheader = AUTHORIZATION: basic Zm9vYmFyYmF6\n', '[http.https://github.com/]\n'],
    ['# a comment\n[alias]\n\tst = status\n', '# a comment\n[alias]\n\tst = status\n'],
  ])('%j -> %j', (input, expected) => {
    expect(sanitizeGitConfig(input).text).toBe(expected);
  });

  it('its output is a config real git reads, with the credential gone and the rest intact', () => {
    const dir = makeTempDir('agent-action-gitcfg-');
    try {
      const file = join(dir, 'config');
      writeFileSync(file, sanitizeGitConfig(CHECKOUT_V4).text);
      const list = execFileSync('git', ['config', '--file', file, '--list'], { encoding: 'utf8' });
      expect(list).toContain('remote.origin.url=https://github.com/octo/hello');
      expect(list).toContain('branch.main.merge=refs/heads/main');
      expect(list).not.toMatch(/extraheader/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sanitizeGitConfig, line by line', () => {
  it.each<[string, string, number]>([
    ['[http]\n\tproxyAuthMethod = basic\n', '[http]\n', 1],
    ['[include]\n\tpath = /x\n', '[include]\n', 1],
    ['[includeIf "gitdir:/x"]\n\tpath = /y\n', '[includeIf "gitdir:/x"]\n', 1],
    ['[Credential]\n\tHelper = x\n', '[Credential]\n', 1],
    ['  [ credential ]\n\thelper = x\n', '  [ credential ]\n', 1],
    ['[credential]\n\thelper#x\n\thelper;y\n\thelper\n', '[credential]\n', 3],
    // A credential-looking value is dropped in any section.
    ['[core]\n\tx = token abcdefgh12\n', '[core]\n', 1],
    ['[core]\n\tx = bearer abcdefgh\n', '[core]\n', 1],
    ['[core]\n\tx = Authorization  : y\n', '[core]\n', 1],
    ['[core]\n\tx = token abc\n', '[core]\n\tx = token abc\n', 0],
    ['[core]\n\tbasic = x\n', '[core]\n\tbasic = x\n', 0],
    ['[core]\n\tx = basicauth abcdefghij\n', '[core]\n\tx = basicauth abcdefghij\n', 0],
    // An even number of trailing backslashes is an escaped backslash, not a continuation.
    ['[http]\n\textraheader = x\\\\\n\tsslVerify = true\n', '[http]\n\tsslVerify = true\n', 1],
    ['[http]\n\textraheader = x\\\\\\\n\tsslVerify = true\n\tpostBuffer = 1\n', '[http]\n\tpostBuffer = 1\n', 2],
    // Quoted subsections may hold `]` and escaped quotes; a header without its `]` is no header.
    ['[url "https://x/]"]\n\tinsteadOf = y\n', '[url "https://x/]"]\n\tinsteadOf = y\n', 0],
    ['[url "a\\"b"]\n\tinsteadOf = y\n', '[url "a\\"b"]\n\tinsteadOf = y\n', 0],
    ['[url "abc\n\tinsteadOf = y\n', '[url "abc\n\tinsteadOf = y\n', 0],
    // Userinfo goes from every URL: in a header, a value, a quoted value.
    ['[url "https://u:p@h/"]\n\tinsteadOf = y\n', '[url "https://h/"]\n\tinsteadOf = y\n', 1],
    ['[core]\n\teditor = vi\n\turl = ssh://git@h/x\n', '[core]\n\teditor = vi\n\turl = ssh://h/x\n', 1],
    ['[remote "o"]\n\turl = "https://t@h/x"\n', '[remote "o"]\n\turl = "https://h/x"\n', 1],
    // A URL at the start of a line (a continued value), and schemes of one letter or ending in a digit.
    ['[remote "o"]\n\turl = \\\nhttps://tok@h/x\n', '[remote "o"]\n\turl = \\\nhttps://h/x\n', 1],
    ['[core]\n\tx = a1://tok@h/x\n\ty = x://tok@h/y\n', '[core]\n\tx = a1://h/x\n\ty = x://h/y\n', 2],
    // `[section] key = value` on one line that needs no change; a header with trailing blanks loses them.
    ['[core] editor = vi\n', '[core] editor = vi\n', 0],
    ['[core]  \t\n\tbare = false\n', '[core]\n\tbare = false\n', 0],
    // Keys at any indentation, and a key followed directly by a comment.
    ['[credential]\nhelper = x\n\t\t  username = y\n', '[credential]\n', 2],
    ['[http]\n\textraheader;comment\n\tsslVerify = true\n', '[http]\n\tsslVerify = true\n', 1],
    ['[core]\n\tx = bearer   abcdefgh\n', '[core]\n', 1],
    // A value that holds brackets is no header: the section it is in still counts.
    ['[credential]\n\thelper = [x]\n\tusername = bot\n', '[credential]\n', 2],
    // A subsection after a tab, with an escaped quote; a header without its `]` or with an unterminated quote is none.
    ['[credential]\n[remote\t"o"]\n\turl = x\n', '[credential]\n[remote\t"o"]\n\turl = x\n', 0],
    ['[credential "a\\"b"]\n\thelper = x\n', '[credential "a\\"b"]\n', 1],
    ['[credential]\n[core\n\thelper = x\n', '[credential]\n[core\n', 1],
    ['[credential]\n[url "abc\n\tinsteadOf = y\n', '[credential]\n[url "abc\n', 1],
    // A junk line with brackets in it is no header either: the credential section goes on.
    ['[credential]\n]][\n\thelper = y\n', '[credential]\n]][\n', 1],
    // A header with no section name is no section of ours, whatever follows it on the line.
    ['[ "x"] [credential]\n\thelper = x\n', '[ "x"] [credential]\n\thelper = x\n', 0],
    // Continuation: only a backslash at the very end (blanks after it allowed) continues a line.
    ['[http]\n\textraheader = a\\b\n\tsslVerify = true\n', '[http]\n\tsslVerify = true\n', 1],
    ['[http]\n\textraheader = x\\  \n\tcontinued\n\tsslVerify = true\n', '[http]\n\tsslVerify = true\n', 2],
  ])('%j -> %j (%i changed)', (input, text, changed) => {
    expect(sanitizeGitConfig(input)).toEqual({ text, changed });
  });
});
