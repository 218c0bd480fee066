/**
 * Authentication of /v1: a missing, unknown, revoked or expired x-gateway-api-key is a 401 in the OpenAI error
 * shape on every kind of route, decided before any provider is contacted. Operations routes need no key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { request } from 'undici';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../../src/auth/secrets.ts';
import { insertApiKey, type NewApiKeyRow } from '../../src/storage/repositories/api-keys.ts';
import { apiKeys } from '../../src/storage/schema.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;
const secrets = { revoked: generateApiKeySecret(), expired: generateApiKeySecret(), workspace: generateApiKeySecret() };

async function addKey(secret: string, values: Partial<NewApiKeyRow>) {
  const { organisation } = gateway.gateway.bootstrap;
  return insertApiKey(gateway.gateway.database.db, {
    organisationId: organisation.id,
    type: 'organisation',
    subType: 'service',
    name: 'test key',
    keyHash: hashApiKey(secret),
    maskedKey: maskApiKey(secret),
    ...values,
  });
}

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  // revoked before it is ever used: the key resolver caches what it has seen
  const revoked = await addKey(secrets.revoked, { name: 'revoked key' });
  await gateway.gateway.database.db.update(apiKeys).set({ status: 'revoked' }).where(eq(apiKeys.id, revoked.id));
  await addKey(secrets.expired, { name: 'expired key', expiresAt: new Date(Date.now() - 60_000) });
  await addKey(secrets.workspace, {
    name: 'workspace key',
    type: 'workspace',
    subType: 'service',
    workspaceId: gateway.gateway.bootstrap.workspace.id,
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

const providerHeaders = () => ({
  'x-gateway-provider': 'openai',
  'x-gateway-custom-host': upstream.baseUrl,
  authorization: 'Bearer sk-provider-token',
});
const chatBody = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });

const ROUTES = [
  { name: 'chat POST', method: 'POST', path: '/v1/chat/completions', body: chatBody },
  { name: 'models GET', method: 'GET', path: '/v1/models' },
  { name: 'pass-through GET', method: 'GET', path: '/v1/files/file-123?x=1' },
  { name: 'pass-through POST', method: 'POST', path: '/v1/batches', body: '{"input_file_id":"f"}' },
  { name: '/v1/proxy/ POST', method: 'POST', path: '/v1/proxy/chat/completions', body: chatBody },
  { name: 'responses GET', method: 'GET', path: '/v1/responses/resp_1' },
  // the router decodes the path: these are served by /v1/... routes and must be authenticated like them
  { name: 'percent-encoded /v1 (models)', method: 'GET', path: '/%761/models' },
  { name: 'percent-encoded /v1 (chat)', method: 'POST', path: '/v%31/chat/completions', body: chatBody },
] as const;

const KEYS: ReadonlyArray<[string, () => string | undefined]> = [
  ['missing', () => undefined],
  ['unknown', () => generateApiKeySecret()],
  ['revoked', () => secrets.revoked],
  ['expired', () => secrets.expired],
  ['empty', () => ''],
];

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };

describe('401 on every /v1 route, before any provider is contacted', () => {
  for (const route of ROUTES) {
    for (const [label, key] of KEYS) {
      test(`${route.name}: ${label} key -> 401`, async () => {
        const secret = key();
        const response = await request(`${gateway.origin}${route.path}`, {
          method: route.method,
          headers: {
            ...providerHeaders(),
            ...('body' in route ? { 'content-type': 'application/json' } : {}),
            ...(secret === undefined ? {} : { 'x-gateway-api-key': secret }),
          },
          ...('body' in route ? { body: route.body } : {}),
        });
        const body = (await response.body.json()) as ErrorBody;
        assert.equal(response.statusCode, 401, JSON.stringify(body));
        assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type']);
        assert.equal(body.error.type, 'authentication_error');
        assert.equal(typeof body.error.message, 'string');
        assert.equal(body.error.param, null);
        assert.equal(body.error.code, label === 'missing' || label === 'empty' ? 'missing_api_key' : 'invalid_api_key');
        assert.equal(upstream.connections, 0, 'the provider saw no connection');
        assert.equal(upstream.requests.length, 0);
      });
    }
  }

  test('a revoked key stays refused on repeated use (no stale cache entry)', async () => {
    for (let i = 0; i < 3; i += 1) {
      const response = await request(`${gateway.baseURL}/models`, { headers: { 'x-gateway-api-key': secrets.revoked } });
      await response.body.dump();
      assert.equal(response.statusCode, 401);
    }
  });

  test('the official openai client surfaces a 401 as OpenAI.AuthenticationError', async () => {
    for (const key of [undefined, secrets.revoked]) {
      const client = new OpenAI({
        apiKey: 'sk-provider-token',
        baseURL: gateway.baseURL,
        maxRetries: 0,
        defaultHeaders: { ...providerHeaders(), ...(key ? { 'x-gateway-api-key': key } : {}) },
      });
      await assert.rejects(client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
        assert.equal(error.status, 401);
        assert.equal(error.type, 'authentication_error');
        return true;
      });
      await assert.rejects(client.models.list(), OpenAI.AuthenticationError);
    }
    assert.equal(upstream.connections, 0);
  });
});

describe('operations routes need no key', () => {
  for (const path of ['/health', '/ready', '/metrics']) {
    test(`${path} -> 200 without x-gateway-api-key`, async () => {
      const response = await request(`${gateway.origin}${path}`);
      const text = await response.body.text();
      assert.equal(response.statusCode, 200, text);
      if (path !== '/metrics') assert.ok(JSON.parse(text).status);
    });
  }
});

describe('valid keys', () => {
  test('a workspace service key can call chat', async () => {
    const client = new OpenAI({
      apiKey: 'sk-provider-token',
      baseURL: gateway.baseURL,
      maxRetries: 0,
      defaultHeaders: { ...providerHeaders(), 'x-gateway-api-key': secrets.workspace },
    });
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(completion.choices[0]?.message.content, 'Hello world');
    const seen = upstream.requests.at(-1);
    assert.equal(seen?.url, '/v1/chat/completions');
    assert.equal(seen?.headers['x-gateway-api-key'], undefined, 'the gateway key never reaches the provider');
  });

  test('the admin key passes on a percent-encoded /v1 path served by a built-in route', async () => {
    const response = await request(`${gateway.origin}/%761/models`, { headers: { 'x-gateway-api-key': gateway.adminKey } });
    const body = (await response.body.json()) as { data: unknown[] };
    assert.equal(response.statusCode, 200);
    assert.ok(body.data.length > 0);
  });

  test('a percent-encoded prefix on a pass-through path is refused, never glued onto the provider URL', async () => {
    const before = upstream.requests.length;
    // with a base URL without a path, slicing the raw URL would have sent this to http://127.0.0.1:<port>61/files
    for (const path of ['/%761/files', '/v1/prox%79/files']) {
      const response = await request(`${gateway.origin}${path}`, {
        headers: { ...providerHeaders(), 'x-gateway-custom-host': upstream.origin, 'x-gateway-api-key': gateway.adminKey },
      });
      const body = (await response.body.json()) as ErrorBody;
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(body.error.code, 'invalid_path');
    }
    assert.equal(upstream.requests.length, before);
  });
});
