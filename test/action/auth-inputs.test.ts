/**
 * run-gemini-cli's input names and the step's environment, read as the action's inputs (through
 * readInputs, as main.ts reads them): each bug named is one that would make a case red.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionKeyOf } from '../../src/action/approval/suspend.js';
import { closestInput } from '../../src/action/auth-inputs.js';
import { readInputs } from '../../src/action/inputs.js';
import { parseGoogleCredentials } from '../../src/model/google-credentials.js';
import { runnerPathsOf, withoutRunnerVariables } from '../../src/sandbox/runner-paths.js';
import { makeTempDir } from '../support/git-repo.js';

const RUNNER = { GITHUB_REPOSITORY: 'octo/hello', GITHUB_EVENT_NAME: 'issue_comment', GITHUB_WORKSPACE: '/w' };

/** A step's environment: INPUT_<NAME> as the runner spells it (upper case, `-` and `_` kept), and core.getInput over it. */
function read(inputs: Record<string, string>, env: Record<string, string> = {}) {
  const all: Record<string, string> = { ...RUNNER, ...env };
  for (const [k, v] of Object.entries({ 'github-token': 'ghs_test00000000', ...inputs }))
    all[`INPUT_${k.toUpperCase()}`] = v;
  const masked: string[] = [];
  const r = readInputs(
    (name) => all[`INPUT_${name.toUpperCase()}`] ?? '',
    all,
    (s) => void masked.push(s),
  );
  return { ...r, masked };
}

