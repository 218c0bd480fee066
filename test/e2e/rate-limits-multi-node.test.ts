/**
 * Rate limits across nodes: two gateway PROCESSES (src/main.ts, as deployed) sharing the real PostgreSQL and Redis.
 * A policy of N admits exactly N requests under concurrent load spread over both nodes, and the upstream sees only
 * those; a key's inline limit holds the same way; a change made on one node applies on the other. Then Redis goes
 * away (a TCP proxy in front of it is shut) and comes back: requests pass meanwhile (the limits fail open, counted
 * in a metric), and the limits hold again afterwards with no restart. Needs TEST_DATABASE_URL and TEST_REDIS_URL.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startTestGateway, TEST_ADMIN_KEY, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const skip = !databaseUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Node {
  baseURL: string;
  origin: string;
  stop(): Promise<void>;
}

/** A gateway process of its own (its own process group, stopped by it), ready once /health answers. */
async function startNode(env: Record<string, string>): Promise<Node> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-node-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_ADMIN_API_KEY: TEST_ADMIN_KEY,
      GATEWAY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      GATEWAY_CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      LOG_LEVEL: 'error',
      ...env,
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  // a process start has no event to wait on from outside: poll its liveness route, bounded
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`the gateway process exited: ${stderr}`);
    try {
      const health = await request(`${origin}/health`);
      await health.body.dump();
      if (health.statusCode === 200) return { baseURL: `${origin}/v1`, origin, stop };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`the gateway process did not start: ${stderr}`);
}

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

/** A TCP proxy to Redis that can be shut (every connection cut, new ones refused) and opened again on the same port. */
async function redisProxy(target: URL) {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const open = async () => {
    server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  };
  const shut = async () => {
    const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await open();
  return { url: `redis://127.0.0.1:${port}`, open, shut };
}

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
