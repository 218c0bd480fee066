/**
 * Two gateway nodes sharing PostgreSQL and Redis: a key revoked or re-scoped through one node stops working on the
 * other at once (cross-node invalidation over Redis pub/sub), not after the cache TTL. Needs TEST_DATABASE_URL
 * and TEST_REDIS_URL (CI sets both); skipped otherwise.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { adminClient } from '../helpers/admin-client.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

describe('two nodes', { skip: !databaseUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false }, () => {
  let database: { url: string; drop(): Promise<void> };
  let nodeA: TestGateway;
  let nodeB: TestGateway;
  let listener: Redis;
  const messages: string[] = [];
  let waiters: Array<() => void> = [];

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    nodeA = await startTestGateway({ databaseUrl: database.url, env: { REDIS_URL: redisUrl! } });
    nodeB = await startTestGateway({ databaseUrl: database.url, env: { REDIS_URL: redisUrl! } });
    listener = new Redis(redisUrl!);
    await listener.subscribe('gw:auth.invalidate');
    listener.on('message', (_channel: string, message: string) => {
      messages.push(message);
      for (const wake of waiters) wake();
      waiters = [];
    });
  });

  after(async () => {
    listener.disconnect();
    await nodeA.close();
    await nodeB.close();
    await database.drop();
  });

  /** Resolves once an invalidation has crossed Redis; then node B gets a bounded number of chances to apply it. */
  async function invalidationSeen(count: number): Promise<void> {
    while (messages.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  }

  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      if (await check()) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.fail('node B never applied the invalidation');
  }

  test('a key deleted on node A stops working on node B without waiting for the cache TTL', async () => {
    const a = adminClient(nodeA.baseURL);
    const b = adminClient(nodeB.baseURL);
    const created = await a('POST', '/api-keys/organisation/service', nodeA.adminKey, { name: 'roaming', scopes: ['organisation_service_api_keys.list'] });
    assert.equal(created.status, 200);
    assert.equal((await b('GET', '/api-keys', created.body.key)).status, 200, 'node B caches the key');
    const seen = messages.length;
    assert.equal((await a('DELETE', `/api-keys/${created.body.id}`, nodeA.adminKey)).status, 200);
    await invalidationSeen(seen + 1);
    await eventually(async () => (await b('GET', '/api-keys', created.body.key)).status === 401);
  });

  test('scopes removed on node A are gone on node B', async () => {
    const a = adminClient(nodeA.baseURL);
    const b = adminClient(nodeB.baseURL);
    const created = await a('POST', '/api-keys/organisation/service', nodeA.adminKey, { name: 'rescoped', scopes: ['organisation_service_api_keys.list', 'completions.write'] });
    assert.equal((await b('GET', '/api-keys', created.body.key)).status, 200);
    const seen = messages.length;
    assert.equal((await a('PUT', `/api-keys/${created.body.id}`, nodeA.adminKey, { scopes: ['completions.write'] })).status, 200);
    await invalidationSeen(seen + 1);
    await eventually(async () => (await b('GET', '/api-keys', created.body.key)).status === 403);
  });
});
