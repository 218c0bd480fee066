/**
 * Redis stopped and started again mid-load, as docs/operations.md ("When PostgreSQL or Redis is away") says it goes.
 * Two gateway PROCESSES on a fresh PostgreSQL database and on a PRIVATE redis-server of this file (the machine's
 * Redis is shared with other test files running in parallel, so it is never stopped), under steady load on a
 * cached config. The redis-server process is stopped (SIGTERM), the load goes on for a few seconds, and it is
 * started again on the same port, empty (no persistence). Meanwhile: every request of the load succeeds, its cache
 * lookups are misses said in x-gateway-warnings; a rate limit fails open by default and a policy set `closed`
 * answers 503; /ready answers 503; the failures are counted in the metrics and logged. Afterwards, with no restart
 * of either node: /ready is 200, cache hits return, the limits count again (from zero: the restarted Redis lost its
 * counters), and a policy change made on one node reaches the other over the re-subscribed pub/sub.
 * Needs TEST_DATABASE_URL (and the redis-server binary); skipped otherwise.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { freePort, startNode, type Node } from '../helpers/gateway-process.ts';
import { TEST_ADMIN_KEY } from '../helpers/gateway.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
const skip = !databaseUrl ? 'needs TEST_DATABASE_URL' : !hasRedisServer ? 'needs the redis-server binary' : false;

const CACHE_UNAVAILABLE = 'response cache skipped: its store is unavailable';
/** how long the load runs with Redis stopped */
const OUTAGE_MS = 3_000;
/** the `open` policy's requests per minute */
const OPEN_LIMIT = 4;

/** A redis-server of this file's own, in its own process group; resolves once it accepts connections. */
async function startRedis(port: number): Promise<{ stop(): Promise<void> }> {
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', () => reject(new Error(`redis-server exited: ${output}`)));
  });
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

const metric = (text: string, name: string, labels: string) => Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);

