/**
 * The credentials a run finds at start besides its inputs: actions/checkout's header, whatever token
 * it was given and wherever git reads it from (its own config, or v6's included file). The bug
 * each names: a header git would send that is not registered, so it is posted reversed or split.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkoutHeaderOf,
  parseHeaderSecrets,
  readCheckoutSecrets,
  runnerTokensOf,
} from '../../src/action/credentials.js';
import { createRepo, makeTempDir } from '../support/git-repo.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('readCheckoutSecrets', () => {
  it('actions/checkout v4/v5: the header in .git/config, its base64 value and the token inside', async () => {
    const { dir } = createRepo();
    execFileSync('git', [
      '-C',
      dir,
      'config',
      'http.https://github.com/.extraheader',
      `AUTHORIZATION: basic ${b64('x-access-token:ghs_checkoutToken0001')}`,
    ]);
    expect(await readCheckoutSecrets(dir)).toEqual([
      b64('x-access-token:ghs_checkoutToken0001'),
      'ghs_checkoutToken0001',
    ]);
  });

  it('actions/checkout v6: the header in a file .git/config includes for this git dir (RUNNER_TEMP)', async () => {
    const { dir } = createRepo();
    const file = join(makeTempDir('runner-temp-'), 'git-credentials-1.config');
    writeFileSync(
      file,
      `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${b64('x-access-token:ghs_v6Token000000001')}\n`,
    );
    execFileSync('git', ['-C', dir, 'config', `includeIf.gitdir:${join(dir, '.git')}.path`, file]);
    expect(await readCheckoutSecrets(dir)).toEqual([
      b64('x-access-token:ghs_v6Token000000001'),
      'ghs_v6Token000000001',
    ]);
  });

  it('no header, or no repository: nothing', async () => {
    expect(await readCheckoutSecrets(createRepo().dir)).toEqual([]);
    expect(await readCheckoutSecrets(makeTempDir('not-a-repo-'))).toEqual([]);
  });
});

describe('parseHeaderSecrets', () => {
  it('basic and bearer headers, any case; a bearer token is its own secret', () => {
    const text = `http.https://github.com/.extraheader AUTHORIZATION: basic ${b64('x-access-token:tok-1')}\nhttp.extraheader Authorization: Bearer tok-2\n`;
    expect(parseHeaderSecrets(text)).toEqual([b64('x-access-token:tok-1'), 'tok-1', 'tok-2']);
  });
});

describe('the runner tokens and the header the github-token makes', () => {
  it("ACTIONS_RUNTIME_TOKEN and ACTIONS_ID_TOKEN_REQUEST_TOKEN, not the runner's URLs", () => {
    expect(
      runnerTokensOf({
        ACTIONS_RUNTIME_TOKEN: 'rt',
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'id',
        ACTIONS_ID_TOKEN_REQUEST_URL: 'https://x',
        ACTIONS_CACHE_URL: 'https://c',
      }),
    ).toEqual(['rt', 'id']);
  });

  it('checkoutHeaderOf is what actions/checkout writes', () => {
    expect(checkoutHeaderOf('ghs_abc')).toBe('eC1hY2Nlc3MtdG9rZW46Z2hzX2FiYw==');
  });
});
