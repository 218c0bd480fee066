/**
 * End to end: a provider whose key is a secret mapping onto a Vault reference. The official `openai` client calls
 * `@slug` without any provider key; the gateway resolves the mapping through the resolver wired in src/app.ts,
 * and the upstream sees the Vault value as its bearer token. Vault is read once for several requests (the TTL),
 * and a Vault refusal is a 502 naming the reference, with nothing sent upstream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { adminClient } from '../helpers/admin-client.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startFakeVault, type FakeVault } from '../fakes/vault-upstream.ts';

const ROOT_TOKEN = 'hvs.provider-key-test-token';
const PROVIDER_KEY = 'sk-from-vault-0123456789';

describe('a provider key held in Vault', () => {
  let gateway: TestGateway;
  let upstream: FakeUpstream;
  let vault: FakeVault;
  let call: ReturnType<typeof adminClient>;

  async function ok(method: string, path: string, body?: unknown) {
    const response = await call(method, path, gateway.adminKey, body);
    assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
    return response.body;
  }

  async function providerWithKeyIn(slug: string, reference: string): Promise<void> {
    await ok('POST', '/integrations', {
      name: slug, slug: `${slug}-integration`, ai_provider_id: 'openai', configurations: { custom_host: upstream.baseUrl },
      secret_mappings: [{ target_field: 'key', secret_reference_id: reference }],
      create_default_provider: true, default_provider_slug: slug,
    });
  }

  const client = (slug: string) => new OpenAI({ apiKey: 'unused', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': `@${slug}` } });

  before(async () => {
    upstream = await startFakeUpstream();
    vault = await startFakeVault({ rootToken: ROOT_TOKEN });
    vault.secrets.set('secret/providers/openai', { api_key: PROVIDER_KEY });
    gateway = await startTestGateway();
    call = adminClient(gateway.baseURL);
  });

  after(async () => {
    await gateway?.close();
    await vault?.close();
    await upstream?.close();
  });

  test('the upstream gets the Vault value as its key; Vault is read once for two requests', async () => {
    const reference = await ok('POST', '/secret-references', {
      name: 'OpenAI key', manager_type: 'hashicorp_vault', secret_path: 'secret/providers/openai', secret_key: 'api_key',
      auth_config: { vault_auth_type: 'token', vault_addr: vault.address, vault_token: ROOT_TOKEN },
    });
    await providerWithKeyIn('vaulted', reference.slug);
    const reads = vault.requests.length;
    for (let i = 0; i < 2; i += 1) {
      const answer = await client('vaulted').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(answer.object, 'chat.completion');
      assert.equal(upstream.requests.at(-1)!.headers.authorization, `Bearer ${PROVIDER_KEY}`);
    }
    assert.equal(vault.requests.length - reads, 1);
  });

  test('a Vault refusal is a 502 naming the reference, and nothing reaches the upstream', async () => {
    const reference = await ok('POST', '/secret-references', {
      name: 'Revoked', slug: 'revoked-key', manager_type: 'hashicorp_vault', secret_path: 'secret/providers/openai', secret_key: 'api_key',
      auth_config: { vault_auth_type: 'token', vault_addr: vault.address, vault_token: 'hvs.revoked' },
    });
    await providerWithKeyIn('revoked', reference.slug);
    const sent = upstream.requests.length;
    await assert.rejects(
      client('revoked').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      (error: InstanceType<typeof OpenAI.APIError>) => {
        assert.equal(error.status, 502);
        assert.match(error.message, /HashiCorp Vault refused the credentials of secret reference "revoked-key"/);
        assert.ok(!error.message.includes(PROVIDER_KEY) && !error.message.includes('hvs.revoked'));
        return true;
      },
    );
    assert.equal(upstream.requests.length, sent);
  });
});
