/**
 * What a request makes the gateway pay besides its chosen answer, in the request log's `cost`: the semantic
 * cache's embedding call (on a miss and on a semantic hit, which then costs its embedding and saves its answer's
 * price) and the answers a retry dropped. The official openai client through a real gateway to fake upstreams on
 * 127.0.0.1, the rows read back.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { findRequestLogsByTraceId, type RequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

/** An OpenAI chat upstream whose first answer to each conversation says "forbidden", the next ones "fine"; usage 5 + 2. */
async function startChangingUpstream(): Promise<{ baseUrl: string; calls: () => number; close(): Promise<void> }> {
  const seen = new Map<string, number>();
  let calls = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (part: Buffer) => (raw += part.toString('utf8')));
    req.on('end', () => {
      calls += 1;
      const body = JSON.parse(raw) as { model: string; messages: Array<{ content: string }> };
      const key = body.messages.at(-1)?.content ?? '';
      const count = (seen.get(key) ?? 0) + 1;
      seen.set(key, count);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: `chatcmpl-${count}`, object: 'chat.completion', created: 1_700_000_000, model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: count === 1 ? 'forbidden' : 'fine' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

for (const backend of testBackends()) {
  describe(`side costs in the request log [${backend.name}]`, () => {
    let gateway: TestGateway;
    let upstream: FakeUpstream;
    let changing: Awaited<ReturnType<typeof startChangingUpstream>>;

    before(async () => {
      [upstream, changing] = await Promise.all([startFakeUpstream(), startChangingUpstream()]);
      gateway = await startBackendGateway(backend);
    });
    after(() => closeAll(() => gateway?.close(), () => upstream?.close(), () => changing?.close()));

    async function rowOf(trace: string): Promise<RequestLogRow> {
      await gateway.gateway.requestLog.flush();
      const rows = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, trace);
      assert.equal(rows.length, 1, `one row for trace ${trace}`);
      return rows[0]!;
    }

    async function ask(config: unknown, content: string, headers: Record<string, string> = {}) {
      const trace = randomUUID();
      const client = new OpenAI({ apiKey: 'sk-provider', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': JSON.stringify(config), ...headers } });
      const { data, response } = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] }, { headers: { 'x-gateway-trace-id': trace } }).withResponse();
      return { trace, data, status: response.headers.get('x-gateway-cache-status') };
    }

    test('the semantic cache\'s embedding is paid on a miss and on a semantic hit', async () => {
      // text-embedding-3-small: $0.02 per million input tokens; the fake reports 1 token per input
      const config = { provider: 'openai', custom_host: upstream.baseUrl, cache: { mode: 'semantic', max_age: 60, embedding: { provider: 'openai', model: 'text-embedding-3-small' } } };
      const namespace = { 'x-gateway-cache-namespace': `side-costs-${randomUUID()}` };
      const embeddingsBefore = upstream.requests.filter((request) => request.url === '/v1/embeddings').length;
      const miss = await ask(config, 'What is the capital of France?', namespace);
      assert.equal(miss.status, 'MISS');
      // gpt-4o: 5 x $2.50 + 2 x $10 per million = 0.0000325, plus the embedding's 0.00000002
      assert.equal((await rowOf(miss.trace)).cost, '0.000032520000');
      // the fake's embeddings of this model are all the same vector: any other question is a semantic hit
      const hit = await ask(config, 'And of Italy, please?', namespace);
      assert.equal(hit.status, 'SEMANTIC HIT');
      const row = await rowOf(hit.trace);
      assert.equal(row.cost, '0.000000020000', 'a semantic hit costs its embedding');
      assert.equal(row.savedCost, '0.000032500000', 'and saves its answer\'s price');
      assert.equal(upstream.requests.filter((request) => request.url === '/v1/embeddings').length, embeddingsBefore + 2);
    });

    test('an embedding model without a price makes the cost unknown, not a guessed part', async () => {
      const config = { provider: 'openai', custom_host: upstream.baseUrl, cache: { mode: 'semantic', max_age: 60, embedding: { provider: 'openai', model: 'words-64' } } };
      const miss = await ask(config, `unpriced embedding ${randomUUID()}`, { 'x-gateway-cache-namespace': randomUUID() });
      assert.equal(miss.status, 'MISS');
      assert.equal((await rowOf(miss.trace)).cost, null);
    });

    test('an answer a retry dropped is paid for too', async () => {
      const denyForbidden = { 'default.contains': { operator: 'none', words: ['forbidden'] }, deny: true };
      const config = { provider: 'openai', custom_host: changing.baseUrl, output_guardrails: [denyForbidden], retry: { attempts: 2, on_status_codes: [446] } };
      const before = changing.calls();
      const answer = await ask(config, `retry ${randomUUID()}`);
      assert.equal(answer.data.choices[0]?.message.content, 'fine');
      assert.equal(changing.calls(), before + 2);
      const row = await rowOf(answer.trace);
      assert.equal(row.retryCount, 1);
      // two gpt-4o answers were paid: the dropped one and the chosen one
      assert.equal(row.cost, '0.000065000000');
    });
  });
}
