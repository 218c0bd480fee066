/**
 * Saved providers on two gateway PROCESSES (src/main.ts, as deployed) sharing the real PostgreSQL and Redis: a
 * provider slug created through node A works through node B at once; an integration credential rotated through
 * node A's admin API is the one node B sends within a second; and a slug re-pointed at another integration on node
 * A sends that integration's credential through node B within a second. The fake upstream records what each request
 * carried. Needs TEST_DATABASE_URL and TEST_REDIS_URL; skipped otherwise. (test/admin/providers-multi-node.test.ts
 * checks the same with two gateways in one process.)
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { INTEGRATIONS_CHANGED } from '../../src/domain/providers/saved-providers.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startNode, type Node } from '../helpers/gateway-process.ts';
import { TEST_ADMIN_KEY } from '../helpers/gateway.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const skip = !databaseUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;
/** the bound: a change made on one node is seen on the others within a second */
const WITHIN_MS = 1_000;

describe('saved providers on two gateway processes', { skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  let upstream: FakeUpstream;
  let nodeA: Node;
  let nodeB: Node;
  let listener: Redis;
  let announced = 0;

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    upstream = await startFakeUpstream();
    const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl! };
    [nodeA, nodeB] = await Promise.all([startNode(env), startNode(env)]);
    listener = new Redis(redisUrl!);
    await listener.subscribe('gw:providers.changed', `gw:${INTEGRATIONS_CHANGED}`);
    listener.on('message', () => (announced += 1));
  });

  after(() => closeAll(() => listener?.disconnect(), () => nodeA?.stop(), () => nodeB?.stop(), () => upstream?.close(), () => database?.drop()));

  async function ok(node: Node, method: string, path: string, body?: unknown) {
    const response = await adminClient(node.baseURL)(method, path, TEST_ADMIN_KEY, body);
    assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
    return response.body;
  }

  /** a chat request through `node` to `@slug`, with no provider key; its status and the credential the upstream got */
  async function viaSlug(node: Node, slug: string): Promise<{ status: number; sent: string | undefined }> {
    const since = upstream.requests.length;
    const response = await request(`${node.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': TEST_ADMIN_KEY, 'x-gateway-provider': `@${slug}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.body.dump();
    const sent = upstream.requests.length > since ? upstream.requests.at(-1)!.headers.authorization : undefined;
    return { status: response.statusCode, sent };
  }

  /** an organisation integration pointing at the fake upstream, with its default provider `@<slug>` */
  async function integration(key: string): Promise<string> {
    const slug = `int-${randomUUID().slice(0, 8)}`;
    await ok(nodeA, 'POST', '/integrations', { name: slug, slug, ai_provider_id: 'openai', key, configurations: { custom_host: upstream.baseUrl } });
    // created with its default provider, which enables it for the admin key's workspace, where the tests' slugs live
    return slug;
  }

  /**
   * Node B's requests from the moment node A answered the change: the first one that carries `expected`, and how long
   * after the answer it was sent. Each poll is a real request; the change must show within the bound.
   */
  async function seenOnB(slug: string, expected: string, since: number): Promise<number> {
    let last: { status: number; sent: string | undefined } | undefined;
    while (performance.now() - since < WITHIN_MS) {
      last = await viaSlug(nodeB, slug);
      if (last.sent === expected) return performance.now() - since;
    }
    assert.fail(`node B still sent ${JSON.stringify(last)} ${WITHIN_MS} ms after node A answered, not ${expected}`);
  }

  test('a provider slug created through node A works through node B at once', async () => {
    const integrationSlug = await integration('sk-first');
    const slug = `team-${randomUUID().slice(0, 8)}`;
    await ok(nodeA, 'POST', '/providers', { name: 'Team', slug, integration_id: integrationSlug });
    assert.deepEqual(await viaSlug(nodeB, slug), { status: 200, sent: 'Bearer sk-first' });
    assert.deepEqual(await viaSlug(nodeA, slug), { status: 200, sent: 'Bearer sk-first' });
  });

  test('an integration credential rotated through node A is the one node B sends, within a second', async () => {
    const integrationSlug = await integration('sk-before');
    const slug = `rotating-${randomUUID().slice(0, 8)}`;
    await ok(nodeA, 'POST', '/providers', { name: 'Rotating', slug, integration_id: integrationSlug });
    // node B holds the record and its opened credential from now on
    assert.deepEqual(await viaSlug(nodeB, slug), { status: 200, sent: 'Bearer sk-before' });
    assert.deepEqual(await viaSlug(nodeB, slug), { status: 200, sent: 'Bearer sk-before' }, 'served from node B\'s cache');
    const seen = announced;
    await ok(nodeA, 'PUT', `/integrations/${integrationSlug}`, { key: 'sk-after' });
    const answered = performance.now();
    const took = await seenOnB(slug, 'Bearer sk-after', answered);
    assert.ok(announced > seen, 'the change was announced over Redis');
    assert.ok(took < WITHIN_MS, `seen after ${Math.round(took)} ms`);
    assert.deepEqual(await viaSlug(nodeA, slug), { status: 200, sent: 'Bearer sk-after' }, 'and node A sends it too');
    assert.deepEqual(await viaSlug(nodeB, slug), { status: 200, sent: 'Bearer sk-after' }, 'never the old one again');
  });

  test('a slug re-pointed at another integration through node A sends that integration\'s credential through node B, within a second', async () => {
    const first = await integration('sk-team-one');
    const second = await integration('sk-team-two');
    const slug = `moving-${randomUUID().slice(0, 8)}`;
    await ok(nodeA, 'POST', '/providers', { name: 'Moving', slug, integration_id: first });
    assert.deepEqual(await viaSlug(nodeB, slug), { status: 200, sent: 'Bearer sk-team-one' });
    // a provider's integration is fixed once created: the slug moves by being deleted and created again
    await ok(nodeA, 'DELETE', `/providers/${slug}`);
    await ok(nodeA, 'POST', '/providers', { name: 'Moving', slug, integration_id: second });
    const took = await seenOnB(slug, 'Bearer sk-team-two', performance.now());
    assert.ok(took < WITHIN_MS, `seen after ${Math.round(took)} ms`);
  });
});
