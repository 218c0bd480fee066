/**
 * Graceful shutdown of a real gateway process (SIGTERM), in order: /ready answers 503 while the port still
 * accepts; then the port closes while a stream is still in flight; the stream then finishes whole; the request's
 * log row is in the database after the process has exited. On PostgreSQL when TEST_DATABASE_URL is set, else on
 * the embedded database, read from its data dir after the exit.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { request } from 'undici';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startNode } from '../helpers/gateway-process.ts';
import { TEST_ADMIN_KEY } from '../helpers/gateway.ts';

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** An upstream that streams one chunk, then waits for `release()` before the rest. */
async function slowUpstream() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('first '));
      arrived();
      void released.then(() => {
        res.write(chunk('second '));
        res.write(chunk('third'));
        res.end('data: [DONE]\n\n');
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, release, requestArrived, close: () => server.close() };
}

/** true once a TCP connection to the port is refused */
async function refuses(port: number): Promise<boolean> {
  const socket = net.connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    return false;
  } catch {
    return true;
  } finally {
    socket.destroy();
  }
}

test('SIGTERM: /ready turns 503, the port closes, the stream in flight finishes whole, its log row is written', { timeout: 90_000 }, async () => {
  const upstream = await slowUpstream();
  after(() => upstream.close());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-shutdown-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const postgres = process.env.TEST_DATABASE_URL ? await createPostgresDatabase(process.env.TEST_DATABASE_URL) : undefined;
  after(async () => postgres?.drop());

  const node = await startNode({
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_WORKERS: '1',
    GATEWAY_SHUTDOWN_DRAIN_MS: '1000',
    GATEWAY_SHUTDOWN_TIMEOUT_MS: '30000',
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
  });
  const port = Number(new URL(node.origin).port);
  const ready = await request(`${node.origin}/ready`);
  assert.equal(ready.statusCode, 200, await ready.body.text());

  const traceId = `shutdown-${Date.now()}`;
  const stream = await request(`${node.baseURL}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sk-upstream',
      'x-gateway-api-key': TEST_ADMIN_KEY,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': upstream.url,
      'x-gateway-trace-id': traceId,
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(stream.statusCode, 200);
  await upstream.requestArrived;
  let text = '';
  const reading = (async () => {
    for await (const part of stream.body) text += (part as Buffer).toString();
  })();

  const stopped = node.stop(); // SIGTERM; resolves once the process has exited

  // 1. unready at once, while the port still accepts (the answer itself proves it)
  let readiness = 200;
  for (let attempt = 0; attempt < 100 && readiness === 200; attempt += 1) {
    const answer = await request(`${node.origin}/ready`, { reset: true });
    readiness = answer.statusCode;
    const body = await answer.body.json();
    if (readiness === 503) assert.deepEqual(body, { status: 'draining' });
    else await sleep(20);
  }
  assert.equal(readiness, 503);

  // 2. after the drain delay the port closes, with the stream still in flight
  let closed = false;
  for (let attempt = 0; attempt < 200 && !closed; attempt += 1) {
    closed = await refuses(port);
    if (!closed) await sleep(25);
  }
  assert.ok(closed, 'the port still accepts connections');
  assert.ok(!text.includes('[DONE]'), 'the stream ended before the upstream finished it');

  // 3. the stream in flight finishes whole
  upstream.release();
  await reading;
  assert.match(text, /first /);
  assert.match(text, /second /);
  assert.match(text, /third/);
  assert.match(text, /data: \[DONE\]/);

  // 4.-5. the log queue is written, then the process exits: well before the 30 s deadline (no connection held open)
  const finishing = Date.now();
  await stopped;
  assert.ok(Date.now() - finishing < 20_000, `the process took ${Date.now() - finishing} ms to exit after the stream`);
  const rows = postgres ? await postgresRows(postgres.url, traceId) : await embeddedRows(dataDir, traceId);
  assert.equal(rows.length, 1, `request log rows for ${traceId}`);
  assert.equal(rows[0]!.status, 200);
});

async function postgresRows(url: string, traceId: string): Promise<Array<{ status: number }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('select status from request_logs where trace_id = $1', [traceId])).rows;
  } finally {
    await client.end();
  }
}

async function embeddedRows(dataDir: string, traceId: string): Promise<Array<{ status: number }>> {
  const db = new PGlite(path.join(dataDir, 'pglite'));
  try {
    return (await db.query<{ status: number }>('select status from request_logs where trace_id = $1', [traceId])).rows;
  } finally {
    await db.close();
  }
}
