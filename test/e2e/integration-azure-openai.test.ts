/**
 * Azure OpenAI and OpenAI integrations end to end: integrations created through the admin API, called as `@slug`
 * with the official openai client and no provider key, against a fake Azure (which checks paths, api-version and
 * credential headers), a fake Microsoft Entra token endpoint and the fake OpenAI upstream, all on 127.0.0.1.
 * - azure_deployment_config: the request's model picks the deployment and its api-version;
 * - Entra client credentials: the token is fetched once, sent as a bearer instead of api-key, and held;
 * - custom_headers and openai_organization / openai_project on every call, never over the credential;
 * - refusals when saved (managed identity, incomplete Entra credentials, bad deployments and headers), masked reads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { COGNITIVE_SERVICES_SCOPE } from '../../src/providers/azure-openai/entra.ts';
import { integrations } from '../../src/storage/schema.ts';
import { startFakeAzure, type FakeAzure } from '../fakes/azure-upstream.ts';
import { startFakeEntra, type FakeEntra } from '../fakes/entra-token-endpoint.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const APP = { tenant: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: 'b2c4e6a8-1111-4222-8333-944455556666', clientSecret: 'entra~client~secret~value~42' };
const AZURE_KEY = 'azure-stored-key-0123456789abcdef';
const OPENAI_KEY = 'sk-openai-stored-key-00112233445566';
const PROXY_SECRET = 'sk-proxy-secret-value-778899';
const MESSAGES = [{ role: 'user' as const, content: 'Hi' }];
const DEPLOYMENTS = [
  { alias: 'gpt-4o', azure_deployment_name: 'gpt4o-prod', azure_api_version: '2024-10-21', azure_model_slug: 'gpt-4o' },
  { alias: 'mini', azure_deployment_name: 'mini-eu', azure_api_version: '2024-06-01', azure_model_slug: 'gpt-4o-mini' },
];

let gateway: TestGateway;
let azure: FakeAzure;
let entra: FakeEntra;
let openai: FakeUpstream;
let call: ReturnType<typeof adminClient>;

function client(): OpenAI {
  return new OpenAI({ apiKey: 'unused', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, Authorization: null } });
}

async function createIntegration(body: Record<string, unknown>): Promise<string> {
  const created = await call('POST', '/integrations', gateway.adminKey, body);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.slug as string;
}

/** refused with a 400 naming `param` (and `code` when given) */
async function refusedWhenSaved(body: Record<string, unknown>, param: string, code?: string): Promise<void> {
  const answer = await call('POST', '/integrations', gateway.adminKey, { name: 'Refused', ...body });
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.error.param, param, JSON.stringify(answer.body));
  if (code) assert.equal(answer.body.error.code, code);
}

async function rejected(promise: Promise<unknown>, status: number, param?: string, code?: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.equal(error.status, status, JSON.stringify(error.error));
    const body = error.error as { param?: string; code?: string };
    if (param) assert.equal(body.param, param);
    if (code) assert.equal(body.code, code);
    return true;
  });
}

before(async () => {
  [azure, entra, openai, gateway] = await Promise.all([startFakeAzure(), startFakeEntra(APP, COGNITIVE_SERVICES_SCOPE), startFakeUpstream(), startTestGateway()]);
  call = adminClient(gateway.baseURL);
});

after(() => closeAll(() => gateway?.close(), () => azure?.close(), () => entra?.close(), () => openai?.close()));

