/**
 * How the bundled action reaches Gemini (issue 28): a run-gemini-cli `with:` block as the runner
 * passes it (INPUT_GEMINI_API_KEY...), Vertex AI with Application Default Credentials from the file
 * google-github-actions/auth leaves in the workspace (a service-account key: the real
 * google-auth-library signs a JWT and posts it to the key's token_uri, the loopback fake token
 * endpoint; an external_account file: the runner's ID token exchanged at a fake STS), a Vertex API
 * key (express mode), a misspelt input, and the `error` output. The real @google/genai SDK talks to
 * the fake Gemini, which answers Vertex's path shapes as Vertex does. Build first.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { BUNDLE, issueCommentPayload } from '../support/e2e-runner.js';
import { call, reply, text, type FakeReply } from '../support/fake-gemini.js';
import { startFakeGoogleAuth, type FakeGoogleAuth } from '../support/fake-google-auth.js';
import { functionResponses, logOf } from './approval-support.js';

let world: ActionWorld | undefined;
let auth: FakeGoogleAuth | undefined;
const dirs: string[] = [];
beforeAll(() => {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first`);
});
afterEach(async () => {
  await world?.close();
  await auth?.close();
  world = auth = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A maintainer's question on issue 1, in a world whose model answers with `script`. */
async function questionWorld(script: FakeReply[], body = '/agent what does src/a.js export?') {
  world = await startActionWorld({
    files: { 'src/a.js': 'export const a = 1;\n' },
    event: { name: 'issue_comment' },
    script,
  });
  const { ws, gh } = world;
  dirs.push(ws.dir, ws.origin);
  gh.addIssue({ number: 1, title: 'What is a?' });
  const comment = gh.addComment(1, body, { login: 'maintainer' });
  return { world, payload: issueCommentPayload(1, { id: comment.id, body: comment.body }) };
}

const MODEL_PATH = 'publishers/google/models/gemini-2.5-pro:streamGenerateContent';

