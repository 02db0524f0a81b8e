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

  it('a variable holding any one of several secret values is dropped', () => {
    expect(scrubEnv({ A: 'has first-secret', B: 'has second-secret', C: 'neither' }, ['first-secret', 'second-secret'])).toEqual({ C: 'neither' });
  });

  it('a secret value of four characters is looked for; shorter ones would drop innocent variables', () => {
    expect(scrubEnv({ A: 'xabcdx', B: 'abc' }, ['abcd', 'abc'])).toEqual({ B: 'abc' });
  });
});

describe('scrubEnv drops a variable whose value has the shape of a credential, whatever its name', () => {
  const a20 = 'A1b2C3d4E5f6G7h8I9j0';
  it.each([
    // A URL with a password in it.
    'https://user:pass@example.com/x',
    'git+ssh://deploy:hunter2@git.example.com/r.git',
    'HTTPS://U:P@HOST',
    'a12://user:pw@host', // a scheme ending in digits
    'x://user:pw@host', // a scheme of one letter
    'see redis://default:s3cret@cache:6379 for the cache',
    // GitHub tokens, at the start or after a separator.
    `ghp_${a20}`,
    `gho_${a20}`,
    `ghu_${a20}`,
    `ghs_${a20}`,
    `ghr_${a20}`,
    `github_pat_${a20}`,
    `token=ghs_${a20}`,
    `Bearer ghs_${a20}_and_more`,
    // Google, AWS, Slack, Stripe, npm, a JWT, a private key.
    `AIza${'B'.repeat(30)}`,
    `key:AIza${'a1_-'.repeat(8)}`,
    `AKIA${'ABCDEFGH12345678'}`,
    `ASIA${'ABCDEFGH12345678'}`,
    `id=AKIA${'ABCDEFGH12345678'}`,
    `xoxb-${'1234567890'}`,
    `xoxp-${'abc-def-gh'}`,
    `xoxa-${'1234567890'}`,
    `xoxo-${'1234567890'}`,
    `xoxs-${'1234567890'}`,
    `xoxr-${'1234567890'}`,
    `sk_live_${'0123456789abcdef'}`,
    `rk_test_${'0123456789ABCDEF'}`,
    `key=sk_test_${'0123456789abcdef'}`,
    `npm_${'a'.repeat(36)}`,
    `//registry.npmjs.org/:_authToken=npm_${'A1'.repeat(18)}`,
    'eyJhbGciOiJI.eyJzdWIiOiIx',
    'x eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig',
    '-----BEGIN PRIVATE KEY-----\nMIIE',
    '-----BEGIN RSA PRIVATE KEY-----',
    '-----BEGIN OPENSSH PRIVATE KEY-----',
    '-----BEGIN ENCRYPTED PRIVATE KEY-----',
  ])('%s', (value) => {
    expect(scrubEnv({ INNOCENT: value, KEEP: 'x' }, [])).toEqual({ KEEP: 'x' });
  });
});

describe('scrubEnv keeps values that only look near a credential', () => {
  const a19 = 'A1b2C3d4E5f6G7h8I9j';
  it.each([
    'https://user@example.com/x', // a user, no password
    'https://:pass@example.com', // no user
    'https://user:@example.com', // no password
    'https://example.com/a:b@c', // the colon and @ are in the path
    'https://us er:pw@example.com',
    'https://user:p w@example.com',
    'C:\\Users\\me',
    'mailto:me@example.com',
    `ghp_${a19}`, // one character short
    `xghp_${a19}Z`, // inside a longer word
    `ghx_${a19}Z`,
    `github_pa_${a19}Z`,
    `AIza${'B'.repeat(29)}`,
    `AKIA${'abcdefgh12345678'}`, // AWS key ids are upper case
    `AKIA${'ABCDEFGH1234567'}`,
    `XAKIA${'ABCDEFGH12345678'}`,
    `xoxb-${'123456789'}`,
    `xoxz-${'1234567890'}`,
    `sk_live_${'0123456789abcde'}`,
    `xsk_live_${'0123456789abcdef'}`,
    `sk_prod_${'0123456789abcdef'}`,
    `npm_${'a'.repeat(35)}`,
    `xnpm_${'a'.repeat(36)}`,
    'eyJhbGciO.eyJzdWIiOiIx', // header too short
    'eyJhbGciOiJI.eyJzdWIiO',
    'eyJhbGciOiJI eyJzdWIiOiIx',
    '-----BEGIN PUBLIC KEY-----',
    '-----BEGIN CERTIFICATE-----',
    '-----BEGIN rsa PRIVATE KEY-----',
    '-----BEGIN A VERY VERY VERY LONG LABEL PRIVATE KEY-----',
  ])('%s', (value) => {
    expect(scrubEnv({ INNOCENT: value }, [])).toEqual({ INNOCENT: value });
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
    for (const name of [word, `${word}_FILE`, `MY_${word}`, `MY_${word}_FILE`, word.toLowerCase()]) expect(isSecretName(name), name).toBe(true);
    // A word that is itself two segments (API_KEY) holds KEY as a whole segment either way.
    if (!word.includes('_')) for (const name of [`${word}X`, `X${word}`, `MY${word}_FILE`]) expect(isSecretName(name), name).toBe(false);
  });

  it("a shape is matched at the start only: ACTIONS_ and INPUT_ inside a name are not the runner's", () => {
    expect(isSecretName('ACTIONS_CACHE_URL')).toBe(true);
    expect(isSecretName('MY_ACTIONS_URL')).toBe(false);
    expect(isSecretName('INPUT_X')).toBe(true);
    expect(isSecretName('X_INPUT_Y')).toBe(false);
  });
});
