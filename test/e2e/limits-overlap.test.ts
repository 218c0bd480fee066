/**
 * Rate limits and usage limits asked of Redis together: an attempt's rate-limit verdict and its budget reservation
 * are two round trips to the counter store, sent beside each other rather than one after the other (src/pipeline/
 * executor.ts, `besideReservation`). Checked through a TCP proxy in front of the real Redis that holds what the
 * gateway sends: both calls must reach it while neither has been answered. A reservation made for an attempt the rate
 * limits refuse is given back. The official `openai` client, the embedded database, TEST_REDIS_URL.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startUsageUpstream, type UsageUpstream } from './budgets-upstream.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const skip = redisUrl ? false : 'needs TEST_REDIS_URL';

/**
 * A TCP proxy to Redis. While `holding`, what the gateway sends is kept back (and read); `sent(...marks)` resolves
 * once every mark has been seen in what was kept back; `release()` sends it on and passes everything from then on.
 */
async function holdingProxy(target: URL) {
  const held: Array<{ upstream: net.Socket; data: Buffer }> = [];
  let seen = '';
  let holding = false;
  let waiting: { marks: string[]; resolve: () => void } | undefined;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    upstream.pipe(client);
    client.on('data', (data: Buffer) => {
      if (!holding) {
        upstream.write(data);
        return;
      }
      held.push({ upstream, data });
      seen += data.toString('latin1');
      if (waiting && waiting.marks.every((mark) => seen.includes(mark))) waiting.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    hold() {
      holding = true;
      seen = '';
    },
    /** resolves true once every mark was sent while held, false after `ms` */
    sent(marks: string[], ms: number): Promise<boolean> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        waiting = { marks, resolve: () => { clearTimeout(timer); resolve(true); } };
        if (marks.every((mark) => seen.includes(mark))) waiting.resolve();
      });
    },
    release() {
      holding = false;
      waiting = undefined;
      for (const { upstream, data } of held.splice(0)) upstream.write(data);
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

let proxy: Awaited<ReturnType<typeof holdingProxy>>;
let gateway: TestGateway;
let upstream: UsageUpstream;
let call: ReturnType<typeof adminClient>;

before(async () => {
  if (skip) return;
  proxy = await holdingProxy(new URL(redisUrl!));
  upstream = await startUsageUpstream();
  gateway = await startTestGateway({ env: { REDIS_URL: proxy.url } });
  call = adminClient(gateway.baseURL);
});

after(() => closeAll(() => gateway?.close(), () => upstream?.close(), () => proxy?.close()));

async function ok(method: string, path: string, body?: unknown) {
  const response = await call(method, path, gateway.adminKey, body);
  assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
  return response.body;
}

function client(metadata: Record<string, string>): OpenAI {
  return new OpenAI({
    apiKey: 'sk-provider',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-metadata': JSON.stringify(metadata) },
  });
}

const ask = (openai: OpenAI) => openai.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1000 });

test('the rate limits\' verdict and the budget\'s reservation are sent to Redis together; a refused attempt\'s reservation is given back', { skip }, async () => {
  const team = `overlap-${randomUUID()}`;
  // one request a minute per user; a team budget that holds what one request used and one more estimate (~1,000
  // tokens for max_tokens 1000), not two
  const rate = await ok('POST', '/policies/rate-limits', { conditions: [{ key: 'metadata.team', value: team }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rpm', value: 1 });
  const budget = await ok('POST', '/policies/usage-limits', { name: `budget of ${team}`, conditions: [{ key: 'metadata.team', value: team }], group_by: [{ key: 'metadata.team' }], type: 'tokens', credit_limit: 1600 });
  upstream.usage = { prompt: 5, completion: 5 };

  // the first request warms the gateway's caches (key, policies, scripts) with nothing held; its settlement is
  // written before anything is held
  const first = client({ team, _user: 'u1' });
  await ask(first);
  await gateway.gateway.budgets.flush();

  // the second, another user's: both calls reach Redis while neither is answered
  proxy.hold();
  const second = ask(client({ team, _user: 'u2' }));
  const together = await proxy.sent([`gw:rl:p:${rate.id}`, `gw:budget:p:${budget.id}`], 5_000);
  proxy.release();
  await second;
  // asked in turn, the reservation would still reach Redis, but only once the rate limiter had given up waiting
  // for its verdict (its timeout, 500 ms) and let the request through: counted as a store failure
  const metrics = (await gateway.gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
  assert.doesNotMatch(metrics, /gateway_rate_limit_store_failures_total\{[^}]*\} [1-9]/, 'the rate limiter gave up waiting for Redis');
  assert.equal(together, true, 'the budget\'s reservation was not sent while the rate limits\' call waited');

  // u1's second request is refused by the rate limit; the reservation made beside it is given back ...
  await assert.rejects(ask(first), (error: unknown) => error instanceof OpenAI.APIError && error.status === 429 && /rate limit/i.test(error.message));
  await gateway.gateway.budgets.flush();
  // ... so a third user's request still fits: 20 used + ~1,000 reserved <= 1,600, where ~2,000 more would not
  await ask(client({ team, _user: 'u3' }));
  assert.equal(upstream.received, 3);
});
