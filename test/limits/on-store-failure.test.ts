/**
 * `on_store_failure` as the admin API sets it, end to end: one gateway whose Redis sits behind a TCP proxy the test
 * shuts and opens. While Redis cannot be reached, a policy set `closed` answers 503 and one set `open` lets the
 * request through, for rate limits (open by default) and usage limits (closed by default) alike; a PUT that flips
 * the choice applies from the next outage. Needs TEST_REDIS_URL (the in-process store cannot fail).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { startUsageUpstream, type UsageUpstream } from '../e2e/budgets-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { redisProxy } from '../helpers/gateway-process.ts';
import { startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '../helpers/gateway.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const CHANNELS = ['gw:rate-limits-policies.changed', 'gw:usage-limits-policies.changed'];

describe('on_store_failure, chosen per policy through the admin API', { skip: redisUrl ? false : 'needs TEST_REDIS_URL' }, () => {
  let gateway: TestGateway;
  let upstream: UsageUpstream;
  let proxy: Awaited<ReturnType<typeof redisProxy>>;
  let listener: Redis;
  let announced = 0;
  const run = randomUUID().slice(0, 8);
  const team = (name: string) => `${name}-${run}`;

  before(async () => {
    upstream = await startUsageUpstream();
    proxy = await redisProxy(new URL(redisUrl!));
    gateway = await startTestGateway({ env: { REDIS_URL: proxy.url } });
    listener = new Redis(redisUrl!);
    await listener.subscribe(...CHANNELS);
    listener.on('message', () => (announced += 1));
  });

  after(() => closeAll(() => listener?.disconnect(), () => gateway?.close(), () => proxy?.shut().catch(() => {}), () => upstream?.close()));

  async function chat(teamName: string): Promise<number> {
    const response = await request(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: {
        'x-gateway-api-key': TEST_ADMIN_KEY,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': upstream.baseUrl,
        'x-gateway-metadata': JSON.stringify({ team: teamName, _user: 'ada' }),
        authorization: 'Bearer sk-client',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
    });
    await response.body.dump();
    return response.statusCode;
  }

  async function ok(method: string, path: string, body?: unknown) {
    const response = await adminClient(gateway.baseURL)(method, path, TEST_ADMIN_KEY, body);
    assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
    return response.body;
  }

  /** the statuses of one request per team, in order */
  const statuses = async (teams: string[]) => {
    const found: number[] = [];
    for (const name of teams) found.push(await chat(team(name)));
    return found;
  };

  /** Redis back: ioredis reconnects in the background and the limits retry after their cool-down (poll, bounded). */
  async function recovered(): Promise<void> {
    await proxy.open();
    let status = 503;
    for (let attempt = 0; attempt < 100 && status === 503; attempt += 1) {
      status = (await statuses(['rate-closed', 'usage-closed'])).every((found) => found === 200) ? 200 : 503;
      if (status === 503) await sleep(100);
    }
    assert.equal(status, 200, 'the limits count again once Redis is back');
  }

  test('while Redis is down: `closed` policies answer 503, `open` ones let requests through; a PUT flips it', async () => {
    const rate = { group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 100_000 };
    const usage = { group_by: [{ key: 'metadata._user' }], type: 'tokens', credit_limit: 10_000_000 };
    const on = (name: string) => [{ key: 'metadata.team', value: team(name) }];
    // every policy exists before the first request loads the organisation's policies
    const ids = {
      rateClosed: (await ok('POST', '/policies/rate-limits', { ...rate, conditions: on('rate-closed'), on_store_failure: 'closed' })).id,
      rateOpen: (await ok('POST', '/policies/rate-limits', { ...rate, conditions: on('rate-open') })).id,
      usageClosed: (await ok('POST', '/policies/usage-limits', { ...usage, conditions: on('usage-closed') })).id,
      usageOpen: (await ok('POST', '/policies/usage-limits', { ...usage, conditions: on('usage-open'), on_store_failure: 'open' })).id,
    };
    const teams = ['rate-closed', 'rate-open', 'usage-closed', 'usage-open', 'no-policy'];
    assert.deepEqual(await statuses(teams), [200, 200, 200, 200, 200], 'Redis up: every request passes');

    await proxy.shut();
    assert.deepEqual(await statuses(teams), [503, 200, 503, 200, 200], 'rate limits open by default, budgets closed by default, each as set');
    await recovered();

    const seen = announced;
    await ok('PUT', `/policies/rate-limits/${ids.rateClosed}`, { on_store_failure: 'open' });
    await ok('PUT', `/policies/rate-limits/${ids.rateOpen}`, { on_store_failure: 'closed' });
    await ok('PUT', `/policies/usage-limits/${ids.usageClosed}`, { on_store_failure: 'open' });
    await ok('PUT', `/policies/usage-limits/${ids.usageOpen}`, { on_store_failure: 'closed' });
    // the node drops its policies when the announcement comes back over Redis: wait for all four to have crossed it
    while (announced < seen + 4) await new Promise((resolve) => listener.once('message', resolve));
    assert.deepEqual(await statuses(teams), [200, 200, 200, 200, 200]);

    await proxy.shut();
    assert.deepEqual(await statuses(teams), [200, 503, 200, 503, 200], 'each policy now does what its PUT said');
    const metrics = await (await request(`${gateway.origin}/metrics`)).body.text();
    assert.match(metrics, /gateway_rate_limit_store_failures_total\{outcome="closed"\} [1-9]/);
    assert.match(metrics, /gateway_budget_store_failures_total\{outcome="open"\} [1-9]/);
    await recovered();
  });
});
