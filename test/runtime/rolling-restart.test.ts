/**
 * Two gateway PROCESSES (src/main.ts, as deployed) on the real PostgreSQL and Redis, behind a load balancer that
 * polls /ready and never retries (test/helpers/load-balancer.ts). A key, a saved config and a rate-limit policy
 * created through node 1 are used through node 2. Then a rolling restart under steady load: node 1 gets SIGTERM,
 * drains, exits, starts again on its port and comes back into rotation, then node 2 the same; every request of the
 * load (JSON and streamed, some slow enough to be in flight at the SIGTERM) is answered 200 and every stream is
 * complete. Needs TEST_DATABASE_URL and TEST_REDIS_URL; skipped otherwise.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startNode, type Node } from '../helpers/gateway-process.ts';
import { TEST_ADMIN_KEY } from '../helpers/gateway.ts';
import { startLoadBalancer, type LoadBalancer } from '../helpers/load-balancer.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const skip = !databaseUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;

/** concurrent request loops through the balancer */
const LOOPS = 4;
/** requests that must be answered while the two nodes restart (~2 x (drain + exit + start)); a modest floor */
const MIN_DURING_RESTARTS = 100;

describe('two gateway processes behind a load balancer', { skip, timeout: 120_000 }, () => {
  let database: { url: string; drop(): Promise<void> };
  let upstream: FakeUpstream;
  let balancer: LoadBalancer;
  const nodes: Node[] = [];
  let env: Record<string, string>;
  /** created through node 1 in the first test; the load uses them */
  let key: string;
  let configSlug: string;

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    upstream = await startFakeUpstream();
    // drain longer than the balancer's 100 ms poll, so it has taken the node out before the port closes
    env = { DATABASE_URL: database.url, REDIS_URL: redisUrl!, GATEWAY_SHUTDOWN_DRAIN_MS: '500', GATEWAY_SHUTDOWN_TIMEOUT_MS: '10000' };
    nodes.push(...(await Promise.all([startNode(env), startNode(env)])));
    balancer = await startLoadBalancer(nodes.map((node) => node.origin), { pollMs: 100 });
    await Promise.all(balancer.backends.map((backend) => balancer.whenHealthy(backend)));
  });

  after(() => closeAll(() => balancer?.close(), ...nodes.map((node) => () => node.stop()), () => upstream?.close(), () => database?.drop()));

  async function chat(baseURL: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return request(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': key, 'x-gateway-config': configSlug, authorization: 'Bearer sk-client', 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
  }

  test('a key, a config and a rate limit created through node 1 are used through node 2', async () => {
    const admin = adminClient(nodes[0]!.baseURL);
    const created = await admin('POST', '/api-keys/organisation/service', TEST_ADMIN_KEY, { name: 'rolling', scopes: ['completions.write'] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    key = created.body.key;
    // no provider header on the requests below: only the config can send them to the fake upstream
    const config = await admin('POST', '/configs', TEST_ADMIN_KEY, { name: 'Rolling', config: { provider: 'openai', custom_host: upstream.baseUrl, override_params: { temperature: 0.25 } } });
    assert.equal(config.status, 200, JSON.stringify(config.body));
    configSlug = config.body.data.slug;
    const policy = await admin('POST', '/policies/rate-limits', TEST_ADMIN_KEY, { name: 'capped', conditions: [{ key: 'metadata.team', value: 'capped' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 3 });
    assert.equal(policy.status, 200, JSON.stringify(policy.body));

    const since = upstream.requests.length;
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const response = await chat(nodes[1]!.baseURL, { model: 'cross-node' }, { 'x-gateway-metadata': JSON.stringify({ team: 'capped' }) });
      await response.body.dump();
      statuses.push(response.statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429], 'node 2 knows the key, and counts the policy of 3 per minute');
    const sent = upstream.requests.slice(since).map((recorded) => recorded.json as { model?: string; temperature?: number });
    assert.deepEqual(sent.map(({ model, temperature }) => ({ model, temperature })), Array.from({ length: 3 }, () => ({ model: 'cross-node', temperature: 0.25 })), 'the config routed them, with its override_params');

    const unrelated = await chat(nodes[1]!.baseURL, { model: 'cross-node' });
    assert.equal(unrelated.statusCode, 200, 'the policy applies only where its condition matches');
    await unrelated.body.dump();
  });

  test('a rolling restart of both nodes under steady load fails no request', async (t) => {
    assert.ok(key && configSlug, 'the first test created the key and the config');
    const failures: string[] = [];
    /** completion times of the requests answered whole */
    const answered: number[] = [];
    let running = true;

    /** one request: 200 and a whole answer, else a failure described */
    async function once(loop: number, sequence: number): Promise<void> {
      const stream = (loop + sequence) % 2 === 1;
      // one in three slow enough to be in flight when a node gets its SIGTERM (a stream's rest comes after 150 ms)
      const model = sequence % 3 === 0 ? 'slow-150' : 'steady';
      try {
        const response = await chat(balancer.baseURL, { model, stream });
        const text = await response.body.text();
        if (response.statusCode !== 200) failures.push(`${response.statusCode} ${text.slice(0, 200)}`);
        else if (stream && !(text.includes('"finish_reason":"stop"') && text.endsWith('data: [DONE]\n\n'))) failures.push(`incomplete stream: ${text.slice(-200)}`);
        else if (!stream && (JSON.parse(text) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content !== 'Hello world') failures.push(`unexpected answer: ${text.slice(0, 200)}`);
        else answered.push(performance.now());
      } catch (error) {
        failures.push(`${stream ? 'stream' : 'request'} failed: ${String(error)}`);
      }
    }
    const loops = Array.from({ length: LOOPS }, async (_unused, loop) => {
      for (let sequence = 0; running && failures.length < 100; sequence += 1) await once(loop, sequence);
    });

    /** resolves once `count` more requests have been answered */
    const answeredMore = async (count: number) => {
      const target = answered.length + count;
      for (let wait = 0; wait < 200 && answered.length < target && failures.length === 0; wait += 1) await sleep(25);
    };

    let restartsBegan = 0;
    let restartsEnded = 0;
    try {
      await answeredMore(20);
      restartsBegan = performance.now();
      for (const index of [0, 1]) {
        const backend = balancer.backends[index]!;
        const old = nodes[index]!;
        const { removed, restored } = backend;
        await old.stop(); // SIGTERM, resolves once the process has exited
        assert.equal(backend.removed, removed + 1, `the balancer took node ${index + 1} out while it drained`);
        nodes[index] = await startNode(env, { port: old.port });
        await balancer.whenHealthy(backend);
        assert.equal(backend.restored, restored + 1);
        const served = backend.served;
        // the restarted node takes its share before the other one goes
        for (let wait = 0; wait < 200 && backend.served < served + 10; wait += 1) await sleep(25);
        assert.ok(backend.served >= served + 10, `node ${index + 1} serves again after its restart`);
      }
      restartsEnded = performance.now();
      await answeredMore(20);
    } finally {
      // stopped on a failed assertion too: the loops would spin on refused connections once the nodes stop
      running = false;
      await Promise.all(loops);
    }

    assert.deepEqual(failures, [], 'no request failed');
    assert.equal(balancer.refused, 0, 'the balancer always had a healthy node to send to, and no connection failed');
    const during = answered.filter((at) => at >= restartsBegan && at <= restartsEnded).length;
    const seconds = (restartsEnded - restartsBegan) / 1000;
    t.diagnostic(`${answered.length} requests answered, ${during} during the restarts (${seconds.toFixed(1)} s)`);
    assert.ok(during >= MIN_DURING_RESTARTS, `${during} requests answered during the restarts`);
  });
});
