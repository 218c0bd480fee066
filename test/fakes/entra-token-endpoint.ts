/**
 * A fake Microsoft Entra ID token endpoint on 127.0.0.1: `POST /{tenant}/oauth2/v2.0/token`, the client credentials
 * grant (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow). It checks the form
 * (grant_type=client_credentials, client_id, client_secret, scope) and answers `{token_type, expires_in,
 * ext_expires_in, access_token}`, or Entra's `{error, error_description, error_codes}`: 400 for an unknown tenant or
 * scope, 401 invalid_client for a wrong client or secret. `expiresIn` sets the lifetime of the tokens it issues.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EntraApp {
  tenant: string;
  clientId: string;
  clientSecret: string;
}

export interface FakeEntra {
  /** the authority: http://127.0.0.1:<port> */
  origin: string;
  /** every token request's form */
  requests: Array<Record<string, string>>;
  issued: string[];
  /** seconds; 3599 unless a test changes it */
  expiresIn: number;
  close(): Promise<void>;
}

export async function startFakeEntra(app: EntraApp, scope: string): Promise<FakeEntra> {
  const state = { requests: [] as Array<Record<string, string>>, issued: [] as string[], expiresIn: 3599 };
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify(body));
      };
      const error = (status: number, code: string, description: string) => send(status, { error: code, error_description: description, error_codes: [Number(description.slice(5, 11))] });
      const match = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(new URL(request.url ?? '/', 'http://fake').pathname);
      if (!match || request.method !== 'POST') return send(404, { error: 'not_found' });
      const form = Object.fromEntries(new URLSearchParams(text));
      state.requests.push(form);
      if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
        return error(400, 'invalid_request', 'AADSTS900144: The request body must contain the following parameter: grant_type.');
      }
      if (decodeURIComponent(match[1]!) !== app.tenant) return error(400, 'invalid_request', `AADSTS900023: Specified tenant identifier '${match[1]}' is neither a valid DNS name, nor a valid external domain.`);
      if (form.grant_type !== 'client_credentials') return error(400, 'unsupported_grant_type', 'AADSTS70003: The app requested an unsupported grant type.');
      if (form.scope !== scope) return error(400, 'invalid_scope', `AADSTS70011: The provided request must include a 'scope' input parameter. The provided value for the input parameter 'scope' is not valid.`);
      if (form.client_id !== app.clientId) return error(400, 'unauthorized_client', `AADSTS700016: Application with identifier '${form.client_id}' was not found in the directory.`);
      if (form.client_secret !== app.clientSecret) return error(401, 'invalid_client', 'AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.');
      const token = `eyJ0eXAiOiJKV1Qi.fake-entra.${randomBytes(12).toString('hex')}`;
      state.issued.push(token);
      return send(200, { token_type: 'Bearer', expires_in: state.expiresIn, ext_expires_in: state.expiresIn, access_token: token });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeEntra = {
    origin: `http://127.0.0.1:${port}`,
    requests: state.requests,
    issued: state.issued,
    get expiresIn() {
      return state.expiresIn;
    },
    set expiresIn(value: number) {
      state.expiresIn = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
