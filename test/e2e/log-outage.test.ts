/**
 * The request log through a database outage, on the real PostgreSQL: requests run under steady load while the
 * database is taken away (a TCP proxy in front of it cuts every connection and refuses new ones, as a stopped
 * server does) and given back. No inference request fails, the rows wait in the writer's buffer, and every one of
 * them reaches the database once it is back; none is dropped. An admin call meanwhile is a 503 to retry, and works
 * again once the database is back, with no restart.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import OpenAI from 'openai';
import { rowsOf } from '../../src/storage/migrate.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { postgresProxy } from '../helpers/gateway-process.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const REQUESTS = 300;
const PARALLEL = 6;

let upstream: FakeUpstream;
let gateway: TestGateway;
let database: { url: string; drop(): Promise<void> };
let proxy: Awaited<ReturnType<typeof postgresProxy>>;

before(async () => {
  if (!serverUrl) return;
  upstream = await startFakeUpstream();
  database = await createPostgresDatabase(serverUrl);
  proxy = await postgresProxy(new URL(database.url));
  gateway = await startTestGateway({ databaseUrl: proxy.url });
});

after(() => closeAll(() => gateway?.close(), () => proxy?.shut(), () => database?.drop(), () => upstream?.close()));

test('a database outage under load: no request fails, no row is lost', { skip: serverUrl ? false : 'needs TEST_DATABASE_URL' }, async () => {
  const run = randomUUID();
  const client = new OpenAI({
    apiKey: 'sk-x',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: {
      'x-gateway-api-key': gateway.adminKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': upstream.baseUrl,
      'x-gateway-metadata': JSON.stringify({ run }),
    },
  });
  const messages = [{ role: 'user' as const, content: 'hi' }];
  // the key is resolved (and cached) while the database is there
  await client.chat.completions.create({ model: 'gpt-test', messages });

  let sent = 0;
  let done = 0;
  const failures: unknown[] = [];
  let down: Promise<void> | undefined;
  let up: Promise<void> | undefined;
  let unknownKeyStatus: number | undefined;
  let adminDuringOutage: { status: number; code: string | undefined; retryAfter: unknown } | undefined;
  const worker = async () => {
    while (sent < REQUESTS) {
      // the middle third is sent once the database is really away (the shut has completed)
      if (down && !up) await down;
      sent += 1;
      try {
        await client.chat.completions.create({ model: 'gpt-test', messages });
      } catch (error) {
        failures.push(error);
      }
      done += 1;
      if (done === Math.floor(REQUESTS / 3)) down = proxy.shut();
      if (done === Math.floor((2 * REQUESTS) / 3)) {
        // rows of the middle third waited in the buffer: the writer says so
        assert.equal(gateway.gateway.requestLog.holding || gateway.gateway.requestLog.pending > 0, true, 'rows are held while the database is away');
        up = down!.then(async () => {
          // an admin call needs the database: an honest 503 to retry, not a 500
          const admin = await gateway.gateway.app.inject({ method: 'GET', url: '/v1/api-keys', headers: { 'x-gateway-api-key': gateway.adminKey } });
          adminDuringOutage = { status: admin.statusCode, code: (admin.json() as { error?: { code?: string } }).error?.code, retryAfter: admin.headers['retry-after'] };
          // a key the node does not hold yet cannot be checked: 503 to retry, never a 401 that says it is invalid
          const unknown = await gateway.gateway.app.inject({ method: 'GET', url: '/v1/models', headers: { 'x-gateway-api-key': 'not-cached-key-0123456789' } });
          unknownKeyStatus = unknown.statusCode;
          await proxy.open();
        });
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  await up;
  assert.deepEqual(failures, [], 'no request failed');
  assert.deepEqual(adminDuringOutage, { status: 503, code: 'storage_unavailable', retryAfter: '1' });
  assert.equal(unknownKeyStatus, 503);
  const after = await gateway.gateway.app.inject({ method: 'GET', url: '/v1/api-keys', headers: { 'x-gateway-api-key': gateway.adminKey } });
  assert.equal(after.statusCode, 200, 'the admin API is back by itself');

  // the writer retries on its own schedule; flush until what it holds is written (bounded)
  for (let attempt = 0; attempt < 100 && (gateway.gateway.requestLog.pending > 0 || gateway.gateway.requestLog.holding); attempt += 1) {
    await gateway.gateway.requestLog.flush();
    if (gateway.gateway.requestLog.holding) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const counted = rowsOf<{ n: string }>(
    await gateway.gateway.database.db.execute(sql`select count(*) as n from request_logs where metadata ->> 'run' = ${run}`),
  );
  assert.equal(Number(counted[0]!.n), REQUESTS + 1, 'every request has its row');
  const metrics = await gateway.gateway.app.inject({ method: 'GET', url: '/metrics' });
  const dropped = metrics.body.split("\n").filter((line) => line.startsWith("gateway_request_log_dropped_total{") && !line.endsWith(" 0"));
  assert.deepEqual(dropped, [], "nothing was dropped");
  assert.match(metrics.body, /^gateway_storage_unavailable_total 2$/m, 'the 503s are counted');
});
