/**
 * azure_kv references against a fake Entra token endpoint and Key Vault: the client credentials grant with the
 * vault scope, the secret read with the bearer token the fake issued, the token held across fetches, refusals
 * turned into clear 502s without the secret, and the auth modes the gateway refuses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AZURE_SCOPE, startFakeAzureKeyVault, type FakeAzureKeyVault } from '../fakes/azure-key-vault-upstream.ts';
import { openResolverWorld, rejection, type ResolverWorld } from './resolver-world.ts';

const APP = { tenant: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: 'b2c4e6a8-1111-4222-8333-944455556666', clientSecret: 'entra~client~secret~value' };
const VALUE = 'sk-azure-0123456789';

describe('Azure Key Vault', () => {
  let world: ResolverWorld;
  let azure: FakeAzureKeyVault;
  const auth = (overrides: Record<string, string> = {}) => ({
    azure_auth_mode: 'entra',
    azure_entra_tenant_id: APP.tenant,
    azure_entra_client_id: APP.clientId,
    azure_entra_client_secret: APP.clientSecret,
    azure_vault_url: azure.origin,
    azure_authority_host: azure.origin,
    ...overrides,
  });

  before(async () => {
    world = await openResolverWorld();
    azure = await startFakeAzureKeyVault(APP);
    azure.secrets.set('openai-key', VALUE);
    azure.secrets.set('json-secret', JSON.stringify({ key: VALUE }));
  });

  after(async () => {
    await world?.close();
    await azure?.close();
  });

  test('a client credentials token for the vault scope, then GET /secrets/{name}?api-version=7.4 with that bearer token', async () => {
    const reference = await world.reference({ manager_type: 'azure_kv', auth_config: auth(), secret_path: 'openai-key' });
    const resolve = await world.resolver();
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), VALUE);
    const tokenRequest = azure.tokenRequests.at(-1)!;
    assert.equal(tokenRequest.tenant, APP.tenant);
    assert.match(tokenRequest.contentType, /^application\/x-www-form-urlencoded/);
    assert.deepEqual(tokenRequest.form, { grant_type: 'client_credentials', client_id: APP.clientId, client_secret: APP.clientSecret, scope: AZURE_SCOPE });
    const secretRequest = azure.secretRequests.at(-1)!;
    assert.equal(secretRequest.path, '/secrets/openai-key');
    assert.equal(secretRequest.apiVersion, '7.4');
    assert.equal(secretRequest.authorization, `Bearer ${azure.issued.at(-1)}`);
    assert.equal(secretRequest.tokenIssued, true);
  });

  test('the value is held for the TTL; after it the secret is read again with the token still held', async () => {
    const reference = await world.reference({ manager_type: 'azure_kv', auth_config: auth(), secret_path: 'json-secret', secret_key: 'key' });
    let clock = Date.now();
    const resolve = await world.resolver({ now: () => clock });
    const tokens = azure.tokenRequests.length;
    const reads = azure.secretRequests.length;
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.id }), VALUE);
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), VALUE);
    assert.equal(azure.secretRequests.length - reads, 1, 'one read for two resolutions');
    clock += 61_000;
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), VALUE);
    assert.equal(azure.secretRequests.length - reads, 2);
    assert.equal(azure.tokenRequests.length - tokens, 1, 'one token for both reads');
  });

  test('a wrong client secret: a 502 naming the reference and Entra\'s error, never a secret', async () => {
    const reference = await world.reference({ manager_type: 'azure_kv', slug: 'wrong-entra', auth_config: auth({ azure_entra_client_secret: 'wrong~secret' }), secret_path: 'openai-key' });
    const resolve = await world.resolver();
    const reads = azure.secretRequests.length;
    const { status, body } = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }));
    assert.equal(status, 502);
    assert.equal(body.error.code, 'secret_manager_auth_failed');
    assert.match(body.error.message, /Microsoft Entra ID refused the credentials of secret reference "wrong-entra" \(401: invalid_client: AADSTS7000215/);
    for (const secret of ['wrong~secret', APP.clientSecret, VALUE]) assert.ok(!JSON.stringify(body).includes(secret));
    assert.equal(azure.secretRequests.length, reads, 'no vault read without a token');
  });

  test('a revoked token is a 502 and the next fetch gets a new token; a missing secret is secret_not_found', async () => {
    const reference = await world.reference({ manager_type: 'azure_kv', auth_config: auth(), secret_path: 'openai-key' });
    let clock = Date.now();
    const resolve = await world.resolver({ now: () => clock });
    await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug });
    azure.issued.length = 0;
    clock += 61_000;
    const revoked = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }));
    assert.equal(revoked.status, 502);
    assert.equal(revoked.body.error.code, 'secret_manager_auth_failed');
    assert.match(revoked.body.error.message, /Azure Key Vault refused the credentials .* \(401: Unauthorized/);
    assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), VALUE);

    const missing = await world.reference({ manager_type: 'azure_kv', auth_config: auth(), secret_path: 'nothing-here' });
    const notFound = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: missing.slug }));
    assert.equal(notFound.status, 502);
    assert.equal(notFound.body.error.code, 'secret_not_found');
    assert.match(notFound.body.error.message, /SecretNotFound/);
  });

  test('managed and default modes are refused with a 400 naming azure_auth_mode; a bad secret name names secret_path', async () => {
    for (const mode of ['managed', 'default']) {
      const { status, body } = await rejection(world.reference({ manager_type: 'azure_kv', auth_config: { azure_auth_mode: mode, azure_vault_url: azure.origin }, secret_path: 'openai-key' }));
      assert.equal(status, 400);
      assert.equal(body.error.param, 'auth_config.azure_auth_mode');
    }
    const badName = await rejection(world.reference({ manager_type: 'azure_kv', auth_config: auth(), secret_path: '../keys/x' }));
    assert.equal(badName.body.error.param, 'secret_path');
    const badUrl = await rejection(world.reference({ manager_type: 'azure_kv', auth_config: auth({ azure_vault_url: 'ftp://vault' }), secret_path: 'openai-key' }));
    assert.equal(badUrl.body.error.param, 'auth_config.azure_vault_url');
  });
});