describe('azure_deployment_config', () => {
  let slug: string;
  before(async () => {
    slug = await createIntegration({
      name: 'Azure deployments',
      ai_provider_id: 'azure-openai',
      key: AZURE_KEY,
      configurations: { custom_host: `${azure.origin}/openai`, azure_auth_mode: 'default', azure_deployment_config: DEPLOYMENTS },
    });
  });

  test('the request model picks the deployment and its api-version; the key goes as api-key', async () => {
    const { data } = await client().chat.completions.create({ model: `@${slug}/gpt-4o`, messages: MESSAGES }).withResponse();
    assert.equal(data.object, 'chat.completion');
    let seen = azure.last();
    assert.equal(seen.path, '/openai/deployments/gpt4o-prod/chat/completions');
    assert.equal(seen.query.get('api-version'), '2024-10-21');
    assert.equal(seen.headers['api-key'], AZURE_KEY);
    assert.equal(seen.headers.authorization, undefined);
    await client().chat.completions.create({ model: `@${slug}/mini`, messages: MESSAGES });
    seen = azure.last();
    assert.equal(seen.path, '/openai/deployments/mini-eu/chat/completions');
    assert.equal(seen.query.get('api-version'), '2024-06-01');
    // the model slug picks it too
    await client().chat.completions.create({ model: `@${slug}/gpt-4o-mini`, messages: MESSAGES });
    assert.equal(azure.last().path, '/openai/deployments/mini-eu/chat/completions');
  });

  test('a model of no deployment is a 400 naming model, before any call; a default deployment takes it', async () => {
    const before = azure.requests.length;
    await rejected(client().chat.completions.create({ model: `@${slug}/gpt-5`, messages: MESSAGES }), 400, 'model', 'unknown_deployment');
    assert.equal(azure.requests.length, before, 'no provider call');
    const withDefault = await createIntegration({
      name: 'Azure default',
      ai_provider_id: 'azure-openai',
      key: AZURE_KEY,
      configurations: { custom_host: `${azure.origin}/openai`, azure_deployment_config: [DEPLOYMENTS[0], { ...DEPLOYMENTS[1], is_default: true }] },
    });
    await client().chat.completions.create({ model: `@${withDefault}/gpt-5`, messages: MESSAGES });
    assert.equal(azure.last().path, '/openai/deployments/mini-eu/chat/completions');
  });

  test('the list is read back as stored; bad deployments are refused naming the field', async () => {
    const shown = await call('GET', `/integrations/${slug}`, gateway.adminKey);
    assert.deepEqual(shown.body.configurations.azure_deployment_config, DEPLOYMENTS.map((deployment) => ({ ...deployment, is_default: false })));
    const base = { ai_provider_id: 'azure-openai', key: AZURE_KEY };
    await refusedWhenSaved({ ...base, configurations: { azure_deployment_config: [] } }, 'configurations.azure_deployment_config');
    await refusedWhenSaved({ ...base, configurations: { azure_deployment_config: [{ azure_deployment_name: 'd', azure_model_slug: 'm' }] } }, 'configurations.azure_deployment_config[0].azure_api_version');
    await refusedWhenSaved({ ...base, configurations: { azure_deployment_config: [{ ...DEPLOYMENTS[0], azure_api_version: 'x'.repeat(31) }] } }, 'configurations.azure_deployment_config[0].azure_api_version');
    await refusedWhenSaved({ ...base, configurations: { azure_deployment_config: [DEPLOYMENTS[0], { ...DEPLOYMENTS[1], alias: 'gpt-4o' }] } }, 'configurations.azure_deployment_config[1].alias');
    await refusedWhenSaved({ ...base, configurations: { azure_deployment_config: [{ ...DEPLOYMENTS[0], deployment: 'x' }] } }, 'configurations.azure_deployment_config[0].deployment');
  });
});

