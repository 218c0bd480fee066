/**
 * Rate limits across nodes: two gateway PROCESSES (src/main.ts, as deployed) sharing the real PostgreSQL and Redis.
 * A policy of N admits exactly N requests under concurrent load spread over both nodes, and the upstream sees only
 * those; a key's inline limit holds the same way; a change made on one node applies on the other. Then Redis goes
 * away (a TCP proxy in front of it is shut) and comes back: requests pass meanwhile (the limits fail open, counted
 * in a metric), and the limits hold again afterwards with no restart. Needs TEST_DATABASE_URL and TEST_REDIS_URL.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { redisProxy, startNode, type Node } from '../helpers/gateway-process.ts';
import { startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '../helpers/gateway.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const skip = !databaseUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;

async function chat(node: { baseURL: string }, upstream: FakeUpstream, model: string, key = TEST_ADMIN_KEY, metadata?: Record<string, string>): Promise<number> {
  const response = await request(`${node.baseURL}/chat/completions`, {
    method: 'POST',
    headers: {
      'x-gateway-api-key': key,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': upstream.baseUrl,
      authorization: 'Bearer sk-client',
      'content-type': 'application/json',
      ...(metadata ? { 'x-gateway-metadata': JSON.stringify(metadata) } : {}),
    },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.body.dump();
  return response.statusCode;
}

const seen = (upstream: FakeUpstream, model: string) => upstream.requests.filter((recorded) => (recorded.json as { model?: string } | undefined)?.model === model).length;

/** `count` requests at once, alternating between the nodes; the statuses. */
function burst(nodes: Node[], upstream: FakeUpstream, model: string, count: number, key?: string, metadata?: Record<string, string>): Promise<number[]> {
  return Promise.all(Array.from({ length: count }, (_unused, index) => chat(nodes[index % nodes.length]!, upstream, model, key, metadata)));
}

const tally = (statuses: number[]) => ({ admitted: statuses.filter((status) => status === 200).length, refused: statuses.filter((status) => status === 429).length });

describe('rate limits on two gateway processes sharing PostgreSQL and Redis', { skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  let upstream: FakeUpstream;
  let nodes: Node[] = [];
  let listener: Redis;
  const announced: string[] = [];
  let waiters: Array<() => void> = [];

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    upstream = await startFakeUpstream();
    const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl! };
    nodes = await Promise.all([startNode(env), startNode(env)]);
    listener = new Redis(redisUrl!);
    await listener.subscribe('gw:rate-limits-policies.changed');
    listener.on('message', (_channel: string, message: string) => {
      announced.push(message);
      for (const wake of waiters) wake();
      waiters = [];
    });
  });

  after(async () => {
    listener?.disconnect();
    await closeAll(...nodes.map((node) => () => node.stop()), () => upstream?.close(), () => database?.drop());
  });

  test('an rpm policy of N admits exactly N of a concurrent burst over both nodes; the upstream sees only those', async () => {
    const admin = adminClient(nodes[0]!.baseURL);
    const created = await admin('POST', '/policies/rate-limits', TEST_ADMIN_KEY, { name: 'shared', conditions: [{ key: 'metadata.team', value: 'shared' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 12 });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const statuses = await burst(nodes, upstream, 'multi-node', 60, undefined, { team: 'shared' });
    assert.deepEqual(tally(statuses), { admitted: 12, refused: 48 });
    assert.equal(seen(upstream, 'multi-node'), 12);

    // raised on node 0: once the change has crossed Redis, node 1 admits the difference, and only that
    const announcedBefore = announced.length;
    assert.equal((await admin('PUT', `/policies/rate-limits/${created.body.id}`, TEST_ADMIN_KEY, { value: 17 })).status, 200);
    while (announced.length <= announcedBefore) await new Promise<void>((resolve) => waiters.push(resolve));
    let admitted = 0;
    for (let attempt = 0; attempt < 50 && admitted === 0; attempt += 1) {
      // a refused request takes nothing: trying until node 1 has dropped its copy costs no capacity
      if ((await chat(nodes[1]!, upstream, 'multi-node', TEST_ADMIN_KEY, { team: 'shared' })) === 200) admitted += 1;
      else await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(admitted, 1, 'node 1 applied the raised value');
    assert.deepEqual(tally(await burst(nodes, upstream, 'multi-node', 20, undefined, { team: 'shared' })), { admitted: 4, refused: 16 });
    assert.equal(seen(upstream, 'multi-node'), 17);
  });

  test('an API key\'s inline limit holds across both nodes', async () => {
    const admin = adminClient(nodes[1]!.baseURL);
    const key = await admin('POST', '/api-keys/organisation/service', TEST_ADMIN_KEY, { name: 'limited', scopes: ['completions.write'], rate_limits: [{ type: 'requests', unit: 'rph', value: 9 }] });
    assert.equal(key.status, 200, JSON.stringify(key.body));
    assert.deepEqual(tally(await burst(nodes, upstream, 'multi-node-key', 30, key.body.key)), { admitted: 9, refused: 21 });
    assert.equal(seen(upstream, 'multi-node-key'), 9);
  });
});

describe('when Redis is unreachable', { skip }, () => {
  let gateway: TestGateway;
  let upstream: FakeUpstream;
  let proxy: Awaited<ReturnType<typeof redisProxy>>;
  let database: { url: string; drop(): Promise<void> };

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    upstream = await startFakeUpstream();
    proxy = await redisProxy(new URL(redisUrl!));
    gateway = await startTestGateway({ databaseUrl: database.url, env: { REDIS_URL: proxy.url } });
  });

  after(async () => {
    await closeAll(() => gateway?.close(), () => proxy?.shut().catch(() => {}), () => upstream?.close(), () => database?.drop());
  });

  test('requests pass (fail open, counted), and the limits hold again once Redis is back, without a restart', async () => {
    const admin = adminClient(gateway.baseURL);
    const created = await admin('POST', '/policies/rate-limits', TEST_ADMIN_KEY, { conditions: [{ key: 'metadata.team', value: 'outage' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 2 });
    assert.equal(created.status, 200);
    const meta = { team: 'outage' };
    assert.deepEqual([await chat(gateway, upstream, 'outage', undefined, meta), await chat(gateway, upstream, 'outage', undefined, meta)], [200, 200]);
    assert.equal(await chat(gateway, upstream, 'outage', undefined, meta), 429);

    await proxy.shut();
    assert.equal(await chat(gateway, upstream, 'outage', undefined, meta), 200, 'the counters cannot be reached: the limit fails open');
    const metrics = await (await request(`${gateway.origin}/metrics`)).body.text();
    assert.match(metrics, /gateway_rate_limit_store_failures_total\{outcome="open"\} [1-9]/);

    await proxy.open();
    // ioredis reconnects in the background, and the limiter tries the store again after its cool-down: poll, bounded
    let status = 200;
    for (let attempt = 0; attempt < 100 && status === 200; attempt += 1) {
      status = await chat(gateway, upstream, 'outage', undefined, meta);
      if (status === 200) await sleep(100);
    }
    assert.equal(status, 429, 'the counter, still in Redis, holds again');
  });
});
