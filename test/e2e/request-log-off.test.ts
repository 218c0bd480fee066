/**
 * GATEWAY_REQUEST_LOG=off: a request is still served and still counted in the metrics (the row is built for the
 * metrics and traces), but no row is kept: nothing queued, nothing written.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

describe('request log off', () => {
  let gateway: TestGateway;
  let upstream: FakeUpstream;

  before(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestGateway({ env: { GATEWAY_REQUEST_LOG: 'off' } });
  });

  after(() => closeAll(() => gateway?.close(), () => upstream?.close()));

  async function requestsCounted(): Promise<number> {
    const scrape = await request(`${gateway.origin}/metrics`, { headers: { authorization: `Bearer ${gateway.adminKey}` } });
    const text = await scrape.body.text();
    assert.equal(scrape.statusCode, 200, text);
    return text
      .split('\n')
      .filter((line) => line.startsWith('gateway_requests_total{') && line.includes('route="chat"'))
      .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  }

  test('the request is answered and counted in the metrics, and no row is kept', async () => {
    const before = await requestsCounted();
    const traceId = randomUUID();
    const client = new OpenAI({
      apiKey: 'sk-provider',
      baseURL: gateway.baseURL,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-trace-id': traceId },
    });
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
    assert.ok(completion.choices[0]?.message.content);
    assert.equal(await requestsCounted(), before + 1);
    assert.equal(gateway.gateway.requestLog.pending, 0, 'nothing is queued');
    await gateway.gateway.requestLog.flush();
    const rows = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, traceId);
    assert.deepEqual(rows, []);
  });
});