describe('Entra ID client credentials', () => {
  let slug: string;
  const entraConfig = () => ({
    custom_host: `${azure.origin}/openai`,
    azure_auth_mode: 'entra',
    azure_entra_tenant_id: APP.tenant,
    azure_entra_client_id: APP.clientId,
    azure_entra_client_secret: APP.clientSecret,
    azure_authority_host: entra.origin,
    azure_deployment_config: [DEPLOYMENTS[0]],
  });
  before(async () => {
    slug = await createIntegration({ name: 'Azure Entra', ai_provider_id: 'azure-openai', configurations: entraConfig() });
  });

  test('the token is fetched with the client credentials, sent as a bearer, and held for the next requests', async () => {
    const tokensBefore = entra.requests.length;
    await client().chat.completions.create({ model: `@${slug}/gpt-4o`, messages: MESSAGES });
    const seen = azure.last();
    assert.equal(entra.requests.length, tokensBefore + 1);
    assert.deepEqual(entra.requests.at(-1), { grant_type: 'client_credentials', client_id: APP.clientId, client_secret: APP.clientSecret, scope: COGNITIVE_SERVICES_SCOPE });
    assert.equal(seen.headers.authorization, `Bearer ${entra.issued.at(-1)}`);
    assert.equal(seen.headers['api-key'], undefined, 'a bearer instead of api-key, not both');
    await Promise.all([1, 2, 3].map(() => client().chat.completions.create({ model: `@${slug}/gpt-4o`, messages: MESSAGES })));
    assert.equal(entra.requests.length, tokensBefore + 1, 'one token for every request until shortly before it expires');
    assert.equal(azure.last().headers.authorization, `Bearer ${entra.issued.at(-1)}`);
  });

  test('a held token Azure refuses (401: revoked before it expired) is dropped; the request is sent once more with a fresh one', async () => {
    await client().chat.completions.create({ model: `@${slug}/gpt-4o`, messages: MESSAGES });
    const revoked = entra.issued.at(-1)!;
    azure.refusesToken = (token) => token === revoked;
    const [tokensBefore, azureBefore] = [entra.requests.length, azure.requests.length];
    const data = await client().chat.completions.create({ model: `@${slug}/gpt-4o`, messages: MESSAGES });
    assert.equal(data.object, 'chat.completion');
    assert.equal(entra.requests.length, tokensBefore + 1, 'a fresh token');
    const fresh = entra.issued.at(-1)!;
    assert.deepEqual(azure.requests.slice(azureBefore).map((seen) => seen.headers.authorization), [`Bearer ${revoked}`, `Bearer ${fresh}`]);
    await client().chat.completions.create({ model: `@${slug}/gpt-4o`, messages: MESSAGES });
    assert.equal(entra.requests.length, tokensBefore + 1, 'the fresh token is held');
    assert.equal(azure.last().headers.authorization, `Bearer ${fresh}`);

    // a fresh token refused too: Azure's 401 reaches the client after one retry, never a loop
    azure.refusesToken = () => true;
    const before = azure.requests.length;
    await rejected(client().chat.completions.create({ model: `@${slug}/gpt-4o`, messages: MESSAGES }), 401);
    assert.equal(azure.requests.length, before + 2);
    assert.equal(entra.requests.length, tokensBefore + 2);
    azure.refusesToken = () => false;
  });

  test('a secret Entra refuses is a 401 naming Entra, and Azure is not called', async () => {
    const wrong = await createIntegration({ name: 'Azure Entra wrong', ai_provider_id: 'azure-openai', configurations: { ...entraConfig(), azure_entra_client_secret: 'not-the-secret' } });
    const before = azure.requests.length;
    await rejected(client().chat.completions.create({ model: `@${wrong}/gpt-4o`, messages: MESSAGES }), 401, undefined, 'azure_entra_token_failed');
    assert.equal(azure.requests.length, before);
  });

  test('the client secret is sealed at rest and masked in reads', async () => {
    const shown = await call('GET', `/integrations/${slug}`, gateway.adminKey);
    assert.equal(shown.body.configurations.azure_entra_client_secret, '********');
    assert.equal(shown.body.configurations.azure_entra_client_id, APP.clientId);
    const [row] = await gateway.gateway.database.db.select().from(integrations).where(eq(integrations.slug, slug));
    assert.ok(!JSON.stringify(row).includes(APP.clientSecret), 'no client secret in clear in the table');
  });

  test('managed identity and incomplete client credentials are refused when saved', async () => {
    const base = { ai_provider_id: 'azure-openai', key: AZURE_KEY };
    await refusedWhenSaved({ ...base, configurations: { azure_auth_mode: 'managed', azure_managed_client_id: 'x' } }, 'configurations.azure_auth_mode', 'azure_managed_identity_unavailable');
    const { azure_entra_client_secret: _secret, ...incomplete } = entraConfig();
    await refusedWhenSaved({ ...base, configurations: incomplete }, 'configurations.azure_entra_client_secret', 'missing_configuration');
    await refusedWhenSaved({ ...base, configurations: { azure_auth_mode: 'kerberos' } }, 'configurations.azure_auth_mode');
    await refusedWhenSaved({ ...base, configurations: { ...entraConfig(), azure_authority_host: 'http://10.0.0.1' } }, 'configurations.azure_authority_host', 'custom_host_blocked');
  });
});

