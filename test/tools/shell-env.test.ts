/**
 * Which names say they hold a credential: what decides which values trusted configuration hands
 * over are secrets to redact (an MCP header, a `sandbox-env` NPM_TOKEN). Not what keeps them from
 * commands: that is the allow-list (test/sandbox/command-env.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { isSecretName } from '../../src/tools/shell-env.js';

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

  it.each([
    'PATH',
    'HOME',
    'TOKENIZER',
    'XTOKEN',
    'APIKEYS',
    'SECRETARY',
    'NO_ACTIONS_HERE',
    'MY_INPUT_X',
    'ACTIONS',
    'INPUT',
    'ACTIONS_STEP_DEBUG',
    'ACTIONS_RUNNER_DEBUG',
    'actions_step_debug',
  ])('%s is not', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe('isSecretName, every credential word', () => {
  it.each([
    'TOKEN',
    'TOKENS',
    'SECRET',
    'SECRETS',
    'PASSWORD',
    'PASSWD',
    'PASS',
    'PASSPHRASE',
    'API_KEY',
    'APIKEY',
    'KEY',
    'KEYS',
    'PRIVATE_KEY',
    'ACCESS_KEY',
    'AUTH',
    'AUTHTOKEN',
    'PAT',
    'CREDENTIAL',
    'CREDENTIALS',
    'CREDS',
    'DSN',
    'WEBHOOK',
    'COOKIE',
    'CONNECTION_STRING',
  ])('%s alone, as a prefix, a suffix and in the middle', (word) => {
    for (const name of [word, `${word}_FILE`, `MY_${word}`, `MY_${word}_FILE`, word.toLowerCase()])
      expect(isSecretName(name), name).toBe(true);
    // A word that is itself two segments (API_KEY) holds KEY as a whole segment either way.
    if (!word.includes('_'))
      for (const name of [`${word}X`, `X${word}`, `MY${word}_FILE`]) expect(isSecretName(name), name).toBe(false);
  });

  it("a shape is matched at the start only: ACTIONS_ and INPUT_ inside a name are not the runner's", () => {
    expect(isSecretName('ACTIONS_CACHE_URL')).toBe(true);
    expect(isSecretName('MY_ACTIONS_URL')).toBe(false);
    expect(isSecretName('INPUT_X')).toBe(true);
    expect(isSecretName('X_INPUT_Y')).toBe(false);
  });
});