describe('Redis stopped and started again under load', { skip, timeout: 120_000 }, () => {
  let database: { url: string; drop(): Promise<void> };
  let upstream: FakeUpstream;
  let redisPort: number;
  let redis: { stop(): Promise<void> } | undefined;
  const nodes: Node[] = [];
  const logs = ['', ''];

  before(async () => {
    database = await createPostgresDatabase(databaseUrl!);
    upstream = await startFakeUpstream();
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    const env = { DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${redisPort}`, LOG_LEVEL: 'warn' };
    nodes.push(...(await Promise.all([0, 1].map((index) => startNode(env, { onStdout: (text) => (logs[index] += text) })))));
  });

  after(() => closeAll(...nodes.map((node) => () => node.stop()), () => redis?.stop(), () => upstream?.close(), () => database?.drop()));

  const cachedConfig = () => JSON.stringify({ provider: 'openai', custom_host: upstream.baseUrl, cache: { mode: 'simple', max_age: 600 } });
  const plainConfig = () => JSON.stringify({ provider: 'openai', custom_host: upstream.baseUrl });

  async function chat(node: Node, body: Record<string, unknown>, headers: Record<string, string>) {
    const response = await request(`${node.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': TEST_ADMIN_KEY, authorization: 'Bearer sk-client', 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  }

  /** a request under a rate-limit policy (matched by its team), not cached */
  const limited = async (node: Node, team: string) =>
    (await chat(node, { model: `limited-${team}` }, { 'x-gateway-config': plainConfig(), 'x-gateway-metadata': JSON.stringify({ team }) })).status;

  const ready = async (node: Node) => {
    const response = await request(`${node.origin}/ready`);
    return { status: response.statusCode, body: (await response.body.json()) as Record<string, string> };
  };

  const scrape = async (node: Node) => (await request(`${node.origin}/metrics`)).body.text();

  /** polls `check` (each call a real request), bounded; true once it held */
  async function eventually(check: () => Promise<boolean>, attempts = 100): Promise<boolean> {
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (await check()) return true;
      await sleep(100);
    }
    return false;
  }

  test('the load succeeds throughout; limits and cache degrade as documented and recover without a restart', async (t) => {
    const admin = adminClient(nodes[0]!.baseURL);
    const policy = (team: string, value: number, extra: Record<string, unknown> = {}) =>
      admin('POST', '/policies/rate-limits', TEST_ADMIN_KEY, { name: team, conditions: [{ key: 'metadata.team', value: team }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value, ...extra });
    const open = await policy('open', OPEN_LIMIT);
    assert.equal(open.status, 200, JSON.stringify(open.body));
    assert.equal(open.body.on_store_failure ?? 'open', 'open', 'rate limits fail open by default');
    assert.equal((await policy('closed', 100_000, { on_store_failure: 'closed' })).status, 200);
    assert.equal((await policy('fresh', OPEN_LIMIT)).status, 200);

    // steady load: two loops per node, the same cached question, JSON and streamed
    interface Answered { started: number; ended: number; cache: string; warned: boolean }
    let running = true;
    const failures: string[] = [];
    const answered: Answered[] = [];
    const loops = [0, 1, 2, 3].map(async (loop) => {
      for (let sequence = 0; running && failures.length < 100; sequence += 1) {
        const stream = sequence % 2 === 1;
        const started = performance.now();
        try {
          const answer = await chat(nodes[loop % 2]!, { model: 'cached-load', stream }, { 'x-gateway-config': cachedConfig() });
          const complete = stream ? answer.text.endsWith('data: [DONE]\n\n') : answer.text.includes('Hello world');
          if (answer.status !== 200 || !complete) failures.push(`${answer.status} ${answer.text.slice(0, 200)}`);
          const warned = String(answer.headers['x-gateway-warnings'] ?? '').includes(CACHE_UNAVAILABLE);
          answered.push({ started, ended: performance.now(), cache: String(answer.headers['x-gateway-cache-status']), warned });
        } catch (error) {
          failures.push(String(error));
        }
      }
    });
    /** the load's requests wholly inside [from, to) */
    const within = (from: number, to: number) => answered.filter((one) => one.started >= from && one.ended < to);
    const hits = (from: number) => within(from, Infinity).filter((one) => one.cache === 'HIT').length;

    try {
      // before: cache hits, the open limit holds across both nodes, both nodes ready
      assert.ok(await eventually(async () => hits(0) >= 10), 'cache hits before the outage');
      const burst = [];
      for (let index = 0; index < OPEN_LIMIT + 2; index += 1) burst.push(await limited(nodes[index % 2]!, 'open'));
      assert.deepEqual(burst, [...Array<number>(OPEN_LIMIT).fill(200), 429, 429], 'the limit holds over both nodes');
      assert.equal(await limited(nodes[1]!, 'closed'), 200);
      for (const node of nodes) assert.equal((await ready(node)).status, 200);

      // Redis stopped
      const failuresBefore = await Promise.all(nodes.map(scrape));
      const stopping = performance.now();
      await redis!.stop();
      redis = undefined;
      const outageBegan = performance.now();
      for (const node of nodes) {
        // ioredis notices the closed connection at once; its PING then fails after its retries. The node stays in
        // the balancer (200): it serves what it can, and says which service is away
        assert.ok(await eventually(async () => (await ready(node)).body.status === 'degraded', 50), '/ready says degraded');
        assert.deepEqual(await ready(node), { status: 200, body: { status: 'degraded', database: 'ok', kv: 'unreachable' } });
      }
      for (const node of nodes) {
        assert.deepEqual([await limited(node, 'open'), await limited(node, 'open')], [200, 200], 'the exhausted limit fails open');
        assert.equal(await limited(node, 'closed'), 503, 'the `closed` policy refuses');
      }
      const left = OUTAGE_MS - (performance.now() - outageBegan);
      if (left > 0) await sleep(left);
      const duringOutage = await Promise.all(nodes.map(scrape));
      const outageEnded = performance.now();

      // Redis started again on its port, empty
      redis = await startRedis(redisPort);
      for (const node of nodes) {
        assert.ok(await eventually(async () => (await ready(node)).body.status === 'ready'), '/ready is `ready` again');
        // the limiter tries the store again after its cool-down
        assert.ok(await eventually(async () => (await limited(node, 'closed')) === 200), 'the `closed` policy admits again');
      }
      const recovered = performance.now();
      assert.ok(await eventually(async () => hits(recovered) >= 10), 'cache hits return');
      // a policy first used now admits exactly its limit over both nodes
      const fresh = [];
      for (let index = 0; index < OPEN_LIMIT + 2; index += 1) fresh.push(await limited(nodes[index % 2]!, 'fresh'));
      assert.deepEqual(fresh, [...Array<number>(OPEN_LIMIT).fill(200), 429, 429], 'a limit counts again');
      // the one exhausted before the outage starts over in the empty Redis; a check that timed out near the end of
      // the outage may still reach it (ioredis re-sends the commands it queued): between 0 and 4 of its 4 are taken
      const again = [];
      for (let index = 0; index < OPEN_LIMIT + 2; index += 1) again.push(await limited(nodes[index % 2]!, 'open'));
      const admitted = again.filter((status) => status === 200).length;
      assert.deepEqual(again, [...Array<number>(admitted).fill(200), ...Array<number>(again.length - admitted).fill(429)], `then refused: ${again}`);
      assert.ok(admitted >= 1 && admitted <= OPEN_LIMIT, `the limit held again, counted from zero in the new Redis (${admitted} admitted)`);

      // pub/sub re-subscribed: a policy raised on node 1 applies on node 2, long before the 30 s cache lifetime
      assert.equal((await admin('PUT', `/policies/rate-limits/${open.body.id}`, TEST_ADMIN_KEY, { value: OPEN_LIMIT + 1 })).status, 200);
      const changed = performance.now();
      assert.ok(await eventually(async () => (await limited(nodes[1]!, 'open')) === 200, 20), 'node 2 applies the raised limit');
      assert.ok(performance.now() - changed < 2_500, 'through the announcement, not the cache lifetime');
      assert.equal(await limited(nodes[1]!, 'open'), 429);

      running = false;
      await Promise.all(loops);
      assert.deepEqual(failures, [], 'every request of the load succeeded, before, during and after the outage');
      const outage = within(outageBegan, outageEnded);
      assert.ok(outage.length >= 4, `the load went on during the outage (${outage.length} requests)`);
      assert.ok(outage.every((one) => one.cache === 'MISS' && one.warned), `during the outage every lookup is a miss, said in x-gateway-warnings: ${JSON.stringify(outage)}`);
      assert.equal(within(0, stopping).filter((one) => one.warned).length, 0, 'no warning while Redis is up');
      assert.equal(within(recovered, Infinity).filter((one) => one.warned).length, 0, 'none once it is back');
      for (const [index, node] of nodes.entries()) {
        const opened = metric(duringOutage[index]!, 'gateway_rate_limit_store_failures_total', 'outcome="open"') - metric(failuresBefore[index]!, 'gateway_rate_limit_store_failures_total', 'outcome="open"');
        const closed = metric(duringOutage[index]!, 'gateway_rate_limit_store_failures_total', 'outcome="closed"') - metric(failuresBefore[index]!, 'gateway_rate_limit_store_failures_total', 'outcome="closed"');
        assert.ok(opened >= 2 && closed >= 1, `node ${index + 1} counted its decisions without the store: open ${opened}, closed ${closed}`);
        assert.ok(metric(duringOutage[index]!, 'gateway_cache_requests_total', 'route="chat",cache_status="miss"') > 0);
        await node.stop(); // flushes its log
        assert.match(logs[index]!, /rate limits: the counter store failed/, `node ${index + 1} logged the limiter's failure`);
        assert.match(logs[index]!, /response cache: the lookup failed; served as a miss/, `node ${index + 1} logged the cache's failure`);
      }
      const slowest = (some: Answered[]) => Math.round(Math.max(...some.map((one) => one.ended - one.started)));
      t.diagnostic(`load: ${answered.length} requests, ${outage.length} of them wholly inside the ${Math.round(outageEnded - outageBegan)} ms outage; slowest ${slowest(within(0, stopping))} ms before, ${slowest(outage)} ms during`);
      // a cache lookup waits at most 500 ms for the store (the client's own retries would take seconds)
      assert.ok(slowest(outage) < slowest(within(0, stopping)) + 800, `a lookup during the outage is bounded: ${slowest(outage)} ms`);
    } finally {
      // stopped on a failed assertion too: the loops would spin on refused connections once the nodes stop
      running = false;
      await Promise.all(loops);
    }
  });
});
