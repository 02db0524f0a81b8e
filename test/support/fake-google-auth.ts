/**
 * Google's token endpoints on 127.0.0.1, for Vertex AI tests with Application Default Credentials:
 * the OAuth token endpoint a service-account key's `token_uri` names (a JWT assertion signed with
 * the key, RS256, checked here with the public key the test trusts), and the two Workload Identity
 * Federation needs as google-github-actions/auth's `external_account` file names them: the
 * runner's ID-token service (`credential_source.url`, answered only with the request token the
 * runner gave) and Security Token Service (`token_url`, exchanging that ID token). Each issues a
 * fresh access token and records what it was sent.
 *
 *   const auth = await startFakeGoogleAuth();
 *   auth.trust(publicKeyPem);                 // the key the test generated with node:crypto
 *   ...{ token_uri: auth.tokenUri, ... }      // in the key file the action reads
 *   auth.assertions[0].claims.scope           // what the library signed
 *   auth.issued                               // the access tokens handed out, in order
 */
import { createPublicKey, createVerify, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

interface SignedAssertion {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** The RS256 signature verifies with a trusted key. */
  verified: boolean;
}

export interface FakeGoogleAuth {
  /** A key file's `token_uri`. */
  tokenUri: string;
  /** An external_account file's `token_url`. */
  stsUrl: string;
  /** An external_account file's `credential_source.url` (the runner's ACTIONS_ID_TOKEN_REQUEST_URL). */
  oidcUrl: string;
  trust(publicKeyPem: string): void;
  /** The runner's ID-token request token: the ID-token service answers only a request carrying it. */
  requestToken: string;
  assertions: SignedAssertion[];
  /** STS exchanges: the form fields each sent. */
  exchanges: Array<Record<string, string>>;
  issued: string[];
  close(): Promise<void>;
}

function decodeSegment(s: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A compact JWS as its header and claims, and whether one of `keys` signed it (RS256). */
function readAssertion(jwt: string, keys: readonly KeyObject[]): SignedAssertion {
  const [h, c, sig] = jwt.split('.');
  const header = decodeSegment(h);
  const claims = decodeSegment(c);
  const verified =
    header.alg === 'RS256' &&
    keys.some((k) => createVerify('RSA-SHA256').update(`${h}.${c}`).verify(k, Buffer.from(sig, 'base64url')));
  return { header, claims, verified };
}

export async function startFakeGoogleAuth(): Promise<FakeGoogleAuth> {
  const keys: KeyObject[] = [];
  const requestToken = `runner-request-${randomBytes(12).toString('hex')}`;
  const idTokens = new Set<string>();
  const state = {
    assertions: [] as SignedAssertion[],
    exchanges: [] as Array<Record<string, string>>,
    issued: [] as string[],
  };
  const issue = (res: ServerResponse) => {
    const token = `ya29.fake-${randomBytes(16).toString('hex')}`;
    state.issued.push(token);
    send(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/oidc') {
      if (req.headers.authorization !== `Bearer ${requestToken}`)
        return send(res, 401, { message: 'bad request token' });
      const idToken = `eyJ.fake-oidc-${randomBytes(12).toString('hex')}`;
      idTokens.add(idToken);
      return send(res, 200, { count: idToken.length, value: idToken });
    }
    const form = new URLSearchParams(await readBody(req));
    if (req.method === 'POST' && url.pathname === '/token' && form.get('grant_type') === JWT_BEARER) {
      const a = readAssertion(form.get('assertion') ?? '..', keys);
      state.assertions.push(a);
      if (!a.verified) return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      return issue(res);
    }
    if (req.method === 'POST' && url.pathname === '/sts' && form.get('grant_type') === TOKEN_EXCHANGE) {
      const fields = Object.fromEntries(form);
      state.exchanges.push(fields);
      if (!idTokens.has(fields.subject_token ?? '')) return send(res, 400, { error: 'invalid_grant' });
      const token = `ya29.fake-sts-${randomBytes(16).toString('hex')}`;
      state.issued.push(token);
      return send(res, 200, {
        access_token: token,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
        expires_in: 3599,
      });
    }
    send(res, 404, { error: `fake-google-auth: no route ${req.method} ${url.pathname}` });
  };
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    tokenUri: `${base}/token`,
    stsUrl: `${base}/sts`,
    oidcUrl: `${base}/oidc?audience=x`,
    requestToken,
    trust: (pem) => void keys.push(createPublicKey(pem)),
    ...state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
