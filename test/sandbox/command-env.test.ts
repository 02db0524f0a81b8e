/**
 * The environment of every process the model can influence is an allow-list: a name is passed
 * because it is listed, never because it looks harmless. The bug each test names: a variable
 * outside the list reaching a command (a client's password under its standard name), a listed
 * one that holds a secret passing, or trusted configuration passing the runner's own.
 */
import { describe, expect, it } from 'vitest';
import { commandEnvOf, isPassedVariable, PASSED_VARIABLES, whyNotPassable } from '../../src/sandbox/command-env.js';

describe('commandEnvOf', () => {
  it("keeps only the listed variables (and LC_*) of a runner's environment", () => {
    const listed = {
      PATH: '/usr/bin',
      HOME: '/home/runner',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      LC_MESSAGES: 'C',
      TERM: 'xterm',
      TZ: 'UTC',
      CI: 'true',
      GITHUB_REPOSITORY: 'octo/hello',
      GITHUB_SHA: 'abc123',
      RUNNER_OS: 'Linux',
    };
    const base = {
      ...listed,
      // A client's secret under its standard name, in every shape a deny list misses.
      PGPASSWORD: 'pg-secret',
      MYSQL_PWD: 'mysql-secret',
      REDIS_URL: 'redis://:redis-secret@cache:6379',
      KUBE_CONFIG_DATA: Buffer.from('apiVersion: v1').toString('base64'),
      AWS_SESSION: 'x',
      SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
      NODE_OPTIONS: '--require /tmp/x.js',
      // The runner's own.
      GITHUB_TOKEN: 'ghs_x',
      ACTIONS_RUNTIME_TOKEN: 'rt',
      ACTIONS_STEP_DEBUG: 'true',
      GITHUB_ENV: '/home/runner/work/_temp/_runner_file_commands/set_env_1',
      GITHUB_EVENT_PATH: '/home/runner/work/_temp/_github_workflow/event.json',
      RUNNER_TEMP: '/home/runner/work/_temp',
      GITHUB_ACTION_PATH: '/home/runner/work/_actions/o/a/v1',
      INPUT_PROMPT: 'hi',
      UNSET: undefined,
    };
    expect(commandEnvOf(base, [])).toEqual(listed);
  });

  it('a listed variable holding a run secret (8 characters or more) is left out; a shorter value matches innocent text and is not looked for', () => {
    expect(
      commandEnvOf({ GITHUB_REF: 'refs/heads/ghs_secret123', GITHUB_SHA: 'abc', CI: 'true' }, ['ghs_secret123', 'abc']),
    ).toEqual({ GITHUB_SHA: 'abc', CI: 'true' });
    // Exactly at the bound: looked for.
    expect(commandEnvOf({ GITHUB_REF: 'refs/heads/8charsss', CI: 'true' }, ['8charsss'])).toEqual({ CI: 'true' });
  });

  it('a listed variable that is unset is left out, not passed as undefined', () => {
    expect(commandEnvOf({ HOME: undefined, CI: 'true' }, [])).toStrictEqual({ CI: 'true' });
  });

  it("names are exact: a listed name's prefix or a case variant is not listed", () => {
    for (const name of [
      'PATHX',
      'path',
      'GITHUB_REPOSITORY_X',
      'XLC_ALL',
      'lc_all',
      'GITHUB_',
      'RUNNER_TEMP',
      'RUNNER_WORKSPACE',
    ])
      expect(isPassedVariable(name), name).toBe(false);
  });

  it('the list holds no variable the runner uses for a secret or a file command, and gives a reason for each entry', () => {
    for (const [name, why] of Object.entries(PASSED_VARIABLES)) {
      expect(name).not.toMatch(
        /TOKEN|^ACTIONS_|^INPUT_|^GITHUB_(ENV|PATH|OUTPUT|STATE|STEP_SUMMARY|EVENT_PATH)$|^RUNNER_(TEMP|WORKSPACE)$/,
      );
      expect(why.length, name).toBeGreaterThan(5);
    }
  });
});

describe('whyNotPassable', () => {
  it.each([
    'JAVA_HOME',
    'NPM_TOKEN',
    'PGPASSWORD',
    '_X',
    'a1',
    // The refused names are whole names (or, for ACTIONS_ and INPUT_, prefixes at the start).
    'GITHUB_TOKEN_FOR_DOCS',
    'GITHUB_ENVIRONMENT',
    'GITHUB_OUTPUTS',
    'GITHUB_PATHS',
    'GITHUB_STATEFUL',
    'GITHUB_STEP_SUMMARY_DIR',
    'GITHUB_EVENT_PATHS',
    'RUNNER_TEMPLATE',
    'MY_ACTIONS_HOME',
    'MY_INPUT_DIR',
  ])('%s may be passed by trusted configuration', (name) => {
    expect(whyNotPassable(name)).toBeUndefined();
  });

  it.each([
    ['GITHUB_TOKEN', /the runner's or the action's own/],
    ['github_token', /the runner's or the action's own/],
    ['ACTIONS_ID_TOKEN_REQUEST_TOKEN', /the runner's or the action's own/],
    ['INPUT_GEMINI_API_KEY', /the runner's or the action's own/],
    ['GITHUB_ENV', /the runner's or the action's own/],
    ['GITHUB_PATH', /the runner's or the action's own/],
    ['GITHUB_OUTPUT', /the runner's or the action's own/],
    ['GITHUB_STATE', /the runner's or the action's own/],
    ['GITHUB_STEP_SUMMARY', /the runner's or the action's own/],
    ['GITHUB_EVENT_PATH', /the runner's or the action's own/],
    ['RUNNER_TEMP', /the runner's or the action's own/],
    ['A-B', /not a variable name/],
    ['9LIVES', /not a variable name/],
    ['', /not a variable name/],
  ])('%s is refused', (name, why) => {
    expect(whyNotPassable(name)).toMatch(why);
  });
});
