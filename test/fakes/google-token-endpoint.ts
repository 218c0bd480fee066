/**
 * A fake Google OAuth token endpoint on 127.0.0.1 for the service account JWT bearer grant
 * (https://developers.google.com/identity/protocols/oauth2/service-account#httprest). It checks the assertion
 * like Google does: RS256 signature against the account's public key, iss = client_email, aud = token_uri,
 * the cloud-platform scope, a one-hour lifetime. It answers `{ access_token, expires_in, token_type }`, or an
 * `invalid_grant` error when the assertion is wrong.
 */
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { importSPKI, jwtVerify, decodeProtectedHeader } from 'jose';

export interface FakeTokenEndpoint {
  /** http://127.0.0.1:<port>/token */
  tokenUri: string;
  /** the service account key file (JSON object) whose token_uri points here */
  serviceAccount: Record<string, string>;
  /** a key file for the same client_email with another private key (unknown to the endpoint) */
  otherKey: Record<string, string>;
  /** tokens issued so far, in order */
  issued: string[];
  /** assertions rejected so far */
  rejected: number;
  /** expires_in of the next tokens, in seconds */
  expiresIn: number;
  /** delay before answering, in ms */
  delayMs: number;
  /** the next this-many requests are answered 503 */
  failNext: number;
  close(): Promise<void>;
}

const CLIENT_EMAIL = 'gateway-test@test-project.iam.gserviceaccount.com';

function keyPair() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
}

/** `now` is the endpoint's clock (ms), to check the assertion's iat/exp against a test's injected clock. */
export async function startFakeTokenEndpoint(options: { now?: () => number } = {}): Promise<FakeTokenEndpoint> {
  const now = options.now ?? Date.now;
  const good = keyPair();
  const other = keyPair();
  const publicKey = await importSPKI(good.publicKey, 'RS256');
  const state = { issued: [] as string[], rejected: 0, expiresIn: 3600, delayMs: 0, failNext: 0 };
  let tokenUri = '';

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', async () => {
      const reply = (status: number, body: unknown) => {
        setTimeout(() => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        }, state.delayMs);
      };
      if (state.failNext > 0) {
        state.failNext -= 1;
        return reply(503, { error: 'backend_error', error_description: 'Backend Error' });
      }
      const form = new URLSearchParams(raw);
      if (req.method !== 'POST' || req.url !== '/token' || !String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
        return reply(400, { error: 'invalid_request', error_description: 'POST a form to /token' });
      }
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        return reply(400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
      }
      try {
        const assertion = form.get('assertion') ?? '';
        const { payload } = await jwtVerify(assertion, publicKey, {
          issuer: CLIENT_EMAIL,
          audience: tokenUri,
          algorithms: ['RS256'],
          currentDate: new Date(now()),
        });
        if (payload.scope !== 'https://www.googleapis.com/auth/cloud-platform') throw new Error('scope');
        if (typeof payload.iat !== 'number' || payload.exp !== payload.iat + 3600) throw new Error('lifetime');
        if (decodeProtectedHeader(assertion).kid !== 'key-1') throw new Error('kid');
      } catch {
        state.rejected += 1;
        return reply(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      }
      const token = `ya29.fake-${state.issued.length + 1}`;
      state.issued.push(token);
      reply(200, { access_token: token, expires_in: state.expiresIn, token_type: 'Bearer' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  tokenUri = `http://127.0.0.1:${port}/token`;
  const account = (privateKey: string) => ({
    type: 'service_account',
    project_id: 'test-project',
    private_key_id: 'key-1',
    private_key: privateKey,
    client_email: CLIENT_EMAIL,
    client_id: '1234567890',
    token_uri: tokenUri,
  });
  return Object.assign(state, {
    tokenUri,
    serviceAccount: account(good.privateKey),
    otherKey: account(other.privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