describe("run-gemini-cli's inputs", () => {
  it('reads its with: block as ours, says so once, and names the inputs it does not use in one warning', () => {
    const r = read({
      gemini_api_key: 'AIza-from-their-name-0001',
      gemini_model: 'gemini-2.5-flash',
      gemini_cli_version: 'latest',
      gemini_debug: 'true',
      workflow_name: 'gemini-invoke',
      prompt: 'Say hi.',
    });
    expect(r.ok).toBe(true);
    // Bug: an alias not read, or read under the wrong input.
    expect([r.settings.geminiApiKey, r.settings.model, r.settings.prompt]).toEqual([
      'AIza-from-their-name-0001',
      'gemini-2.5-flash',
      'Say hi.',
    ]);
    expect(r.masked).toContain('AIza-from-their-name-0001');
    expect(r.notes.notices).toEqual([
      "run-gemini-cli's inputs read as agent-action's: gemini_api_key as gemini-api-key, gemini_model as model",
    ]);
    expect(r.notes.warnings).toHaveLength(1);
    expect(r.notes.warnings[0]).toMatch(/^inputs agent-action does not use, ignored: gemini_cli_version \(/);
    for (const n of ['gemini_debug', 'workflow_name']) expect(r.notes.warnings[0]).toContain(n);
  });

  it('our own input wins over its default only: gemini_model replaces model when model is left at gemini-2.5-pro', () => {
    expect(read({ model: 'gemini-2.5-pro', gemini_model: 'gemini-2.5-flash' }).settings.model).toBe('gemini-2.5-flash');
    const both = read({ model: 'gemini-3-pro', gemini_model: 'gemini-2.5-flash' });
    expect(both.ok).toBe(false);
    expect(!both.ok && both.errors.map((e) => e.message)).toEqual([
      "inputs 'model' and 'gemini_model' disagree: set only 'model'",
    ]);
  });

  it('refuses Gemini Code Assist, and a Workload Identity provider with no credentials file, saying what to do', () => {
    const gca = read({ gemini_api_key: 'AIza-0000-0000', use_gemini_code_assist: 'true' });
    expect(!gca.ok && gca.errors[0].message).toMatch(
      /^input 'use_gemini_code_assist' \(run-gemini-cli's\) is set: agent-action cannot use Gemini Code Assist/,
    );
    expect(read({ gemini_api_key: 'AIza-0000-0000', use_gemini_code_assist: 'false' }).ok).toBe(true);
    const wif = read({
      gcp_workload_identity_provider: 'projects/1/locations/global/workloadIdentityPools/p/providers/gh',
    });
    expect(!wif.ok && wif.errors[0].message).toContain('add it as a step before this one');
    // After google-github-actions/auth ran, the provider is only named as unused.
    const after = read(
      { gcp_workload_identity_provider: 'projects/1/x', use_vertex_ai: 'true', gcp_project_id: 'p' },
      { GOOGLE_APPLICATION_CREDENTIALS: credentialsFile(externalAccount()) },
    );
    expect(after.ok).toBe(true);
    expect(after.notes.warnings[0]).toContain('gcp_workload_identity_provider (google-github-actions/auth already ran');
  });

  it('an input that is neither ours nor theirs but close to ours fails with "did you mean"', () => {
    const r = read({ 'gemini-api-key': 'AIza-0000-0000', max_turns: '5', 'gemini-apikey': 'x' });
    expect(!r.ok && r.errors.map((e) => [e.input, e.message])).toEqual([
      ['max_turns', "input 'max_turns' is not an input of agent-action: did you mean 'max-turns'?"],
      ['gemini-apikey', "input 'gemini-apikey' is not an input of agent-action: did you mean 'gemini-api-key'?"],
    ]);
    expect(closestInput('colour', ['model', 'trigger'])).toBeUndefined();
  });
});

describe("the step's environment", () => {
  it('GEMINI_API_KEY, then GOOGLE_API_KEY, is the key when no input gives one; an input wins', () => {
    expect(
      read({}, { GEMINI_API_KEY: 'AIza-env-gemini-01', GOOGLE_API_KEY: 'AIza-env-google-02' }).settings.geminiApiKey,
    ).toBe('AIza-env-gemini-01');
    const google = read({}, { GOOGLE_API_KEY: 'AIza-env-google-02' });
    expect([google.settings.geminiApiKey, google.masked.includes('AIza-env-google-02')]).toEqual([
      'AIza-env-google-02',
      true,
    ]);
    expect(
      read({ 'gemini-api-key': 'AIza-input-0003' }, { GEMINI_API_KEY: 'AIza-env-gemini-01' }).settings.geminiApiKey,
    ).toBe('AIza-input-0003');
  });

  it('GOOGLE_GENAI_USE_VERTEXAI with a key is express mode; without one, project and location from the environment', () => {
    expect(
      read({}, { GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_API_KEY: 'AQ.vertex-key-0004' }).settings.vertex,
    ).toEqual({ auth: 'api-key' });
    const adc = read(
      {},
      { GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_CLOUD_PROJECT: 'proj', GOOGLE_CLOUD_LOCATION: 'europe-west4' },
    );
    expect(adc.settings.vertex).toEqual({ auth: 'adc', project: 'proj', location: 'europe-west4' });
    expect(read({ use_vertex_ai: 'true', gcp_project_id: 'p2' }).settings.vertex).toEqual({
      auth: 'adc',
      project: 'p2',
      location: 'global',
    });
    const noProject = read({ 'use-vertex-ai': 'true' });
    expect(!noProject.ok && noProject.errors[0].message).toMatch(/^input 'google-cloud-project' is empty/);
  });

  it('a service-account key file: its secrets masked line by line, its project the fallback, sessions signed from its key', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const file = credentialsFile({
      type: 'service_account',
      project_id: 'key-project',
      private_key_id: 'kid-0123456789',
      private_key: pem,
      client_email: 'agent@key-project.iam.gserviceaccount.com',
      token_uri: 'https://oauth2.googleapis.com/token',
    });
    const r = read({ 'use-vertex-ai': 'true' }, { GOOGLE_APPLICATION_CREDENTIALS: file });
    expect(r.ok).toBe(true);
    expect(r.settings.vertex).toMatchObject({ auth: 'adc', project: 'key-project', location: 'global' });
    // Bug: the key whole is masked, but the file read as text shows it JSON-escaped, line by line.
    const lines = pem.split('\n').filter((l) => l && !l.startsWith('-----'));
    for (const l of lines) expect(r.masked).toContain(l);
    expect(r.secrets).toContain('kid-0123456789');
    expect(r.settings.sessionKey).toBe(pem);
    // Google's own endpoint needs no redirect.
    expect(r.settings.vertex).not.toHaveProperty('tokenUri');
  });

  it("an external_account file: the runner's request token in its headers is a secret", () => {
    const parsed = parseGoogleCredentials(JSON.stringify(externalAccount()));
    expect('error' in parsed ? parsed.error : parsed.secrets).toEqual([
      'Bearer request-token-0005',
      'request-token-0005',
    ]);
    expect(parseGoogleCredentials('{"type":"oauth"}')).toEqual({
      error:
        '"type" is "oauth": expected one of service_account, external_account, authorized_user, impersonated_service_account',
    });
    const r = read(
      { 'use-vertex-ai': 'true', 'google-cloud-project': 'p' },
      { GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent/gha-creds.json' },
    );
    expect(!r.ok && r.errors[0]).toMatchObject({ input: 'GOOGLE_APPLICATION_CREDENTIALS', source: 'runner' });
  });
});

function externalAccount() {
  return {
    type: 'external_account',
    audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/gh',
    subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    token_url: 'https://sts.googleapis.com/v1/token',
    credential_source: {
      url: 'https://oidc.example/token?audience=x',
      headers: { Authorization: 'Bearer request-token-0005' },
      format: { type: 'json', subject_token_field_name: 'value' },
    },
  };
}

function credentialsFile(content: unknown): string {
  const path = join(makeTempDir('auth-inputs-'), 'gha-creds-1.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('what the credentials file leaves behind', () => {
  it('sandboxed processes get neither the file nor the variables naming it', () => {
    const env = {
      GOOGLE_APPLICATION_CREDENTIALS: '/w/gha-creds-1.json',
      GOOGLE_GHA_CREDS_PATH: '/w/gha-creds-1.json',
      CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: '/w/gha-creds-1.json',
      GOOGLE_CLOUD_PROJECT: 'p',
    };
    expect(runnerPathsOf(env)).toEqual(['/w/gha-creds-1.json']);
    expect(withoutRunnerVariables(env)).toEqual({ GOOGLE_CLOUD_PROJECT: 'p' });
  });

  it('a run with no lasting secret (WIF, no session-key) cannot sign a session, rather than sign with a known key', () => {
    expect(() => sessionKeyOf({ sessionKey: undefined, geminiApiKey: '' })).toThrow(/^input 'session-key' is empty/);
    expect(sessionKeyOf({ sessionKey: 'k'.repeat(16), geminiApiKey: '' }).id).toMatch(/^[0-9a-f]{16}$/);
  });
});
