/**
 * The CLI's share of the allow-list: what the user's settings name
 * (`security.environmentVariableRedaction.allowed`, Gemini CLI's setting) passes to commands, with
 * a warning for a name that may not pass. A project's settings are not read for it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { passEnvOf, readCliPassEnv } from '../../src/cli/command-env.js';
import { makeTempDir } from '../support/git-repo.js';

describe('passEnvOf', () => {
  it('the named variables that are set, as they are', () => {
    expect(
      passEnvOf(['JAVA_HOME', 'NPM_TOKEN', 'NOT_SET'], { JAVA_HOME: '/jdk', NPM_TOKEN: 'npm_x', OTHER: 'y' }),
    ).toEqual({ env: { JAVA_HOME: '/jdk', NPM_TOKEN: 'npm_x' }, warnings: [] });
  });

  it('a name that may not pass is a warning, and left out', () => {
    expect(passEnvOf(['GITHUB_TOKEN', 'bad-name', 3, 'OK'], { GITHUB_TOKEN: 't', OK: '1' })).toEqual({
      env: { OK: '1' },
      warnings: [
        `~/.gemini/settings.json security.environmentVariableRedaction.allowed: "GITHUB_TOKEN" is the runner's or the action's own (a token, an input or a file command): commands never get it; ignored`,
        '~/.gemini/settings.json security.environmentVariableRedaction.allowed: "bad-name" is not a variable name (letters, digits and _, not starting with a digit); ignored',
        '~/.gemini/settings.json security.environmentVariableRedaction.allowed: 3 is not a string; ignored',
      ],
    });
    expect(passEnvOf('JAVA_HOME', {}).warnings).toEqual([
      '~/.gemini/settings.json security.environmentVariableRedaction.allowed: must be a list of variable names; ignored',
    ]);
  });
});

describe('readCliPassEnv', () => {
  it("reads the user's settings.json (comments and all)", async () => {
    const home = makeTempDir('cli-home-');
    mkdirSync(join(home, '.gemini'));
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      '{ // mine\n "security": { "environmentVariableRedaction": { "allowed": ["JAVA_HOME"] } } }',
    );
    expect(await readCliPassEnv({ JAVA_HOME: '/jdk', PGPASSWORD: 'x' }, home)).toEqual({
      env: { JAVA_HOME: '/jdk' },
      warnings: [],
    });
    expect(await readCliPassEnv({ JAVA_HOME: '/jdk' }, makeTempDir('cli-home-'))).toEqual({ env: {}, warnings: [] });
  });
});
