/**
 * Saved configs end to end with the official openai client: a config saved over the admin API and named in
 * x-gateway-config by slug or id routes the request; a new version applies to the very next request; an archived
 * or another workspace's config is a 400; the answer is served from the in-process copy, not the database. Two
 * nodes over real PostgreSQL and Redis when TEST_DATABASE_URL and TEST_REDIS_URL are set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { announceConfigChange } from '../../src/domain/configs/saved-configs.ts';
import { configs } from '../../src/storage/schema.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let upstream: FakeUpstream;

before(async () => {
  upstream = await startFakeUpstream();
});

after(async () => {
  await upstream.close();
});

/** A target on the fake upstream answering as `model` says. */
const to = (model: string) => ({ provider: 'openai', custom_host: upstream.baseUrl, override_params: { model } });
const fallback = (...models: string[]) => ({ strategy: { mode: 'fallback' }, targets: models.map(to) });

/** `config` undefined: no x-gateway-config header at all. */
function client(gateway: TestGateway, config: string | undefined, key = gateway.adminKey): OpenAI {
  return new OpenAI({
    apiKey: 'sk-client',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': key, ...(config === undefined ? {} : { 'x-gateway-config': config }) },
  });
}

async function chat(gateway: TestGateway, config: string | undefined, key?: string) {
  return client(gateway, config, key).chat.completions.create({ model: 'requested', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
}

/** The request fails with a 400 naming x-gateway-config, before any provider is called. */
async function rejectsUnknown(gateway: TestGateway, config: string, key?: string): Promise<void> {
  const since = upstream.requests.length;
  await assert.rejects(chat(gateway, config, key), (error: unknown) => {
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.equal(error.status, 400);
    const body = error.error as { param?: string; code?: string };
    assert.equal(body.param, 'x-gateway-config');
    assert.equal(body.code, 'config_not_found');
    return true;
  });
  assert.equal(upstream.requests.length, since, 'no provider was called');
}

describe('saved configs on one node', () => {
  let gateway: TestGateway;
  let admin: (method: string, path: string, body?: unknown, key?: string) => Promise<{ status: number; body: any }>;

  before(async () => {
    gateway = await startTestGateway();
    const call = adminClient(gateway.baseURL);
    admin = (method, path, body, key = gateway.adminKey) => call(method, path, key, body);
  });

  after(async () => {
    await gateway.close();
  });

  async function save(body: Record<string, unknown>): Promise<{ id: string; slug: string; version_id: string }> {
    const created = await admin('POST', '/configs', body);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    return created.body.data;
  }

  test('a saved fallback config routes by slug and by id; a new version applies to the next request; a deleted one is a 400', async () => {
    const saved = await save({ name: 'Fallback', config: fallback('error-500', 'good') });
    for (const reference of [saved.slug, saved.id]) {
      const since = upstream.requests.length;
      const { data, response } = await chat(gateway, reference);
      assert.equal(data.model, 'good');
      assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[1]');
      assert.deepEqual(upstream.requests.slice(since).map((request) => (request.json as { model: string }).model), ['error-500', 'good']);
    }

    const updated = await admin('PUT', `/configs/${saved.slug}`, { config: fallback('version-two') });
    assert.equal(updated.status, 200);
    const { data, response } = await chat(gateway, saved.slug);
    assert.equal(data.model, 'version-two', 'the cached version 1 was dropped at once, not after its TTL');
    assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[0]');

    assert.equal((await admin('DELETE', `/configs/${saved.slug}`)).status, 200);
    await rejectsUnknown(gateway, saved.slug);
    await rejectsUnknown(gateway, saved.id);
  });

  test('an unknown reference is a 400 naming the header; a config created after a miss is found at once', async () => {
    await rejectsUnknown(gateway, 'pc-later-000001');
    await save({ name: 'Later', slug: 'pc-later-000001', config: to('later') });
    assert.equal((await chat(gateway, 'pc-later-000001')).data.model, 'later');
  });

  test('another workspace\'s config is not usable; that workspace\'s own keys use it; organisation-wide ones serve everyone', async () => {
    const other = await admin('POST', '/admin/workspaces', { name: 'Other', slug: 'other' });
    assert.equal(other.status, 200);
    const otherKey = await admin('POST', '/api-keys/workspace/service', { name: 'other', scopes: ['completions.write'], workspace_id: other.body.id });
    const theirs = await save({ name: 'Theirs', config: to('theirs'), workspace_id: 'other' });
    await rejectsUnknown(gateway, theirs.slug);
    await rejectsUnknown(gateway, theirs.id);
    assert.equal((await chat(gateway, theirs.slug, otherKey.body.key)).data.model, 'theirs');

    const everyone = await save({ name: 'Everyone', config: to('shared') });
    assert.equal((await chat(gateway, everyone.slug)).data.model, 'shared');
    assert.equal((await chat(gateway, everyone.slug, otherKey.body.key)).data.model, 'shared');
  });

  test('a cached config is served without reading the database; the change announcement drops it', async () => {
    const saved = await save({ name: 'Cached', config: to('cached') });
    assert.equal((await chat(gateway, saved.slug)).data.model, 'cached');
    // archived behind the gateway's back: a request that read the database would now be refused
    await gateway.gateway.database.db.update(configs).set({ status: 'archived' }).where(eq(configs.id, saved.id));
    assert.equal((await chat(gateway, saved.slug)).data.model, 'cached', 'served from the in-process copy');
    await announceConfigChange(gateway.gateway.kv);
    await new Promise((resolve) => setImmediate(resolve));
    await rejectsUnknown(gateway, saved.slug);
  });

  test('without x-gateway-config: the key\'s defaults.config_id, else the workspace\'s default config; the header wins', async () => {
    const team = await admin('POST', '/admin/workspaces', { name: 'Defaults', slug: 'defaults' });
    const newKey = async (extra: Record<string, unknown> = {}) =>
      (await admin('POST', '/api-keys/workspace/service', { name: 'k', scopes: ['completions.write'], workspace_id: team.body.id, ...extra })).body.key as string;
    const plain = await newKey();
    await rejectsUnknownProvider(plain);
    const first = await save({ name: 'Team default', config: to('workspace-default'), workspace_id: 'defaults', isDefault: 1 });
    assert.equal((await chat(gateway, undefined, plain)).data.model, 'workspace-default');
    const inline = JSON.stringify(to('inline'));
    assert.equal((await chat(gateway, inline, plain)).data.model, 'inline', 'a header config wins over the default');
    await save({ name: 'New default', config: to('new-default'), workspace_id: 'defaults', isDefault: 1 });
    assert.equal((await chat(gateway, undefined, plain)).data.model, 'new-default', 'the new default applies at once');
    await rejectsUnknownProvider(gateway.adminKey); // another workspace (the admin key's) has no default config

    const keyConfig = await save({ name: 'Key default', config: to('key-default'), workspace_id: 'defaults' });
    const withDefault = await newKey({ defaults: { config_id: keyConfig.slug } });
    const { data, response } = await chat(gateway, undefined, withDefault);
    assert.equal(data.model, 'key-default', 'the key default wins over the workspace default');
    assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config');
    assert.equal((await chat(gateway, first.slug, withDefault)).data.model, 'workspace-default', 'overriding is allowed by default');

    const locked = await newKey({ defaults: { config_id: keyConfig.id, allow_config_override: false } });
    assert.equal((await chat(gateway, undefined, locked)).data.model, 'key-default');
    await assert.rejects(chat(gateway, inline, locked), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError && error.status === 403, String(error));
      assert.equal((error.error as { code?: string }).code, 'config_override_not_allowed');
      return true;
    });

    assert.equal((await admin('DELETE', `/configs/${keyConfig.id}`)).status, 200);
    await assert.rejects(chat(gateway, undefined, withDefault), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError && error.status === 400, String(error));
      assert.equal((error.error as { param?: string }).param, 'defaults.config_id');
      return true;
    });
  });

  /** Without any config a request needs a provider header: proof that no default config applied. */
  async function rejectsUnknownProvider(key: string): Promise<void> {
    await assert.rejects(chat(gateway, undefined, key), (error: unknown) => error instanceof OpenAI.APIError && error.status === 400);
  }

  test('GET /models honours fetch_integrated_models of a saved config', async () => {
    const catalog = await save({ name: 'Catalog', config: { ...to('x'), fetch_integrated_models: true } });
    const since = upstream.requests.length;
    const models = await client(gateway, catalog.slug).models.list();
    assert.ok(models.data.length >= 50, 'the integrated catalog');
    assert.equal(upstream.requests.length, since);
    const provider = await save({ name: 'Provider', config: to('x') });
    const proxied = await client(gateway, provider.slug).models.list();
    assert.deepEqual(proxied.data.map((model) => model.id), ['upstream-model-1']);
    await assert.rejects(client(gateway, 'pc-nope-000000').models.list(), (error: unknown) => error instanceof OpenAI.APIError && error.status === 400);
  });
});

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

