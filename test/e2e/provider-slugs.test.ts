/**
 * Saved providers at request time, end to end with the official openai client against a real gateway and a fake
 * upstream: `x-gateway-provider: @slug` with no Authorization reaches the upstream with the stored key; a model
 * `@slug/model` selects the provider and sends the model; x-gateway-virtual-key; config targets naming
 * `provider: "@slug"` or `virtual_key`; unknown and malformed slugs are 400s naming the header or field before any
 * provider call; expired is a 401; the request log names the slug and the integration. Then the resolution alone,
 * with injected dependencies: exhausted is a 429, secret mappings need a resolver, the client cannot redirect a key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import type { InferenceCall } from '../../src/core/inference-call.ts';
import { announceProviderChange, type SavedProvider } from '../../src/domain/providers/saved-providers.ts';
import { parseGatewayHeaders } from '../../src/http/parse-gateway-headers.ts';
import { resolveAttemptTarget } from '../../src/pipeline/saved-provider-target.ts';
import { createProviderRegistry } from '../../src/providers/registry.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { integrations, providers } from '../../src/storage/schema.ts';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { parseAllowlist } from '../../src/upstream/ssrf-guard.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { insertIntegration, setIntegrationAccess } from '../helpers/provider-records.ts';

const STORED_KEY = 'sk-stored-team-key-000111222333';
const VK_KEY = 'sk-virtual-key-444555666777';
const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
const MESSAGES = [{ role: 'user' as const, content: 'hi' }];

describe('saved providers end to end', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let integrationId: string;
  let vkSlug: string;
  const db = () => gateway.gateway.database.db;

  /** the official client with no Authorization header at all: only the gateway key and the given headers */
  function client(headers: Record<string, string> = {}): OpenAI {
    return new OpenAI({
      apiKey: 'unused',
      baseURL: gateway.baseURL,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, Authorization: null, ...headers },
    });
  }
  const chat = (headers: Record<string, string>, model = 'gpt-4o-mini') => client(headers).chat.completions.create({ model, messages: MESSAGES }).withResponse();

  /** refused with this status, param and code, and no provider was called */
  async function refused(headers: Record<string, string>, model: string, status: number, param: string, code: string) {
    const since = upstream.requests.length;
    await assert.rejects(chat(headers, model), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError, String(error));
      assert.equal(error.status, status);
      const body = error.error as { param?: string; code?: string; message?: string };
      assert.equal(body.param, param, JSON.stringify(body));
      assert.equal(body.code, code, JSON.stringify(body));
      return true;
    });
    assert.equal(upstream.requests.length, since, 'no provider was called');
  }
  const lastRequest = () => upstream.requests.at(-1)!;

  before(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestGateway();
    const call = adminClient(gateway.baseURL);
    const organisationId = gateway.gateway.bootstrap.organisation.id;
    const integration = await insertIntegration(db(), cipher, { organisationId, slug: 'team-openai-integration', key: STORED_KEY, global: true, configurations: { custom_host: upstream.baseUrl } });
    integrationId = integration.id;
    const created = await call('POST', '/providers', gateway.adminKey, { name: 'Team', integration_id: integration.slug, slug: 'team-openai' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const closed = await insertIntegration(db(), cipher, { organisationId, slug: 'closed-integration', key: 'sk-closed', global: true, configurations: { custom_host: upstream.baseUrl } });
    assert.equal((await call('POST', '/providers', gateway.adminKey, { name: 'Closed', integration_id: closed.slug, slug: 'closed' })).status, 200);
    await setIntegrationAccess(db(), closed.id, gateway.gateway.bootstrap.workspace.id, false);
    const vk = await call('POST', '/virtual-keys', gateway.adminKey, { name: 'Legacy', provider: 'openai', key: VK_KEY });
    assert.equal(vk.status, 200, JSON.stringify(vk.body));
    vkSlug = vk.body.data.slug;
    // a virtual key has no host field: its integration is pointed at the fake upstream as an admin would configure it
    const [row] = await db().select().from(providers).where(eq(providers.slug, vkSlug));
    await db().update(integrations).set({ configurations: { custom_host: upstream.baseUrl } }).where(eq(integrations.id, row!.integrationId));
    await announceProviderChange(gateway.gateway.kv);
  });

  after(() => closeAll(() => gateway?.close(), () => upstream?.close()));

  test('x-gateway-provider: @slug with no Authorization header reaches the upstream with the stored key', async () => {
    const { data, response } = await chat({ 'x-gateway-provider': '@team-openai' });
    assert.equal(data.object, 'chat.completion');
    assert.equal(response.headers.get('x-gateway-provider'), 'openai');
    assert.equal(lastRequest().headers.authorization, `Bearer ${STORED_KEY}`);
    assert.equal((lastRequest().json as { model: string }).model, 'gpt-4o-mini');
    const injected = await gateway.gateway.app.inject({
      method: 'POST', url: '/v1/chat/completions', payload: { model: 'm', messages: MESSAGES },
      headers: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': '@team-openai', 'content-type': 'application/json' },
    });
    assert.equal(injected.statusCode, 200, injected.body);
    assert.equal(lastRequest().headers.authorization, `Bearer ${STORED_KEY}`);
  });

  test('a model @slug/model selects the provider and sends the model after the slug; streams too', async () => {
    await chat({}, '@team-openai/gpt-4o');
    assert.equal((lastRequest().json as { model: string }).model, 'gpt-4o');
    assert.equal(lastRequest().headers.authorization, `Bearer ${STORED_KEY}`);
    await chat({ 'x-gateway-provider': '@team-openai' }, '@team-openai/gpt-4.1');
    assert.equal((lastRequest().json as { model: string }).model, 'gpt-4.1', 'the same slug in header and model');
    const stream = await client().chat.completions.create({ model: '@team-openai/gpt-4o', messages: MESSAGES, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.ok(text.length > 0);
    assert.equal((lastRequest().json as { model: string }).model, 'gpt-4o');
  });

  test('x-gateway-virtual-key and @<virtual key slug> send the virtual key\'s own key', async () => {
    await chat({ 'x-gateway-virtual-key': vkSlug });
    assert.equal(lastRequest().headers.authorization, `Bearer ${VK_KEY}`);
    await chat({ 'x-gateway-provider': `@${vkSlug}` });
    assert.equal(lastRequest().headers.authorization, `Bearer ${VK_KEY}`);
  });

  test('config targets: provider "@slug" and virtual_key resolve the same way, fallbacks included', async () => {
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: '@team-openai', override_params: { model: 'error-500' } }, { virtual_key: vkSlug }] };
    const { response } = await chat({ 'x-gateway-config': JSON.stringify(config) });
    assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[1]');
    const [first, second] = upstream.requests.slice(-2);
    assert.equal(first!.headers.authorization, `Bearer ${STORED_KEY}`);
    assert.equal(second!.headers.authorization, `Bearer ${VK_KEY}`);
    await chat({ 'x-gateway-config': JSON.stringify({ provider: '@team-openai' }) });
    assert.equal(lastRequest().headers.authorization, `Bearer ${STORED_KEY}`);
    await refused({ 'x-gateway-config': JSON.stringify({ provider: '@nope' }) }, 'm', 400, 'config.provider', 'provider_not_found');
    await refused({ 'x-gateway-config': JSON.stringify({ targets: [{ virtual_key: 'bad slug!' }], strategy: { mode: 'fallback' } }) }, 'm', 400, 'config.targets[0].virtual_key', 'invalid_provider_slug');
  });

  test('a saved config may name a provider by slug', async () => {
    const call = adminClient(gateway.baseURL);
    const saved = await call('POST', '/configs', gateway.adminKey, { name: 'By slug', config: { provider: '@team-openai', override_params: { model: 'gpt-4o' } } });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    await chat({ 'x-gateway-config': saved.body.data.slug });
    assert.equal(lastRequest().headers.authorization, `Bearer ${STORED_KEY}`);
    assert.equal((lastRequest().json as { model: string }).model, 'gpt-4o');
    const malformed = await call('POST', '/configs', gateway.adminKey, { name: 'Bad', config: { provider: '@bad slug' } });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error.param, 'config.provider');
  });

  test('GET /models with @slug lists the provider\'s own models with the stored key', async () => {
    const response = await gateway.gateway.app.inject({ method: 'GET', url: '/v1/models', headers: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': '@team-openai' } });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(lastRequest().url, /\/models$/);
    assert.equal(lastRequest().headers.authorization, `Bearer ${STORED_KEY}`);
  });

  test('unknown slugs are 400s naming the header or field; malformed ones are refused before any lookup', async () => {
    await refused({ 'x-gateway-provider': '@nobody' }, 'm', 400, 'x-gateway-provider', 'provider_not_found');
    await refused({ 'x-gateway-virtual-key': 'nobody' }, 'm', 400, 'x-gateway-virtual-key', 'provider_not_found');
    await refused({}, '@nobody/gpt-4o', 400, 'model', 'provider_not_found');
    await refused({ 'x-gateway-provider': '@bad!slug' }, 'm', 400, 'x-gateway-provider', 'invalid_provider_slug');
    await refused({ 'x-gateway-provider': '@' }, 'm', 400, 'x-gateway-provider', 'invalid_provider_slug');
    await refused({ 'x-gateway-virtual-key': 'bad/slug' }, 'm', 400, 'x-gateway-virtual-key', 'invalid_provider_slug');
    await refused({}, '@bad!slug/gpt-4o', 400, 'model', 'invalid_provider_slug');
    await refused({}, '@team-openai/', 400, 'model', 'invalid_model');
    await refused({ 'x-gateway-provider': '@team-openai', 'x-gateway-virtual-key': vkSlug }, 'm', 400, 'x-gateway-virtual-key', 'conflicting_provider');
  });

  test('a provider name keeps a model starting with @ as written (some providers name models so)', async () => {
    await chat({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, Authorization: 'Bearer sk-client' }, '@cf/meta/llama');
    assert.equal((lastRequest().json as { model: string }).model, '@cf/meta/llama');
    assert.equal(lastRequest().headers.authorization, 'Bearer sk-client');
  });

  test('the client cannot send a saved key elsewhere: a custom host or cloud header with a slug is a 400', async () => {
    await refused({ 'x-gateway-provider': '@team-openai', 'x-gateway-custom-host': 'http://127.0.0.1:9/v1' }, 'm', 400, 'x-gateway-custom-host', 'custom_host_not_allowed');
    await refused({ 'x-gateway-provider': '@team-openai', 'x-gateway-azure-resource-name': 'attacker' }, 'm', 400, 'x-gateway-azure-resource-name', 'cloud_settings_not_allowed');
  });

  test('an integration the workspace may no longer use is a 403; an expired provider a 401 saying so', async () => {
    await refused({ 'x-gateway-provider': '@closed' }, 'm', 403, 'x-gateway-provider', 'integration_not_enabled');
    await db().update(providers).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(providers.slug, 'closed'));
    await setIntegrationAccess(db(), (await db().select().from(providers).where(eq(providers.slug, 'closed')))[0]!.integrationId, gateway.gateway.bootstrap.workspace.id, true);
    await announceProviderChange(gateway.gateway.kv);
    await assert.rejects(chat({ 'x-gateway-provider': '@closed' }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 401);
      assert.equal((error.error as { code: string }).code, 'provider_expired');
      assert.match(error.message, /expired/);
      return true;
    });
  });

  test('the request log names the provider slug and its integration', async () => {
    const traceId = `trace-slug-${Date.now()}`;
    await chat({ 'x-gateway-provider': '@team-openai', 'x-gateway-trace-id': traceId });
    await gateway.gateway.requestLog.flush();
    const [row] = await findRequestLogsByTraceId(db(), gateway.gateway.bootstrap.organisation.id, traceId);
    assert.equal(row!.providerSlug, 'team-openai');
    assert.equal(row!.integrationId, integrationId);
    assert.equal(row!.provider, 'openai');
  });
});

