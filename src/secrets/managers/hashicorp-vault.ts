/**
 * HashiCorp Vault, KV version 2 (https://developer.hashicorp.com/vault/api-docs/secret/kv/kv-v2#read-secret-version):
 * `GET {vault_addr}/v1/{mount}/data/{path}` with `X-Vault-Token` (and `X-Vault-Namespace` on Vault Enterprise),
 * answering `{ data: { data: {...}, metadata } }`. secret_path is `<mount>/<path>`: its first segment is the
 * engine's mount. The token is the reference's own, or one from an AppRole login
 * (https://developer.hashicorp.com/vault/api-docs/auth/approle#login-with-approle): `POST /v1/auth/approle/login`
 * with `{ role_id, secret_id }`, answering `{ auth: { client_token, lease_duration } }`. Errors: `{ errors: [...] }`.
 */
import { managerRefused, refusalKindOf, secretUnavailable } from './errors.ts';
import { jsonObject } from './http.ts';
import type { ManagerCall } from './manager-call.ts';
import { tokenKey } from './token-cache.ts';
import type { RawSecret, VaultAppRoleAuth, VaultTokenAuth } from './types.ts';

const MANAGER = 'HashiCorp Vault';
const FIELD = 'auth_config.vault_addr';

const base = (auth: VaultTokenAuth | VaultAppRoleAuth) => auth.vault_addr.replace(/\/+$/, '');

function namespaceHeader(auth: VaultTokenAuth | VaultAppRoleAuth): Record<string, string> {
  return auth.vault_namespace ? { 'x-vault-namespace': auth.vault_namespace } : {};
}

function errorsOf(text: string): string {
  const errors = jsonObject(text)?.errors;
  return Array.isArray(errors) ? errors.filter((item) => typeof item === 'string').join('; ') : '';
}

/** `secret/team/openai` -> `secret/data/team/openai`, each segment percent-encoded. */
export function kvDataPath(secretPath: string): string {
  const [mount = '', ...rest] = secretPath.split('/').map(encodeURIComponent);
  return `${mount}/data/${rest.join('/')}`;
}

async function appRoleToken(auth: VaultAppRoleAuth, call: ManagerCall): Promise<{ token: string; key: string }> {
  const key = tokenKey('vault-approle', base(auth), auth.vault_namespace ?? '', auth.vault_role_id, auth.vault_secret_id);
  const cached = call.tokens.get(key);
  if (cached) return { token: cached, key };
  const answer = await call.http.send(
    {
      method: 'POST',
      url: `${base(auth)}/v1/auth/approle/login`,
      headers: { 'content-type': 'application/json', ...namespaceHeader(auth) },
      body: JSON.stringify({ role_id: auth.vault_role_id, secret_id: auth.vault_secret_id }),
    },
    { label: call.label, manager: MANAGER, field: FIELD },
  );
  if (answer.status !== 200) {
    // Vault answers a wrong role or secret id with 400 "invalid role or secret ID"
    const kind = answer.status < 500 ? 'credentials' : 'other';
    throw managerRefused(call.label, `${MANAGER} (AppRole login)`, { status: answer.status, kind, detail: errorsOf(answer.text) });
  }
  const granted = jsonObject(answer.text)?.auth as Record<string, unknown> | undefined;
  if (typeof granted?.client_token !== 'string') throw secretUnavailable(call.label, `the ${MANAGER} AppRole login answered without a client_token.`);
  // lease_duration 0 is a token without expiry: it is still held no longer than an hour
  const lease = typeof granted.lease_duration === 'number' && granted.lease_duration > 0 ? granted.lease_duration * 1000 : 3_600_000;
  call.tokens.set(key, granted.client_token, lease);
  return { token: granted.client_token, key };
}

export async function fetchVaultSecret(auth: VaultTokenAuth | VaultAppRoleAuth, secretPath: string, call: ManagerCall): Promise<RawSecret> {
  const login = auth.vault_auth_type === 'approle' ? await appRoleToken(auth, call) : { token: auth.vault_token, key: undefined };
  const answer = await call.http.send(
    {
      method: 'GET',
      url: `${base(auth)}/v1/${kvDataPath(secretPath)}`,
      headers: { 'x-vault-token': login.token, accept: 'application/json', ...namespaceHeader(auth) },
    },
    { label: call.label, manager: MANAGER, field: FIELD },
  );
  if (answer.status !== 200) {
    // a revoked or expired AppRole token: the next fetch logs in again
    if (answer.status === 403 && login.key !== undefined) call.tokens.delete(login.key);
    throw managerRefused(call.label, MANAGER, { status: answer.status, kind: refusalKindOf(answer.status), detail: errorsOf(answer.text) });
  }
  const data = (jsonObject(answer.text)?.data as Record<string, unknown> | undefined)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw secretUnavailable(call.label, `${MANAGER} answered without data.data (is the mount a KV version 2 engine?).`);
  }
  return data as Record<string, unknown>;
}
