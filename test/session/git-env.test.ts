/**
 * The environment the action's own git runs with (src/git/env.ts), checked the way git reads
 * it. A repository whose own `.git/config` sets every code-running key to a command still gets the
 * inert value: the command scope, which git reads last, says so. Keys and values are literals here,
 * so a key dropped from the list or a value changed shows as a failure naming it.
 * (git-hardening.test.ts shows, vector by vector, that these keys are what stops the commands.)
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitEnv } from '../../src/git/env.js';
import { makeTempDir } from '../support/git-repo.js';

/** [key, what a hostile repository sets, what the action's git reads]. */
const INERT: ReadonlyArray<readonly [string, string, string]> = [
  ['core.fsmonitor', 'touch /tmp/pwned', 'false'],
  ['core.hooksPath', '.githooks', '/dev/null'],
  ['core.sshCommand', 'sh -c "touch /tmp/pwned"', 'ssh'],
  ['core.askPass', '/tmp/steal', ''],
  ['core.editor', 'touch /tmp/pwned', ':'],
  ['sequence.editor', 'touch /tmp/pwned', ':'],
  ['core.pager', 'touch /tmp/pwned', 'cat'],
  ['core.attributesFile', '/tmp/attributes', '/dev/null'],
  ['core.alternateRefsCommand', 'touch /tmp/pwned', ''],
  ['credential.helper', '!cat >/tmp/creds', ''],
  ['diff.external', 'touch /tmp/pwned', ''],
  ['commit.gpgSign', 'true', 'false'],
  ['tag.gpgSign', 'true', 'false'],
  ['tag.forceSignAnnotated', 'true', 'false'],
  ['push.gpgSign', 'true', 'false'],
  ['log.showSignature', 'true', 'false'],
  ['merge.verifySignatures', 'true', 'false'],
  ['protocol.allow', 'always', 'never'],
  ['protocol.file.allow', 'never', 'always'],
  ['protocol.https.allow', 'never', 'always'],
  ['protocol.http.allow', 'never', 'always'],
  ['protocol.ext.allow', 'always', 'never'],
  ['submodule.recurse', 'true', 'false'],
  ['fetch.recurseSubmodules', 'true', 'false'],
  ['push.recurseSubmodules', 'on-demand', 'no'],
  ['diff.ignoreSubmodules', 'none', 'dirty'],
  ['status.submoduleSummary', 'true', 'false'],
  ['push.followTags', 'true', 'false'],
  ['gc.auto', '1', '0'],
  ['maintenance.auto', 'true', 'false'],
];

let repo: string;
const clean = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

