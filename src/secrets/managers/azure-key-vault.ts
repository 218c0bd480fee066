/**
 * Azure Key Vault with an Entra application (client credentials):
 * 1. a token from `POST {authority}/{tenant}/oauth2/v2.0/token` with the `https://vault.azure.net/.default` scope
 *    (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow#get-a-token), held
 *    until shortly before it expires;
 * 2. `GET {vault_url}/secrets/{name}[/{version}]?api-version=7.4` with `Authorization: Bearer <token>`
 *    (https://learn.microsoft.com/rest/api/keyvault/secrets/get-secret/get-secret), answering `{ value }`.
 * Errors: the token endpoint answers `{ error, error_description }`, Key Vault `{ error: { code, message } }`.
 */
import { managerRefused, refusalKindOf, secretUnavailable } from './errors.ts';
import { jsonObject } from './http.ts';
import type { ManagerCall } from './manager-call.ts';
import { tokenKey } from './token-cache.ts';
import type { AzureEntraAuth, RawSecret } from './types.ts';

const MANAGER = 'Azure Key Vault';
const ENTRA = 'Microsoft Entra ID';
export const DEFAULT_AUTHORITY_HOST = 'https://login.microsoftonline.com';
const SCOPE = 'https://vault.azure.net/.default';
const API_VERSION = '7.4';

const trimmed = (url: string) => url.replace(/\/+$/, '');

async function accessToken(auth: AzureEntraAuth, call: ManagerCall): Promise<{ token: string; key: string }> {
  const authority = trimmed(auth.azure_authority_host ?? DEFAULT_AUTHORITY_HOST);
  const key = tokenKey('azure', authority, auth.azure_entra_tenant_id, auth.azure_entra_client_id, auth.azure_entra_client_secret);
  const cached = call.tokens.get(key);
  if (cached) return { token: cached, key };
  const answer = await call.http.send(
    {
      method: 'POST',
      url: `${authority}/${encodeURIComponent(auth.azure_entra_tenant_id)}/oauth2/v2.0/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: auth.azure_entra_client_id,
        client_secret: auth.azure_entra_client_secret,
        scope: SCOPE,
      }).toString(),
    },
    { label: call.label, manager: ENTRA, field: auth.azure_authority_host === undefined ? 'auth_config.azure_entra_tenant_id' : 'auth_config.azure_authority_host' },
  );
  const body = jsonObject(answer.text);
  if (answer.status !== 200) {
    const detail = [body?.error, body?.error_description].filter((part) => typeof part === 'string').join(': ');
    // a wrong tenant, client or secret is a 400 or a 401 from Entra: either way the credentials are refused
    throw managerRefused(call.label, ENTRA, { status: answer.status, kind: answer.status < 500 ? 'credentials' : 'other', detail });
  }
  if (typeof body?.access_token !== 'string') throw secretUnavailable(call.label, `${ENTRA} answered without an access_token.`);
  const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : Number(body.expires_in) * 1000;
  if (Number.isFinite(lifetimeMs)) call.tokens.set(key, body.access_token, lifetimeMs);
  return { token: body.access_token, key };
}

export async function fetchAzureSecret(auth: AzureEntraAuth, secretPath: string, call: ManagerCall): Promise<RawSecret> {
  const { token, key } = await accessToken(auth, call);
  const path = secretPath.split('/').map(encodeURIComponent).join('/');
  const answer = await call.http.send(
    { method: 'GET', url: `${trimmed(auth.azure_vault_url)}/secrets/${path}?api-version=${API_VERSION}`, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
    { label: call.label, manager: MANAGER, field: 'auth_config.azure_vault_url' },
  );
  const body = jsonObject(answer.text);
  if (answer.status !== 200) {
    // a revoked or expired token: the next fetch asks for a new one
    if (answer.status === 401) call.tokens.delete(key);
    const error = body?.error as Record<string, unknown> | undefined;
    const detail = [error?.code, error?.message].filter((part) => typeof part === 'string').join(': ');
    throw managerRefused(call.label, MANAGER, { status: answer.status, kind: refusalKindOf(answer.status), detail });
  }
  if (typeof body?.value !== 'string') throw secretUnavailable(call.label, `${MANAGER} answered without a value.`);
  return body.value;
}
