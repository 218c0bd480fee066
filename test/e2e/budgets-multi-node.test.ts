/**
 * Budgets across nodes: two gateway PROCESSES (src/main.ts, as deployed) sharing the real PostgreSQL and Redis. A
 * token budget stops both nodes within the documented bound: a concurrent burst over both admits what fits, and the
 * settled usage (read from Redis itself) stays within the limit when the estimates hold, within the limit plus the
 * excess of the requests in flight when they do not. Then Redis goes away (a TCP proxy in front of it is shut) and
 * comes back: budgets refuse meanwhile (they fail closed, counted in a metric), and count again afterwards with no
 * restart. Needs TEST_DATABASE_URL and TEST_REDIS_URL.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { DEFAULT_COMPLETION_TOKENS } from '../../src/limits/budgets-estimate.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { redisProxy, startNode, type Node } from '../helpers/gateway-process.ts';
import { customHostHeaders, startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '../helpers/gateway.ts';
import { startUsageUpstream, type UsageUpstream } from './budgets-upstream.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const skip = !databaseUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;

const BODY = { model: 'fake-model', messages: [{ role: 'user', content: 'hi' }] };

async function chat(node: { baseURL: string }, upstream: UsageUpstream, metadata: Record<string, string>, extra: Record<string, unknown>): Promise<number> {
  const response = await request(`${node.baseURL}/chat/completions`, {
    method: 'POST',
    headers: customHostHeaders(upstream.baseUrl, { 'x-gateway-metadata': JSON.stringify(metadata) }),
    body: JSON.stringify({ ...BODY, ...extra }),
  });
  await response.body.dump();
  return response.statusCode;
}

/** What the gateway reserves for one of these requests: a token per 4 bytes of the body, plus the completion cap. */
const estimateOf = (extra: Record<string, unknown>, cap: number) => Math.ceil(Buffer.byteLength(JSON.stringify({ ...BODY, ...extra })) / 4) + cap;

/**
 * `count` requests at once, alternating between the nodes; the upstream holds the admitted ones until every request
 * is either refused or there, so all admitted requests are in flight together. The statuses.
 */
async function burst(nodes: Node[], upstream: UsageUpstream, count: number, metadata: Record<string, string>, extra: Record<string, unknown>): Promise<number[]> {
  const settled = new EventEmitter();
  let refused = 0;
  const base = upstream.received;
  upstream.hold = true;
  const requests = Array.from({ length: count }, (_unused, index) =>
    chat(nodes[index % nodes.length]!, upstream, metadata, extra).then((status) => {
      if (status !== 200) {
        refused += 1;
        settled.emit('refused');
      }
      return status;
    }));
  await new Promise<void>((resolve) => {
    const check = () => {
      if (refused + upstream.received - base < count) return;
      upstream.arrivals.off('request', check);
      settled.off('refused', check);
      resolve();
    };
    upstream.arrivals.on('request', check);
    settled.on('refused', check);
    check();
  });
  upstream.release();
  return Promise.all(requests);
}

const tally = (statuses: number[]) => ({ admitted: statuses.filter((status) => status === 200).length, refused: statuses.filter((status) => status === 429).length });