describe('saved provider resolution with injected dependencies', () => {
  const registry = createProviderRegistry();
  const principal = { organisationId: 'org', workspaceId: 'ws' } as Parameters<typeof resolveAttemptTarget>[2];
  const headers = (extra: Record<string, string>) => parseGatewayHeaders(extra, { newTraceId: () => 't', cloudHeaderPrefixes: [] });
  const body = { model: 'gpt-4o', messages: MESSAGES };
  const call = { route: 'chat', method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody: Buffer.from(JSON.stringify(body)), contentType: 'application/json', params: {} } as unknown as InferenceCall;
  const saved = (overrides: Partial<SavedProvider> = {}): SavedProvider => ({
    ref: { id: 'p', slug: 'team', organisationId: 'org', workspaceId: 'ws', integrationId: 'i', isVirtualKey: false, rateLimits: null, usageLimits: { credit_limit: 1, type: 'cost' }, usageResetAt: null, expiresAt: null },
    integration: { slug: 'integration', aiProviderId: 'openai', active: true, usable: true },
    apiKey: 'sk-stored',
    configurations: {},
    modelConfig: {},
    secretMappings: [],
    ...overrides,
  });
  const deps = (record: SavedProvider, extra: Record<string, unknown> = {}) => ({
    registry,
    allowlist: parseAllowlist([]),
    savedProviders: { resolve: async () => record, invalidate: async () => {}, close: async () => {} },
    ...extra,
  });

  test('the resolved target carries the stored key, the default base URL and the provider record for the limits', async () => {
    const resolved = await resolveAttemptTarget(headers({ 'x-gateway-provider': '@team' }), call, principal, deps(saved()));
    assert.equal(resolved.target.apiKey, 'sk-stored');
    assert.equal(resolved.target.baseUrl, registry.get('openai')!.defaultBaseUrl);
    assert.equal(resolved.savedProvider?.id, 'p');
    assert.deepEqual(resolved.savedProvider?.usageLimits, { credit_limit: 1, type: 'cost' });
  });

  test('an exhausted provider is a 429 saying so', async () => {
    const exhausted = deps(saved(), { providerExhausted: async (subject: { id: string }) => subject.id === 'p' });
    await assert.rejects(resolveAttemptTarget(headers({ 'x-gateway-provider': '@team' }), call, principal, exhausted), (error: { status: number; code: string; message: string }) => {
      assert.equal(error.status, 429);
      assert.equal(error.code, 'provider_exhausted');
      assert.match(error.message, /exhausted/);
      return true;
    });
  });

  test('secret mappings: refused without a resolver (never ignored); with one, the mapped values replace the key and settings', async () => {
    const mapped = saved({ secretMappings: [{ target_field: 'key', secret_reference_id: 'vault-key' }, { target_field: 'configurations.custom_host', secret_reference_id: 'host' }] });
    await assert.rejects(resolveAttemptTarget(headers({ 'x-gateway-virtual-key': 'team' }), call, principal, deps(mapped)), (error: { status: number; code: string; param: string }) => {
      assert.equal(error.status, 400);
      assert.equal(error.code, 'secret_mappings_unresolved');
      assert.equal(error.param, 'x-gateway-virtual-key');
      return true;
    });
    const seen: string[] = [];
    const resolver = async (mappings: readonly { secret_reference_id: string; target_field: string }[]) => {
      seen.push(...mappings.map((mapping) => mapping.secret_reference_id));
      return new Map<string, unknown>([['key', 'sk-from-vault'], ['configurations.custom_host', 'http://127.0.0.1:8080/v1']]);
    };
    const resolved = await resolveAttemptTarget(headers({ 'x-gateway-virtual-key': 'team' }), call, principal, deps(mapped, { secretMappings: resolver, allowlist: parseAllowlist(['127.0.0.1']) }));
    assert.deepEqual(seen, ['vault-key', 'host']);
    assert.equal(resolved.target.apiKey, 'sk-from-vault');
    assert.equal(resolved.target.baseUrl, 'http://127.0.0.1:8080/v1');
    assert.equal(resolved.target.customHost, true);
  });

  test('a custom host in the integration goes through the SSRF guard', async () => {
    const internal = saved({ configurations: { custom_host: 'http://10.0.0.1/v1' } });
    await assert.rejects(resolveAttemptTarget(headers({ 'x-gateway-provider': '@team' }), call, principal, deps(internal)), (error: { status: number }) => {
      assert.equal(error.status, 400);
      return true;
    });
  });

  test('a virtual key\'s legacy cloud fields become its adapter\'s settings; the deployment follows the model alias', async () => {
    const azure = saved({
      integration: { slug: 'i', aiProviderId: 'azure-openai', active: true, usable: true },
      modelConfig: { resourceName: 'res', apiVersion: '2024-01-01', deploymentConfig: [{ apiVersion: '2024-06-01', deploymentName: 'dep-a', alias: 'gpt-4o' }, { apiVersion: '2024-02-01', deploymentName: 'dep-b', is_default: true }] },
    });
    const resolved = await resolveAttemptTarget(headers({ 'x-gateway-virtual-key': 'team' }), call, principal, deps(azure));
    assert.deepEqual(Object.values(resolved.target.cloud).sort(), ['2024-06-01', 'dep-a', 'res']);
    assert.match(resolved.target.baseUrl, /res/);
  });
});