beforeAll(() => {
  repo = makeTempDir('agent-action-git-env-');
  execFileSync('git', ['init', '-q'], { cwd: repo, env: clean });
  for (const [key, hostile] of INERT) execFileSync('git', ['config', key, hostile], { cwd: repo, env: clean });
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

/** Every value git sees for `key` under `env`, in the order it reads them (the last one wins). */
const valuesOf = (key: string, env: Record<string, string>): string[] =>
  execFileSync('git', ['config', '--get-all', key], { cwd: repo, env, encoding: 'utf8' }).split('\n').slice(0, -1);

describe("the action's git reads inert values for every key that runs code", () => {
  it.each(INERT)('%s: the repository says %j, git uses %j', (key, hostile, inert) => {
    const values = valuesOf(key, createGitEnv({ base: process.env }));
    expect(values.at(-1)).toBe(inert);
    // The repository's value is still there, read first: the command scope is what overrides it.
    expect(values[0]).toBe(hostile);
  });

  it('every repository is a safe directory (ownership is not what keeps config from running code here)', () => {
    expect(valuesOf('safe.directory', createGitEnv({ base: process.env }))).toEqual(['*']);
  });

  it("the caller's config pairs come after the inert ones, so they win (a remote's URL, a driver neutralized by name)", () => {
    const env = createGitEnv({
      base: process.env,
      config: [
        ['core.hooksPath', '/srv/hooks'],
        ['remote.origin.url', '/srv/origin.git'],
      ],
    });
    expect(valuesOf('core.hooksPath', env).at(-1)).toBe('/srv/hooks');
    expect(valuesOf('remote.origin.url', env)).toEqual(['/srv/origin.git']);
    expect(valuesOf('core.fsmonitor', env).at(-1)).toBe('false');
  });
});

describe("the caller's environment", () => {
  const base = {
    PATH: '/usr/bin:/bin',
    TMPDIR: '/tmp/run',
    SYSTEMROOT: 'C:\\Windows',
    HTTPS_PROXY: 'http://proxy:3128',
    https_proxy: 'http://proxy:3129',
    HTTP_PROXY: 'http://proxy:3130',
    http_proxy: 'http://proxy:3131',
    NO_PROXY: 'localhost',
    no_proxy: '127.0.0.1',
    ALL_PROXY: 'socks5://proxy:1080',
    all_proxy: 'socks5://proxy:1081',
    SSL_CERT_FILE: '/etc/ssl/ca.pem',
    SSL_CERT_DIR: '/etc/ssl/certs',
    CURL_CA_BUNDLE: '/etc/ssl/bundle.pem',
    // Not passed: credentials, the runner's HOME (its .gitconfig), and git's own steering variables.
    GITHUB_TOKEN: 'ghs_secret',
    INPUT_GEMINI_API_KEY: 'AIza-secret',
    HOME: '/home/runner',
    XDG_CONFIG_HOME: '/home/runner/.config',
    GIT_DIR: '/elsewhere/.git',
    GIT_CONFIG_PARAMETERS: "'core.hooksPath'='/evil'",
    GIT_SSH_COMMAND: 'touch /tmp/pwned',
    GIT_EXEC_PATH: '/evil/libexec',
    UNSET: undefined,
  };

  it('passes how to find programs and reach the network, nothing else', () => {
    const env = createGitEnv({ base });
    const passed = Object.keys(env).filter((k) => !k.startsWith('GIT_') && k !== 'LC_ALL');
    expect(passed.sort()).toEqual(
      [
        'ALL_PROXY',
        'CURL_CA_BUNDLE',
        'HTTPS_PROXY',
        'HTTP_PROXY',
        'NO_PROXY',
        'PATH',
        'SSL_CERT_DIR',
        'SSL_CERT_FILE',
        'SYSTEMROOT',
        'TMPDIR',
        'all_proxy',
        'http_proxy',
        'https_proxy',
        'no_proxy',
      ].sort(),
    );
    for (const k of passed) expect(env[k]).toBe(base[k as keyof typeof base]);
    for (const k of ['GIT_DIR', 'GIT_CONFIG_PARAMETERS', 'GIT_SSH_COMMAND', 'GIT_EXEC_PATH'])
      expect(env).not.toHaveProperty(k);
  });

  it('sets git to read no system or global config, prompt nobody, and run no editor or pager', () => {
    expect(createGitEnv({ base: {} })).toMatchObject({
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: '',
      GIT_EDITOR: ':',
      GIT_SEQUENCE_EDITOR: ':',
      GIT_PAGER: 'cat',
      GIT_NO_REPLACE_OBJECTS: '1',
      LC_ALL: 'C',
    });
  });

  it('a variable the caller does not have is not set at all (not set to undefined)', () => {
    const env = createGitEnv({ base: { PATH: undefined, TMPDIR: '/t' } });
    expect(Object.keys(env)).not.toContain('PATH');
    expect(env.TMPDIR).toBe('/t');
  });

  it('GIT_CEILING_DIRECTORIES only when a ceiling is given', () => {
    expect(createGitEnv({ base: {}, ceiling: '/work' }).GIT_CEILING_DIRECTORIES).toBe('/work');
    expect(createGitEnv({ base: {} })).not.toHaveProperty('GIT_CEILING_DIRECTORIES');
  });

  it("the caller's extra variables are applied last", () => {
    const env = createGitEnv({
      base: { PATH: '/bin' },
      extra: { LC_ALL: 'C.UTF-8', GIT_INDEX_FILE: '/tmp/index', PATH: '/opt/bin' },
    });
    expect(env).toMatchObject({ LC_ALL: 'C.UTF-8', GIT_INDEX_FILE: '/tmp/index', PATH: '/opt/bin' });
  });
});