describe('custom_headers and the OpenAI organization and project', () => {
  let slug: string;
  before(async () => {
    slug = await createIntegration({
      name: 'OpenAI team',
      ai_provider_id: 'openai',
      key: OPENAI_KEY,
      configurations: {
        custom_host: openai.baseUrl,
        openai_organization: 'org-team42',
        openai_project: 'proj_abc123',
        custom_headers: { 'X-Team': 'blue', 'X-Proxy-Key': PROXY_SECRET, Authorization: 'Bearer never-sent' },
      },
    });
  });

  test('every call carries them; the adapter\'s credential wins over a custom Authorization', async () => {
    await client().chat.completions.create({ model: `@${slug}/gpt-4o-mini`, messages: MESSAGES });
    await client().embeddings.create({ model: `@${slug}/text-embedding-3-small`, input: 'hello' });
    for (const seen of openai.requests.slice(-2)) {
      assert.equal(seen.headers.authorization, `Bearer ${OPENAI_KEY}`);
      assert.equal(seen.headers['openai-organization'], 'org-team42');
      assert.equal(seen.headers['openai-project'], 'proj_abc123');
      assert.equal(seen.headers['x-team'], 'blue');
      assert.equal(seen.headers['x-proxy-key'], PROXY_SECRET);
    }
  });

  test('secret-looking values are sealed and masked; sent back masked they keep the stored value', async () => {
    const shown = await call('GET', `/integrations/${slug}`, gateway.adminKey);
    assert.deepEqual(shown.body.configurations.custom_headers, { 'X-Team': 'blue', 'X-Proxy-Key': '********', Authorization: '********' });
    const [row] = await gateway.gateway.database.db.select().from(integrations).where(eq(integrations.slug, slug));
    assert.ok(!JSON.stringify(row).includes(PROXY_SECRET), 'no custom header secret in clear in the table');
    const updated = await call('PUT', `/integrations/${slug}`, gateway.adminKey, { configurations: { ...shown.body.configurations, custom_headers: { ...shown.body.configurations.custom_headers, 'X-Team': 'green' } } });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    await client().chat.completions.create({ model: `@${slug}/gpt-4o-mini`, messages: MESSAGES });
    const seen = openai.requests.at(-1)!;
    assert.equal(seen.headers['x-team'], 'green', 'the change is seen at once');
    assert.equal(seen.headers['x-proxy-key'], PROXY_SECRET, 'the masked value kept the stored one');
  });

  test('headers that frame or route the request are refused naming the header', async () => {
    const base = { ai_provider_id: 'openai', key: OPENAI_KEY };
    await refusedWhenSaved({ ...base, configurations: { custom_headers: { Host: 'evil.example' } } }, 'configurations.custom_headers.Host', 'header_not_allowed');
    await refusedWhenSaved({ ...base, configurations: { custom_headers: { 'x-gateway-api-key': 'k' } } }, 'configurations.custom_headers.x-gateway-api-key', 'header_not_allowed');
    await refusedWhenSaved({ ...base, configurations: { custom_headers: { 'Bad Name': 'v' } } }, 'configurations.custom_headers.Bad Name');
    await refusedWhenSaved({ ...base, configurations: { custom_headers: { 'X-A': 'line\r\nInjected: 1' } } }, 'configurations.custom_headers.X-A');
    await refusedWhenSaved({ ...base, configurations: { custom_headers: { 'X-A': '********' } } }, 'configurations.custom_headers.X-A', 'masked_secret');
    await refusedWhenSaved({ ...base, configurations: { custom_headers: ['X-A'] } }, 'configurations.custom_headers');
  });

  test('the audit record masks every custom header', async () => {
    const audit = await call('GET', '/audit-logs?page_size=50', gateway.adminKey);
    assert.ok(!JSON.stringify(audit.body).includes(PROXY_SECRET));
  });
});
