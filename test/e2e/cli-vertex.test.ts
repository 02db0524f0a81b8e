/**
 * The CLI reaches Vertex AI from Gemini CLI's environment (issue 28): GOOGLE_GENAI_USE_VERTEXAI=true
 * with GOOGLE_API_KEY is express mode; with GOOGLE_CLOUD_PROJECT/LOCATION and a service-account key
 * file in GOOGLE_APPLICATION_CREDENTIALS, google-auth-library signs a JWT for the key's token_uri
 * (the loopback fake) and the token reaches the fake Gemini on Vertex's project path. Build first.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../support/cli-runner.js';
import { reply, startFakeGemini, text, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeGoogleAuth, type FakeGoogleAuth } from '../support/fake-google-auth.js';
import { makeTempDir } from '../support/git-repo.js';

let gemini: FakeGemini | undefined;
let auth: FakeGoogleAuth | undefined;
afterEach(async () => {
  await gemini?.close();
  await auth?.close();
  gemini = auth = undefined;
});

describe('agent-action -p on Vertex AI', () => {
  it('GOOGLE_API_KEY with GOOGLE_GENAI_USE_VERTEXAI=true: express mode', async () => {
    gemini = await startFakeGemini([reply([text('Hello from Vertex.')])]);
    const r = await runBuiltCli(['-p', 'hi', '-o', 'json'], {
      cwd: makeTempDir('cli-vertex-'),
      env: {
        GOOGLE_GENAI_USE_VERTEXAI: 'true',
        GOOGLE_API_KEY: 'AQ.cli-express-0001',
        GOOGLE_VERTEX_BASE_URL: gemini.baseUrl,
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ response: 'Hello from Vertex.' });
    expect(gemini.requests.map((q) => [q.path, q.apiKey])).toEqual([
      ['/v1beta1/publishers/google/models/gemini-2.5-pro:streamGenerateContent', 'AQ.cli-express-0001'],
    ]);
  });

  it('a service-account key file: a signed JWT at its token_uri, the Bearer token on the project path', async () => {
    gemini = await startFakeGemini([reply([text('Hello from Vertex.')])]);
    auth = await startFakeGoogleAuth();
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    auth.trust(publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const key = join(makeTempDir('cli-vertex-key-'), 'key.json');
    writeFileSync(
      key,
      JSON.stringify({
        type: 'service_account',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: 'cli@p.iam.gserviceaccount.com',
        token_uri: auth.tokenUri,
      }),
    );
    const r = await runBuiltCli(['-p', 'hi', '-o', 'json'], {
      cwd: makeTempDir('cli-vertex-'),
      env: {
        GOOGLE_GENAI_USE_VERTEXAI: 'true',
        GOOGLE_CLOUD_PROJECT: 'cli-project',
        GOOGLE_CLOUD_LOCATION: 'europe-west4',
        GOOGLE_APPLICATION_CREDENTIALS: key,
        GOOGLE_VERTEX_BASE_URL: gemini.baseUrl,
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(auth.assertions.map((a) => [a.verified, a.claims.iss])).toEqual([[true, 'cli@p.iam.gserviceaccount.com']]);
    expect(gemini.requests.map((q) => [q.path, q.authorization])).toEqual([
      [
        '/v1beta1/projects/cli-project/locations/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent',
        `Bearer ${auth.issued[0]}`,
      ],
    ]);
  });

  it('Vertex AI without a project or a key: exit 41 naming what to set', async () => {
    const r = await runBuiltCli(['-p', 'hi'], {
      cwd: makeTempDir('cli-vertex-'),
      env: { GOOGLE_GENAI_USE_VERTEXAI: 'true' },
    });
    expect(r.code).toBe(41);
    expect(r.stderr).toContain('needs GOOGLE_CLOUD_PROJECT, or GOOGLE_API_KEY for express mode');
  });
});
