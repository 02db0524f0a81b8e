/**
 * What a command the model wrote may see of the job's environment: no credential by name (every
 * token the runner and the action hold, and anything named like one), none by value.
 */
import { describe, expect, it } from 'vitest';
import { isSecretName, scrubEnv } from '../../src/tools/shell-env.js';

describe('isSecretName', () => {
  it.each([
    // The job's own credentials, by the names the runner and the action give them.
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'GH_ENTERPRISE_TOKEN',
    'GITHUB_ENTERPRISE_TOKEN',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'GOOGLE_GENAI_API_KEY',
    'ACTIONS_RUNTIME_TOKEN',
    'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
    'ACTIONS_ID_TOKEN_REQUEST_URL',
    'ACTIONS_CACHE_URL',
    'ACTIONS_RESULTS_URL',
    'INPUT_GITHUB_TOKEN',
    'INPUT_GEMINI_API_KEY',
    'INPUT_PROMPT',
    // Anything named like a credential, in any case and position.
    'TOKEN',
    'NPM_TOKEN',
    'TOKEN_FILE',
    'MY_SECRET',
    'SECRET_VALUE',
    'DB_PASSWORD',
    'FTP_PASSWD',
    'OPENAI_API_KEY',
    'STRIPE_APIKEY',
    'SSH_PRIVATE_KEY',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_ACCESS_KEY_ID',
    'github_token',
    'actions_runtime_token',
    'input_x',
    'MY_TOKENS',
  ])('%s is a secret name', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'TOKENIZER', 'XTOKEN', 'APIKEYS', 'SECRETARY', 'NO_ACTIONS_HERE', 'MY_INPUT_X', 'ACTIONS', 'INPUT', 'ACTIONS_STEP_DEBUG', 'ACTIONS_RUNNER_DEBUG', 'actions_step_debug'])(
    '%s is not',
    (name) => {
      expect(isSecretName(name)).toBe(false);
    },
  );
});

describe('scrubEnv', () => {
  it('drops secret names and any variable that holds a secret value, keeps the rest', () => {
    const base = { PATH: '/usr/bin', GITHUB_TOKEN: 'ghs_abc', COPY: 'x-ghs_live_123-y', SHORT: 'abc', OTHER: 'fine', UNSET: undefined };
    expect(scrubEnv(base, ['ghs_live_123', 'abc'])).toEqual({ PATH: '/usr/bin', SHORT: 'abc', OTHER: 'fine' });
  });

  it('a secret value of four characters is looked for; shorter ones would drop innocent variables', () => {
    expect(scrubEnv({ A: 'xabcdx', B: 'abc' }, ['abcd', 'abc'])).toEqual({ B: 'abc' });
  });
});