describe('saved configs on two nodes', { skip: !databaseUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false }, () => {
  let database: { url: string; drop(): Promise<void> };
  let nodeA: TestGateway;
  let nodeB: TestGateway;

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    nodeA = await startTestGateway({ databaseUrl: database.url, env: { REDIS_URL: redisUrl! } });
    nodeB = await startTestGateway({ databaseUrl: database.url, env: { REDIS_URL: redisUrl! } });
  });

  after(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await database?.drop();
  });

  /** Node B applies the invalidation as soon as the message crosses Redis: well before the 30 s TTL. */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail('node B never applied the change');
  }

  test('an update on node A is used by node B; a delete on node A is refused by node B', async () => {
    const a = adminClient(nodeA.baseURL);
    const created = await a('POST', '/configs', nodeA.adminKey, { name: 'Roaming', config: fallback('error-503', 'first') });
    assert.equal(created.status, 200);
    const { slug } = created.body.data;
    assert.equal((await chat(nodeB, slug)).data.model, 'first', 'node B caches version 1');
    assert.equal((await a('PUT', `/configs/${slug}`, nodeA.adminKey, { config: fallback('second') })).status, 200);
    await eventually(async () => (await chat(nodeB, slug)).data.model === 'second');
    assert.equal((await a('DELETE', `/configs/${slug}`, nodeA.adminKey)).status, 200);
    await eventually(async () => {
      try {
        await chat(nodeB, slug);
        return false;
      } catch (error) {
        return error instanceof OpenAI.APIError && error.status === 400;
      }
    });
  });
});
