/**
 * Two gateway nodes sharing PostgreSQL and Redis, with saved providers: a provider slug created on node A works on
 * node B at once (even one node B had just looked up and found unknown, once the announcement crosses Redis), and a
 * credential rotated on node A (the virtual-keys PUT, or the integration's key rewritten and announced as the
 * integrations group does) is the one node B sends. Needs TEST_DATABASE_URL and TEST_REDIS_URL; skipped otherwise.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { announceInvalidation } from '../../src/kv/invalidated-cache.ts';
import { announceProviderChange, INTEGRATIONS_CHANGED } from '../../src/domain/providers/saved-providers.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { integrations, providers } from '../../src/storage/schema.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { insertIntegration } from '../helpers/provider-records.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));

describe('saved providers on two nodes', { skip: !databaseUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false }, () => {
  let database: { url: string; drop(): Promise<void> };
  let nodeA: TestGateway;
  let nodeB: TestGateway;
  let upstream: FakeUpstream;
  let listener: Redis;
  let integration: { id: string; slug: string };
  const messages: string[] = [];
  let waiters: Array<() => void> = [];

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    upstream = await startFakeUpstream();
    nodeA = await startTestGateway({ databaseUrl: database.url, env: { REDIS_URL: redisUrl! } });
    nodeB = await startTestGateway({ databaseUrl: database.url, env: { REDIS_URL: redisUrl! } });
    listener = new Redis(redisUrl!);
    await listener.subscribe('gw:providers.changed', `gw:${INTEGRATIONS_CHANGED}`);
    listener.on('message', (_channel: string, message: string) => {
      messages.push(message);
      for (const wake of waiters) wake();
      waiters = [];
    });
    integration = await insertIntegration(nodeA.gateway.database.db, cipher, {
      organisationId: nodeA.gateway.bootstrap.organisation.id,
      slug: 'shared-upstream',
      key: 'sk-first-key',
      global: true,
      configurations: { custom_host: upstream.baseUrl },
    });
  });

  after(() => closeAll(() => listener?.disconnect(), () => nodeA?.close(), () => nodeB?.close(), () => upstream?.close(), () => database?.drop()));

  /** Resolves once `count` announcements have crossed Redis. */
  async function announcementsSeen(count: number): Promise<void> {
    while (messages.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  }

  /** node B gets a bounded number of chances to apply an announcement that has crossed Redis */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      if (await check()) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.fail('node B never applied the change');
  }

  /** a chat request on `node` through `@slug`, with no provider key; its status and the key the upstream got */
  async function viaSlug(node: TestGateway, slug: string): Promise<{ status: number; sent: string | undefined }> {
    const since = upstream.requests.length;
    const response = await node.gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { 'x-gateway-api-key': node.adminKey, 'x-gateway-provider': `@${slug}`, 'content-type': 'application/json' },
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    const sent = upstream.requests.length > since ? upstream.requests.at(-1)!.headers.authorization : undefined;
    return { status: response.statusCode, sent };
  }

  test('a provider slug created on node A works on node B at once', async () => {
    const a = adminClient(nodeA.baseURL);
    assert.equal((await a('POST', '/providers', nodeA.adminKey, { name: 'Team', integration_id: integration.slug, slug: 'team' })).status, 200);
    assert.deepEqual(await viaSlug(nodeB, 'team'), { status: 200, sent: 'Bearer sk-first-key' });
  });

  test('a slug node B had found unknown works there once node A creates it', async () => {
    assert.equal((await viaSlug(nodeB, 'late')).status, 400, 'node B holds "late" as unknown');
    const seen = messages.length;
    const a = adminClient(nodeA.baseURL);
    assert.equal((await a('POST', '/providers', nodeA.adminKey, { name: 'Late', integration_id: integration.slug, slug: 'late' })).status, 200);
    assert.equal((await viaSlug(nodeA, 'late')).status, 200, 'node A sees its own change with the next request');
    await announcementsSeen(seen + 1);
    await eventually(async () => (await viaSlug(nodeB, 'late')).status === 200);
  });

  test('a virtual key rotated through node A is the key node B sends', async () => {
    const a = adminClient(nodeA.baseURL);
    const created = await a('POST', '/virtual-keys', nodeA.adminKey, { name: 'Rotating', provider: 'openai', key: 'sk-vk-before' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const slug = created.body.data.slug as string;
    const db = nodeA.gateway.database.db;
    const [row] = await db.select().from(providers).where(eq(providers.slug, slug));
    await db.update(integrations).set({ configurations: { custom_host: upstream.baseUrl } }).where(eq(integrations.id, row!.integrationId));
    await announceProviderChange(nodeA.gateway.kv);
    assert.deepEqual(await viaSlug(nodeB, slug), { status: 200, sent: 'Bearer sk-vk-before' }, 'node B holds the first key');
    const seen = messages.length;
    assert.equal((await a('PUT', `/virtual-keys/${slug}`, nodeA.adminKey, { key: 'sk-vk-after' })).status, 200);
    await announcementsSeen(seen + 1);
    await eventually(async () => (await viaSlug(nodeB, slug)).sent === 'Bearer sk-vk-after');
  });

  test('an integration key rewritten and announced on integrations.changed is the key node B sends', async () => {
    assert.equal((await viaSlug(nodeB, 'team')).sent, 'Bearer sk-first-key', 'node B holds the first key');
    await nodeA.gateway.database.db.update(integrations).set({ sealedKey: cipher.seal('sk-second-key') }).where(eq(integrations.id, integration.id));
    const seen = messages.length;
    await announceInvalidation(nodeA.gateway.kv, INTEGRATIONS_CHANGED);
    await announcementsSeen(seen + 1);
    await eventually(async () => (await viaSlug(nodeB, 'team')).sent === 'Bearer sk-second-key');
  });
});