describe("run-gemini-cli's inputs through the bundle", () => {
  it('a with: block under its names runs: the key and model arrive, one notice, one warning, error empty', async () => {
    const { world: w, payload } = await questionWorld([reply([text('It exports a = 1.')])]);
    // As the runner passes `with: { gemini_api_key: ..., gemini_model: ..., ... }`: INPUT_GEMINI_API_KEY...
    const r = await w.run({
      eventName: 'issue_comment',
      payload,
      inputs: {
        gemini_api_key: 'AIza-run-gemini-cli-0001',
        gemini_model: 'gemini-2.5-flash',
        gemini_cli_version: 'latest',
        gemini_debug: 'true',
        workflow_name: 'gemini-invoke',
      },
    });
    dirs.push(r.env.RUNNER_TEMP);
    expect(r.env.INPUT_GEMINI_API_KEY).toBe('AIza-run-gemini-cli-0001');
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(r.outputs.error).toBe('');
    expect(w.gemini.requests.map((q) => [q.path, q.apiKey])).toEqual([
      ['/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'AIza-run-gemini-cli-0001'],
    ]);
    const notices = r.annotations.filter((a) => a.level === 'notice').map((a) => a.message);
    expect(notices).toContain(
      "agent-action: run-gemini-cli's inputs read as agent-action's: gemini_api_key as gemini-api-key, gemini_model as model",
    );
    const warnings = r.annotations.filter((a) => a.level === 'warning' && a.message.includes('does not use'));
    expect(warnings).toHaveLength(1);
    for (const n of ['gemini_cli_version', 'gemini_debug', 'workflow_name']) expect(warnings[0].message).toContain(n);
  });

  it("GEMINI_API_KEY in the step's env is the key, and a command the model runs does not see it", async () => {
    const { world: w, payload } = await questionWorld([
      reply([call('run_shell_command', { command: 'env', description: 'look around' })]),
      reply([text('Looked.')]),
    ]);
    const r = await w.run({
      eventName: 'issue_comment',
      payload,
      inputs: { 'approval-mode': 'yolo' },
      env: { GEMINI_API_KEY: 'AIza-step-env-key-0002' },
    });
    dirs.push(r.env.RUNNER_TEMP);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(w.gemini.requests.map((q) => q.apiKey)).toEqual(['AIza-step-env-key-0002', 'AIza-step-env-key-0002']);
    const printed = JSON.stringify(functionResponses(w.gemini.requests[1].body));
    expect(printed).toContain('PATH=');
    expect(printed).not.toContain('AIza-step-env-key-0002');
    expect(printed).not.toContain('GEMINI_API_KEY');
  });

  it('a misspelt input fails before anything runs: "did you mean", as an annotation and in the error output', async () => {
    const { world: w, payload } = await questionWorld([]);
    const r = await w.run({
      eventName: 'issue_comment',
      payload,
      inputs: { 'gemini-api-key': 'AIza-0000-0000-0003', max_turns: '5' },
    });
    dirs.push(r.env.RUNNER_TEMP);
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('failed');
    expect(r.outputs.error).toBe("input 'max_turns' is not an input of agent-action: did you mean 'max-turns'?");
    expect(r.annotations.filter((a) => a.level === 'error').map((a) => a.properties.title)).toEqual([
      'input max_turns',
    ]);
    expect(w.gemini.requests).toHaveLength(0);
  });
});

describe('Vertex AI through the bundle', () => {
  it('a service-account key file: a JWT signed with the key at its token_uri, the Bearer token on the Vertex path', async () => {
    auth = await startFakeGoogleAuth();
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    auth.trust(publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { world: w, payload } = await questionWorld([
      reply([call('run_shell_command', { command: 'cat gha-creds-e2e.json; echo END', description: 'read' })]),
      reply([text('It exports a = 1.')]),
    ]);
    // Where google-github-actions/auth writes it: the workspace.
    const file = join(w.ws.dir, 'gha-creds-e2e.json');
    writeFileSync(
      file,
      JSON.stringify({
        type: 'service_account',
        project_id: 'key-project',
        private_key_id: 'e2e-key-id-0123456789',
        private_key: pem,
        client_email: 'agent@key-project.iam.gserviceaccount.com',
        token_uri: auth.tokenUri,
      }),
    );
    const r = await w.run({
      eventName: 'issue_comment',
      payload,
      inputs: { use_vertex_ai: 'true', gcp_location: 'us-central1', 'approval-mode': 'yolo' },
      env: { GOOGLE_APPLICATION_CREDENTIALS: file, GOOGLE_CLOUD_PROJECT: 'my-project' },
    });
    dirs.push(r.env.RUNNER_TEMP);
    expect(r.outputs.status, logOf(r)).toBe('success');
    // The library signed a JWT with the key the test made and posted it to the file's token_uri.
    expect(auth.assertions).toHaveLength(1);
    expect(auth.assertions[0]).toMatchObject({
      verified: true,
      header: { alg: 'RS256' },
      claims: {
        iss: 'agent@key-project.iam.gserviceaccount.com',
        scope: 'https://www.googleapis.com/auth/cloud-platform',
        aud: 'https://oauth2.googleapis.com/token',
      },
    });
    // The token it got came to Vertex's project path, with no API key.
    expect(w.gemini.requests.map((q) => [q.path, q.authorization, q.apiKey])).toEqual([
      [`/v1beta1/projects/my-project/locations/us-central1/${MODEL_PATH}`, `Bearer ${auth.issued[0]}`, undefined],
      [`/v1beta1/projects/my-project/locations/us-central1/${MODEL_PATH}`, `Bearer ${auth.issued[0]}`, undefined],
    ]);
    // The sandboxed command found the file empty; no line of the key reached the model or the log.
    const printed = JSON.stringify(functionResponses(w.gemini.requests[1].body));
    expect(printed).toContain('END');
    expect(printed).not.toContain('service_account');
    const keyLines = pem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'));
    // The runner consumes ::add-mask:: lines (and hides the value from then on); nothing else may show one.
    const masks = r.stdout.split('\n').filter((l) => l.startsWith('::add-mask::'));
    const log = r.stdout
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');
    for (const l of keyLines) {
      expect(masks).toContain(`::add-mask::${l}`);
      expect(JSON.stringify(w.gemini.requests.map((q) => q.body))).not.toContain(l);
      expect(log).not.toContain(l);
    }
  });

  it("an external_account file (Workload Identity Federation): the runner's ID token exchanged at STS, its token to Vertex", async () => {
    auth = await startFakeGoogleAuth();
    const { world: w, payload } = await questionWorld([reply([text('It exports a = 1.')])]);
    const file = join(w.ws.dir, 'gha-creds-wif.json');
    writeFileSync(
      file,
      JSON.stringify({
        type: 'external_account',
        audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/github/providers/repo',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        token_url: auth.stsUrl,
        credential_source: {
          url: auth.oidcUrl,
          headers: { Authorization: `Bearer ${auth.requestToken}` },
          format: { type: 'json', subject_token_field_name: 'value' },
        },
      }),
    );
    const r = await w.run({
      eventName: 'issue_comment',
      payload,
      inputs: { 'use-vertex-ai': 'true', 'google-cloud-project': 'wif-project', 'session-key': 'e2e-session-key-0004' },
      env: { GOOGLE_APPLICATION_CREDENTIALS: file, ACTIONS_ID_TOKEN_REQUEST_TOKEN: auth.requestToken },
    });
    dirs.push(r.env.RUNNER_TEMP);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(auth.exchanges).toHaveLength(1);
    expect(auth.exchanges[0]).toMatchObject({
      audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/github/providers/repo',
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    });
    expect(w.gemini.requests.map((q) => [q.path, q.authorization])).toEqual([
      [`/v1beta1/projects/wif-project/locations/global/${MODEL_PATH}`, `Bearer ${auth.issued[0]}`],
    ]);
  });

  it('a Vertex API key is express mode: the publisher path, the key, no project', async () => {
    const { world: w, payload } = await questionWorld([reply([text('It exports a = 1.')])]);
    const r = await w.run({
      eventName: 'issue_comment',
      payload,
      inputs: { use_vertex_ai: 'true', google_api_key: 'AQ.vertex-express-key-0005' },
    });
    dirs.push(r.env.RUNNER_TEMP);
    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(w.gemini.requests.map((q) => [q.path, q.apiKey, q.vertex])).toEqual([
      [`/v1beta1/${MODEL_PATH}`, 'AQ.vertex-express-key-0005', {}],
    ]);
  });

  it('Vertex refusing the credentials fails the run with the cause in the error output', async () => {
    const { world: w, payload } = await questionWorld([]);
    const file = join(w.ws.dir, 'gha-creds-bad.json');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    auth = await startFakeGoogleAuth(); // trusts no key: the token endpoint refuses the JWT
    writeFileSync(
      file,
      JSON.stringify({
        type: 'service_account',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: 'agent@p.iam.gserviceaccount.com',
        token_uri: auth.tokenUri,
      }),
    );
    const r = await w.run({
      eventName: 'issue_comment',
      payload,
      inputs: { 'use-vertex-ai': 'true', 'google-cloud-project': 'p', 'session-key': 'e2e-session-key-0006' },
      env: { GOOGLE_APPLICATION_CREDENTIALS: file },
    });
    dirs.push(r.env.RUNNER_TEMP);
    expect(r.outputs.status).toBe('failed');
    expect(r.outputs.error).not.toBe('');
    expect(r.outputs.error).not.toContain('\n');
    expect(r.outputs.error).toMatch(/invalid_grant|Invalid JWT Signature/);
    expect(w.gemini.requests).toHaveLength(0);
  });
});
