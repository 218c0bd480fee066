/**
 * A fake Microsoft Entra ID token endpoint and Azure Key Vault on one 127.0.0.1 server:
 * - `POST /{tenant}/oauth2/v2.0/token`, the client credentials grant
 *   (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow): a form with
 *   grant_type=client_credentials, client_id, client_secret and scope=https://vault.azure.net/.default; answers
 *   `{ token_type, expires_in, access_token }`, or Entra's `{ error, error_description }` (401 invalid_client);
 * - `GET /secrets/{name}[/{version}]?api-version=7.4` (https://learn.microsoft.com/rest/api/keyvault/secrets/get-secret/get-secret)
 *   with `Authorization: Bearer <a token this fake issued>`; answers `{ value, id, attributes }`, or Key Vault's
 *   `{ error: { code, message } }` (401 Unauthorized, 404 SecretNotFound).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AzureTokenRequest {
  tenant: string;
  form: Record<string, string>;
  contentType: string;
}

export interface AzureSecretRequest {
  path: string;
  apiVersion: string | null;
  authorization: string;
  /** the bearer token is one this fake issued */
  tokenIssued: boolean;
}

export interface FakeAzureKeyVault {
  /** http://127.0.0.1:<port>: both azure_authority_host and azure_vault_url */
  origin: string;
  tokenRequests: AzureTokenRequest[];
  secretRequests: AzureSecretRequest[];
  /** secret name -> value */
  secrets: Map<string, string>;
  /** tokens issued so far */
  issued: string[];
  close(): Promise<void>;
}

export const AZURE_SCOPE = 'https://vault.azure.net/.default';

/** `app`: the one application registration the fake knows. */
export async function startFakeAzureKeyVault(app: { tenant: string; clientId: string; clientSecret: string }): Promise<FakeAzureKeyVault> {
  const state = { tokenRequests: [] as AzureTokenRequest[], secretRequests: [] as AzureSecretRequest[], secrets: new Map<string, string>(), issued: [] as string[] };
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        response.end(JSON.stringify(body));
      };
      const url = new URL(request.url ?? '/', 'http://fake');
      const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
      if (token && request.method === 'POST') {
        const form = Object.fromEntries(new URLSearchParams(text));
        state.tokenRequests.push({ tenant: decodeURIComponent(token[1]!), form, contentType: String(request.headers['content-type']) });
        if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
          return send(400, { error: 'invalid_request', error_description: 'AADSTS900144: The request body must contain the following parameter: grant_type.' });
        }
        if (form.grant_type !== 'client_credentials' || form.scope !== AZURE_SCOPE) {
          return send(400, { error: 'invalid_request', error_description: 'AADSTS70011: The provided value for the input parameter scope is not valid.' });
        }
        if (decodeURIComponent(token[1]!) !== app.tenant) {
          return send(400, { error: 'invalid_request', error_description: `AADSTS90002: Tenant '${token[1]}' not found.` });
        }
        if (form.client_id !== app.clientId || form.client_secret !== app.clientSecret) {
          return send(401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value.' });
        }
        const issued = `fake-entra-${randomBytes(12).toString('hex')}`;
        state.issued.push(issued);
        return send(200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: issued });
      }
      const secret = /^\/secrets\/([^/]+)(?:\/([^/]+))?$/.exec(url.pathname);
      if (secret && request.method === 'GET') {
        const authorization = String(request.headers.authorization ?? '');
        const bearer = authorization.startsWith('Bearer ') ? authorization.slice(7) : '';
        const tokenIssued = state.issued.includes(bearer);
        state.secretRequests.push({ path: url.pathname, apiVersion: url.searchParams.get('api-version'), authorization, tokenIssued });
        if (!tokenIssued) {
          return send(401, { error: { code: 'Unauthorized', message: 'AKV10000: Request is missing a Bearer or PoP token.' } }, {
            'www-authenticate': `Bearer authorization="${'https://login.microsoftonline.com'}/${app.tenant}", resource="https://vault.azure.net"`,
          });
        }
        if (url.searchParams.get('api-version') !== '7.4') {
          return send(400, { error: { code: 'BadParameter', message: 'The specified version is not supported.' } });
        }
        const name = decodeURIComponent(secret[1]!);
        const value = state.secrets.get(name);
        if (value === undefined) {
          return send(404, { error: { code: 'SecretNotFound', message: `A secret with (name/id) ${name} was not found in this key vault.` } });
        }
        return send(200, {
          value,
          id: `https://fake.vault.azure.net/secrets/${name}/4387e9f3d6e14c459867679a90fd0f79`,
          attributes: { enabled: true, created: 1493938410, updated: 1493938410, recoveryLevel: 'Recoverable+Purgeable' },
        });
      }
      return send(404, { error: { code: 'NotFound', message: `no route ${request.method} ${url.pathname}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    ...state,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
