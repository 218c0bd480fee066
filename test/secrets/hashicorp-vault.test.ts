/**
 * hashicorp_vault references against a fake Vault (KV version 2, AppRole): the token and namespace headers, the
 * `<mount>/data/<path>` read, AppRole login with its token held across fetches, secret_key over the KV map,
 * refusals turned into clear 502s without the secret, and the Kubernetes method the gateway refuses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeVault, type FakeVault } from '../fakes/vault-upstream.ts';
import { openResolverWorld, rejection, type ResolverWorld } from './resolver-world.ts';

const ROOT_TOKEN = 'hvs.root-token-for-tests';
const ROLE = { roleId: 'db02de05-fa39-4855-059b-67221c5c2f63', secretId: '6a174c20-f6de-a53c-74d2-6018fcceff64' };
const NAMESPACE = 'team-a';
const VALUE = 'sk-vault-0123456789';

describe('HashiCorp Vault', () => {
  let world: ResolverWorld;
  let vault: FakeVault;
  const tokenAuth = (overrides: Record<string, string> = {}) => ({ vault_auth_type: 'token', vault_addr: vault.address, vault_token: ROOT_TOKEN, vault_namespace: NAMESPACE, ...overrides });
  const appRoleAuth = (overrides: Record<string, string> = {}) => ({
    vault_auth_type: 'approle', vault_addr: vault.address, vault_role_id: ROLE.roleId, vault_secret_id: ROLE.secretId, vault_namespace: NAMESPACE, ...overrides,
  });

  before(async () => {
    world = await openResolverWorld();
    vault = await startFakeVault({ rootToken: ROOT_TOKEN, appRole: ROLE, namespace: NAMESPACE });
    vault.secrets.set('secret/team/openai', { api_key: VALUE });
    vault.secrets.set('secret/team/both', { api_key: VALUE, org: 'org-1' });
  });

  after(async () => {
    await world?.close();
    await vault?.close();
  });

  test('token auth: GET /v1/<mount>/data/<path> with X-Vault-Token and X-Vault-Namespace; a one-key map gives its value', async () => {
    const reference = await world.reference({ manager_type: 'hashicorp_vault', auth_config: tokenAuth(), secret_path: 'secret/team/openai' });
    const resolve = await world.resolver();
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), VALUE);
    const sent = vault.requests.at(-1)!;
    assert.deepEqual({ method: sent.method, path: sent.path, token: sent.token, namespace: sent.namespace }, {
      method: 'GET', path: '/v1/secret/data/team/openai', token: ROOT_TOKEN, namespace: NAMESPACE,
    });
  });

  test('secret_key picks from a map of several keys; without it the answer names the keys, not the values', async () => {
    const picked = await world.reference({ manager_type: 'hashicorp_vault', auth_config: tokenAuth(), secret_path: 'secret/team/both', secret_key: 'org' });
    const unpicked = await world.reference({ manager_type: 'hashicorp_vault', auth_config: tokenAuth(), secret_path: 'secret/team/both' });
    const resolve = await world.resolver();
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: picked.slug }), 'org-1');
    const { status, body } = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: unpicked.slug }));
    assert.equal(status, 502);
    assert.equal(body.error.code, 'secret_unavailable');
    assert.match(body.error.message, /2 keys \(api_key, org\): set secret_key/);
    assert.ok(!body.error.message.includes(VALUE));
    const missingKey = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: picked.slug, secret_key: 'nope' }));
    assert.match(missingKey.body.error.message, /no key "nope"/);
  });

  test('AppRole: one login, its client token used for the reads and held across them', async () => {
    const reference = await world.reference({ manager_type: 'hashicorp_vault', auth_config: appRoleAuth(), secret_path: 'secret/team/openai' });
    let clock = Date.now();
    const resolve = await world.resolver({ now: () => clock });
    const start = vault.requests.length;
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), VALUE);
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), VALUE);
    clock += 61_000;
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), VALUE);
    const sent = vault.requests.slice(start);
    assert.deepEqual(sent.map((request) => `${request.method} ${request.path}`), [
      'POST /v1/auth/approle/login', 'GET /v1/secret/data/team/openai', 'GET /v1/secret/data/team/openai',
    ]);
    assert.deepEqual(sent[0]!.body, { role_id: ROLE.roleId, secret_id: ROLE.secretId });
    assert.equal(sent[0]!.namespace, NAMESPACE);
    assert.ok(sent[1]!.token?.startsWith('hvs.') && sent[1]!.token !== ROOT_TOKEN && vault.tokens.has(sent[1]!.token));
    assert.equal(sent[2]!.token, sent[1]!.token);
  });

  test('a wrong token or secret id: a 502 naming the reference and Vault\'s error, never a secret', async () => {
    const resolve = await world.resolver();
    const badToken = await world.reference({ manager_type: 'hashicorp_vault', slug: 'bad-vault-token', auth_config: tokenAuth({ vault_token: 'hvs.not-a-token' }), secret_path: 'secret/team/openai' });
    const refused = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: badToken.slug }));
    assert.equal(refused.status, 502);
    assert.equal(refused.body.error.code, 'secret_manager_auth_failed');
    assert.match(refused.body.error.message, /HashiCorp Vault refused the credentials of secret reference "bad-vault-token" \(403: permission denied\)/);
    const badSecretId = await world.reference({ manager_type: 'hashicorp_vault', auth_config: appRoleAuth({ vault_secret_id: 'wrong-secret-id' }), secret_path: 'secret/team/openai' });
    const login = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: badSecretId.slug }));
    assert.equal(login.status, 502);
    assert.equal(login.body.error.code, 'secret_manager_auth_failed');
    assert.match(login.body.error.message, /AppRole login\) refused the credentials .* \(400: invalid role or secret ID\)/);
    for (const secret of ['hvs.not-a-token', 'wrong-secret-id', ROOT_TOKEN, VALUE]) {
      assert.ok(!JSON.stringify(refused.body).includes(secret) && !JSON.stringify(login.body).includes(secret));
    }
    const missing = await world.reference({ manager_type: 'hashicorp_vault', auth_config: tokenAuth(), secret_path: 'secret/team/none' });
    const notFound = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: missing.slug }));
    assert.equal(notFound.body.error.code, 'secret_not_found');
  });

  test('kubernetes auth is refused with a 400 naming vault_auth_type; a path without a mount names secret_path', async () => {
    const kubernetes = await rejection(world.reference({ manager_type: 'hashicorp_vault', auth_config: { vault_auth_type: 'kubernetes', vault_addr: vault.address, vault_role: 'gateway' }, secret_path: 'secret/x' }));
    assert.equal(kubernetes.status, 400);
    assert.equal(kubernetes.body.error.param, 'auth_config.vault_auth_type');
    for (const path of ['openai', 'secret/../sys/x', 'secret//x']) {
      const bad = await rejection(world.reference({ manager_type: 'hashicorp_vault', auth_config: tokenAuth(), secret_path: path }));
      assert.equal(bad.body.error.param, 'secret_path', path);
    }
    const unknownField = await rejection(world.reference({ manager_type: 'hashicorp_vault', auth_config: { ...tokenAuth(), vault_role_id: 'x' }, secret_path: 'secret/x' }));
    assert.equal(unknownField.body.error.param, 'auth_config.vault_role_id');
  });
});
