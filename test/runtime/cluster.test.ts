/**
 * GATEWAY_WORKERS=2 on the embedded default (no DATABASE_URL, no REDIS_URL): one primary owning the PGlite database
 * and the in-process store, two server processes sharing the port. Every request below goes over a connection of
 * its own, so the cluster spreads them over both workers (round-robin). What must agree across workers does:
 * a key created through one works through all, and revoked it is refused by all within a second (the primary's
 * store carries the invalidation); a rate limit of N admits exactly N of a burst (the primary's store holds the
 * counter); /metrics sums both workers; and SIGTERM stops the workers gracefully (their request logs flushed through
 * the primary's database) before the primary.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { Client } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { startNode, type Node } from '../helpers/gateway-process.ts';
import { TEST_ADMIN_KEY } from '../helpers/gateway.ts';

let node: Node;
let upstream: FakeUpstream;

/** One request on a connection of its own (a new connection is what the cluster hands to the next worker). */
async function once(method: 'GET' | 'POST' | 'DELETE', path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const client = new Client(node.origin);
  try {
    const response = await client.request({
      method,
      path,
      headers: { 'x-gateway-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text && text.startsWith('{') ? JSON.parse(text) : text };
  } finally {
    await client.close();
  }
}

const chat = (key: string) =>
  once('POST', '/v1/chat/completions', key, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, {
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': upstream.baseUrl,
    authorization: 'Bearer sk-client',
  });

/** The primary's child processes that run the gateway (tsx may add an esbuild service process of its own). */
function childrenOf(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return []; // the thread ended between the listing and the read
    }
  });
  return children.filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('main.ts');
    } catch {
      return false;
    }
  });
}

before(async () => {
  upstream = await startFakeUpstream();
  node = await startNode({ GATEWAY_WORKERS: '2', GATEWAY_SHUTDOWN_DRAIN_MS: '0' });
  // /health answered by the first worker up: wait for the second to listen too (each answers /ready once built)
  for (let attempt = 0; attempt < 100 && childrenOf(node.pid).length < 2; attempt += 1) await sleep(100);
  for (let round = 0; round < 20; round += 1) {
    const statuses = await Promise.all(Array.from({ length: 4 }, () => once('GET', '/ready', '')));
    if (statuses.every((answer) => answer.status === 200)) break;
    await sleep(200);
  }
});

after(async () => {
  await closeAll(() => node?.stop(), () => upstream?.close());
});

test('two server processes run under one primary', () => {
  assert.equal(childrenOf(node.pid).length, 2);
});

test('a key created through one worker works through every worker; revoked, every worker refuses it within a second', async () => {
  const created = await once('POST', '/v1/api-keys/organisation/service', TEST_ADMIN_KEY, { name: 'cluster', scopes: ['completions.write'] });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const key = created.body.key as string;
  // enough fresh connections that both workers resolve (and cache) the key
  const used = await Promise.all(Array.from({ length: 8 }, () => chat(key)));
  assert.deepEqual(used.map((answer) => answer.status), Array(8).fill(200));

  const revoked = await once('DELETE', `/v1/api-keys/${created.body.id}`, TEST_ADMIN_KEY);
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
  const deadline = Date.now() + 1_000;
  let statuses: number[] = [];
  do {
    statuses = (await Promise.all(Array.from({ length: 8 }, () => chat(key)))).map((answer) => answer.status);
  } while (statuses.some((status) => status !== 401) && Date.now() < deadline);
  assert.deepEqual(statuses, Array(8).fill(401));
});

test('a rate limit of 5 admits exactly 5 of a burst of 12 spread over both workers', async () => {
  const created = await once('POST', '/v1/api-keys/organisation/service', TEST_ADMIN_KEY, {
    name: 'limited',
    scopes: ['completions.write'],
    rate_limits: [{ type: 'requests', unit: 'rpm', value: 5 }],
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const statuses = (await Promise.all(Array.from({ length: 12 }, () => chat(created.body.key)))).map((answer) => answer.status);
  assert.equal(statuses.filter((status) => status === 200).length, 5, statuses.join(','));
  assert.equal(statuses.filter((status) => status === 429).length, 7, statuses.join(','));
});

test('/metrics sums the requests of both workers', async () => {
  const before = requestsServed(await once('GET', '/metrics', ''));
  await Promise.all(Array.from({ length: 6 }, () => once('GET', '/health', '')));
  const after = requestsServed(await once('GET', '/metrics', ''));
  assert.equal(after - before, 6);
});

function requestsServed(answer: { status: number; body: string }): number {
  assert.equal(answer.status, 200);
  const line = answer.body.split('\n').find((text) => text.startsWith('gateway_http_requests_total{route="/health",method="GET",status="200"}'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
