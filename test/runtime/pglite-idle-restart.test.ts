/**
 * A gateway process on the embedded database with GATEWAY_IDLE_MEMORY_SECONDS=1: after it has served
 * queries and then gone a second without one, its database thread restarts (logged), and the gateway goes on
 * as before: the request log written before the restart is read back after it, and new requests are logged.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { loadConfig } from '../../src/config/index.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startNode, type Node } from '../helpers/gateway-process.ts';
import { TEST_ADMIN_KEY } from '../helpers/gateway.ts';

let upstream: FakeUpstream;
let node: Node;
let stdout = '';
let restarted!: () => void;
const restart = new Promise<void>((resolve) => (restarted = resolve));

before(async () => {
  upstream = await startFakeUpstream();
  node = await startNode({ GATEWAY_IDLE_MEMORY_SECONDS: '1', LOG_LEVEL: 'info' }, {
    onStdout: (text) => {
      stdout += text;
      if (stdout.includes('its thread restarted while idle')) restarted();
    },
  });
});

after(async () => {
  await node?.stop();
  await upstream?.close();
});

const admin = { 'x-gateway-api-key': TEST_ADMIN_KEY };

async function chat(traceId: string): Promise<void> {
  const response = await request(`${node.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, authorization: 'Bearer sk-x', 'x-gateway-trace-id': traceId },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
  });
  assert.equal(response.statusCode, 200, await response.body.text());
}

/** the log rows of a trace id (GET /v1/logs), polled until `want` are there: the writer flushes each second */
async function logged(traceId: string, want: number): Promise<number> {
  const window = `start_time=${new Date(Date.now() - 600_000).toISOString()}&end_time=${new Date(Date.now() + 60_000).toISOString()}`;
  for (let attempt = 0; ; attempt += 1) {
    const response = await request(`${node.baseURL}/logs?${window}&trace_id=${traceId}`, { headers: admin });
    assert.equal(response.statusCode, 200);
    const count = ((await response.body.json()) as { data: unknown[] }).data.length;
    if (count >= want || attempt >= 50) return count;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('the setting: 30 s by default, 0 turns the restart off', () => {
  assert.equal(loadConfig({}).idleMemoryMs, 30_000);
  assert.equal(loadConfig({ GATEWAY_IDLE_MEMORY_SECONDS: '0' }).idleMemoryMs, 0);
  assert.throws(() => loadConfig({ GATEWAY_IDLE_MEMORY_SECONDS: '-1' }), /GATEWAY_IDLE_MEMORY_SECONDS/);
});

test('an idle embedded database restarts its thread; the log written before is read after, and new rows are written', { timeout: 60_000 }, async () => {
  const before = randomUUID();
  await chat(before);
  assert.equal(await logged(before, 1), 1);
  // queries enough to make the thread worth restarting (50: idle-restart.ts), each list a query or more
  for (let call = 0; call < 60; call += 1) await logged(before, 1);
  await restart;
  assert.match(stdout, /"calls":\d+/);
  assert.equal(await logged(before, 1), 1, 'the row written before the restart');
  const afterwards = randomUUID();
  await chat(afterwards);
  assert.equal(await logged(afterwards, 1), 1, 'a row written after it');
});