describe('budgets on two gateway processes sharing PostgreSQL and Redis', { skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  let upstream: UsageUpstream;
  let nodes: Node[] = [];
  let redis: Redis;
  let listener: Redis;
  let announced = 0;
  const announcements = new EventEmitter();

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    upstream = await startUsageUpstream();
    const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl! };
    nodes = await Promise.all([startNode(env), startNode(env)]);
    redis = new Redis(redisUrl!);
    listener = new Redis(redisUrl!);
    await listener.subscribe('gw:usage-limits-policies.changed');
    listener.on('message', () => {
      announced += 1;
      announcements.emit('message');
    });
  });

  after(async () => {
    redis?.disconnect();
    listener?.disconnect();
    await closeAll(...nodes.map((node) => () => node.stop()), () => upstream?.close(), () => database?.drop());
  });

  /** a cumulative token policy per user of a fresh team, created on node 0; its id and the team */
  async function teamPolicy(creditLimit: number): Promise<{ id: string; team: string }> {
    const team = `team-${randomUUID()}`;
    const seen = announced;
    const body = { conditions: [{ key: 'metadata._team', value: team }], group_by: [{ key: 'metadata._user' }], type: 'tokens', credit_limit: creditLimit };
    const created = await adminClient(nodes[0]!.baseURL)('POST', '/policies/usage-limits', TEST_ADMIN_KEY, body);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    // the change has crossed Redis: node 1, which may hold the organisation's policies from an earlier test, drops them
    while (announced === seen) await new Promise((resolve) => announcements.once('message', resolve));
    // this listener may hear it before node 1's subscriber has handled it: one round trip to each node lets each
    // event loop turn over the message already in its socket (a CI run once sent a burst to node 1 before that)
    await Promise.all(nodes.map(async (node) => (await request(`${node.origin}/health`)).body.dump()));
    return { id: created.body.id, team };
  }

  /** the settled usage and the reservations in flight, as Redis holds them (the gateways' default `gw:` prefix) */
  async function counter(policyId: string, valueKey: string): Promise<{ used: number; reserved: number }> {
    const [used, reserved] = await redis.hmget(`gw:budget:p:${policyId}:all:${valueKey}`, 'u', 'r');
    return { used: Number(used ?? 0), reserved: Number(reserved ?? 0) };
  }

  test('a token budget stops both nodes; estimates that hold: the settled usage never passes the limit', async () => {
    const { id, team } = await teamPolicy(600);
    upstream.usage = { prompt: 10, completion: 5 };
    const extra = { max_tokens: 20 };
    const estimate = estimateOf(extra, 20);
    const metadata = { _team: team, _user: 'shared' };
    const first = tally(await burst(nodes, upstream, 40, metadata, extra));
    assert.deepEqual(first, { admitted: Math.floor(600 / estimate), refused: 40 - Math.floor(600 / estimate) });
    // one node at a time until each refuses: the budget stops both, wherever the requests land
    const refusedBy = new Set<number>();
    for (let index = 0; refusedBy.size < 2 && index < 200; index += 1) {
      if ((await chat(nodes[index % 2]!, upstream, metadata, extra)) === 429) refusedBy.add(index % 2);
    }
    assert.equal(refusedBy.size, 2, 'both nodes refuse');
    const { used, reserved } = await counter(id, 'metadata._user:shared');
    assert.equal(reserved, 0, 'every reservation settled');
    assert.ok(used <= 600, `settled ${used} of 600`);
    assert.ok(used + estimate > 600, 'refused only once a reservation no longer fits');
  });

  test('answers that use more than their estimate: the overshoot across both nodes stays within the requests\' excess', async () => {
    const { id, team } = await teamPolicy(8000);
    const extra = {};
    const estimate = estimateOf(extra, DEFAULT_COMPLETION_TOKENS);
    const used = 10 + DEFAULT_COMPLETION_TOKENS + 300;
    upstream.usage = { prompt: 10, completion: DEFAULT_COMPLETION_TOKENS + 300 };
    const metadata = { _team: team, _user: 'greedy' };
    const { admitted } = tally(await burst(nodes, upstream, 20, metadata, extra));
    assert.equal(admitted, Math.floor(8000 / estimate));
    const state = await counter(id, 'metadata._user:greedy');
    assert.equal(state.used, admitted * used);
    assert.ok(state.used - 8000 <= admitted * (used - estimate), `overshoot ${state.used - 8000} within ${admitted} x ${used - estimate}`);
    assert.equal(await chat(nodes[0]!, upstream, metadata, extra), 429);
    assert.equal(await chat(nodes[1]!, upstream, metadata, extra), 429);
  });
});

describe('budgets when Redis is unreachable', { skip }, () => {
  let gateway: TestGateway;
  let upstream: UsageUpstream;
  let proxy: Awaited<ReturnType<typeof redisProxy>>;
  let database: { url: string; drop(): Promise<void> };

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    upstream = await startUsageUpstream();
    proxy = await redisProxy(new URL(redisUrl!));
    gateway = await startTestGateway({ databaseUrl: database.url, env: { REDIS_URL: proxy.url } });
  });

  after(async () => {
    await closeAll(() => gateway?.close(), () => proxy?.shut().catch(() => {}), () => upstream?.close(), () => database?.drop());
  });

  test('requests under a budget are refused (fail closed, 503, counted); the budget counts again once Redis is back, without a restart', async () => {
    const admin = adminClient(gateway.baseURL);
    const team = `outage-${randomUUID()}`;
    const created = await admin('POST', '/policies/usage-limits', TEST_ADMIN_KEY, { conditions: [{ key: 'metadata._team', value: team }], group_by: [{ key: 'metadata._user' }], type: 'tokens', credit_limit: 100 });
    assert.equal(created.status, 200);
    const metadata = { _team: team, _user: 'ada' };
    upstream.usage = { prompt: 30, completion: 20 };
    const extra = { max_tokens: 5 };
    assert.equal(await chat(gateway, upstream, metadata, extra), 200);
    const unbudgeted = { _team: 'no-budget', _user: 'ada' };

    await proxy.shut();
    assert.equal(await chat(gateway, upstream, metadata, extra), 503, 'the counters cannot be reached: the budget fails closed');
    assert.equal(await chat(gateway, upstream, unbudgeted, extra), 200, 'a request no budget applies to is not affected');
    const metrics = await (await request(`${gateway.origin}/metrics`)).body.text();
    assert.match(metrics, /gateway_budget_store_failures_total\{outcome="closed"\} [1-9]/);

    await proxy.open();
    // ioredis reconnects in the background, and the engine tries the store again after its cool-down: poll, bounded
    let status = 503;
    for (let attempt = 0; attempt < 100 && status === 503; attempt += 1) {
      status = await chat(gateway, upstream, metadata, extra);
      if (status === 503) await sleep(100);
    }
    assert.equal(status, 200, 'the budget counts again');
    assert.equal(await chat(gateway, upstream, metadata, extra), 429, 'and holds: 100 of 100 used');
  });
});
