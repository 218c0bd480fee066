/**
 * The cost of requests end to end, on every storage back-end: the official `openai` client through a real gateway
 * to fake upstreams, then the request_logs rows read back. Exact costs (USD, 12 decimals) for a JSON answer, a
 * stream with include_usage, a cache hit (0, its saving in the metadata), the attempts of a fallback, a custom
 * price set through the admin API, cached and reasoning tokens in their columns, and NULL for an unknown model.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { findRequestLogsByTraceId, type RequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

/** OpenAI's usage with its details, as o-series models report it: 60 of 100 prompt tokens cached, 30 of 50 reasoning */
const DETAILED_USAGE = {
  prompt_tokens: 100, completion_tokens: 50, total_tokens: 150,
  prompt_tokens_details: { cached_tokens: 60 }, completion_tokens_details: { reasoning_tokens: 30 },
};

/** A small OpenAI-format upstream whose answers (JSON, and streams with include_usage) carry DETAILED_USAGE. */
async function startDetailedUpstream(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (part: Buffer) => (raw += part.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; stream?: boolean };
      const base = { id: 'chatcmpl-detailed', created: 1_700_000_000, model: body.model };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }], usage: DETAILED_USAGE }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }], usage: null })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: DETAILED_USAGE })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

for (const backend of testBackends()) {
  describe(`cost in the request log [${backend.name}]`, () => {
    let gateway: TestGateway;
    let upstream: FakeUpstream;
    let detailed: Awaited<ReturnType<typeof startDetailedUpstream>>;

    before(async () => {
      upstream = await startFakeUpstream();
      detailed = await startDetailedUpstream();
      gateway = await startBackendGateway(backend);
    });

    after(() => closeAll(() => gateway?.close(), () => upstream?.close(), () => detailed?.close()));

    async function rowOf(trace: string): Promise<RequestLogRow> {
      await gateway.gateway.requestLog.flush();
      const rows = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, trace);
      assert.equal(rows.length, 1, `one row for trace ${trace}`);
      return rows[0]!;
    }

    function client(routing: Record<string, string>): OpenAI {
      return new OpenAI({ apiKey: 'sk-provider', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, ...routing } });
    }
    const direct = (host = upstream.baseUrl) => client({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': host });
    const configured = (config: unknown) => client({ 'x-gateway-config': JSON.stringify(config) });
    const to = (model: string, extra: Record<string, unknown> = {}) => ({ provider: 'openai', custom_host: upstream.baseUrl, override_params: { model }, ...extra });
    const messages = [{ role: 'user' as const, content: 'hello' }];
    const traced = () => {
      const trace = randomUUID();
      return { trace, options: { headers: { 'x-gateway-trace-id': trace } } };
    };

    test('a JSON answer: 5 input and 2 output tokens of gpt-4o at $2.50 and $10 per million', async () => {
      const { trace, options } = traced();
      await direct().chat.completions.create({ model: 'gpt-4o', messages }, options);
      const row = await rowOf(trace);
      assert.deepEqual([row.promptTokens, row.completionTokens], [5, 2]);
      assert.equal(row.cost, '0.000032500000');
      assert.deepEqual([row.cachedTokens, row.cacheWriteTokens, row.reasoningTokens], [null, null, null], 'not reported: unknown, not 0');
    });

    test('a stream with include_usage: priced when it ends, from its last chunk', async () => {
      const { trace, options } = traced();
      const stream = await direct().chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } }, options);
      let usage: unknown;
      for await (const chunk of stream) usage = chunk.usage ?? usage;
      assert.deepEqual(usage, { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
      const row = await rowOf(trace);
      assert.equal(row.streamMode, true);
      assert.equal(row.cost, '0.000001950000');
    });

    test('a stream without usage: the cost is unknown (NULL), not 0', async () => {
      const { trace, options } = traced();
      const stream = await direct().chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true }, options);
      for await (const chunk of stream) void chunk;
      assert.equal((await rowOf(trace)).cost, null);
    });

    test('a cache hit costs 0 and records what it saved', async () => {
      const config = { ...to('gpt-4.1'), cache: { mode: 'simple', max_age: 60 } };
      const content = `cost of a cache hit ${backend.name} ${randomUUID()}`;
      const first = traced();
      const second = traced();
      await configured(config).chat.completions.create({ model: 'x', messages: [{ role: 'user', content }] }, first.options);
      await configured(config).chat.completions.create({ model: 'x', messages: [{ role: 'user', content }] }, second.options);
      const miss = await rowOf(first.trace);
      assert.deepEqual([miss.cacheStatus, miss.cost], ['MISS', '0.000026000000']);
      const hit = await rowOf(second.trace);
      assert.deepEqual([hit.cacheStatus, hit.cost, hit.totalTokens], ['HIT', '0.000000000000', 7]);
      assert.equal(hit.savedCost, '0.000026000000');
    });

    test('an unknown model: tokens are kept, the cost is NULL (unknown), never 0', async () => {
      const { trace, options } = traced();
      await direct().chat.completions.create({ model: 'gpt-test-unknown', messages }, options);
      const row = await rowOf(trace);
      assert.deepEqual([row.promptTokens, row.completionTokens, row.totalTokens], [5, 2, 7]);
      assert.equal(row.cost, null);
    });

    test('a fallback: the attempt that answered and was left is paid for too', async () => {
      const { trace, options } = traced();
      const denyWorld = { 'default.contains': { operator: 'none', words: ['world'] }, deny: true };
      const config = { strategy: { mode: 'fallback' }, targets: [to('gpt-4o', { output_guardrails: [denyWorld] }), to('gpt-4o-mini')] };
      const answer = await configured(config).chat.completions.create({ model: 'x', messages }, options);
      assert.equal(answer.model, 'gpt-4o-mini');
      // gpt-4o's answer (0.0000325) was denied by its guardrail, gpt-4o-mini's (0.00000195) chosen
      assert.equal((await rowOf(trace)).cost, '0.000034450000');
    });

    test('a custom price set through the admin API wins over the catalog, and prices a custom model', async () => {
      const admin = adminClient(gateway.baseURL);
      const price = { pay_as_you_go: { request_token: { price: 0.0001 }, response_token: { price: 0.0003 } } };
      for (const model of ['gpt-4.1-nano', 'house-finetune']) {
        const set = await admin('PUT', `/model-pricing/openai/${model}`, gateway.adminKey, price);
        assert.equal(set.status, 200, JSON.stringify(set.body));
        const { trace, options } = traced();
        await direct().chat.completions.create({ model, messages }, options);
        // 5 x $0.000001 + 2 x $0.000003 (the catalog's gpt-4.1-nano would be 0.0000013)
        assert.equal((await rowOf(trace)).cost, '0.000011000000', model);
      }
      const removed = await admin('DELETE', '/model-pricing/openai/gpt-4.1-nano', gateway.adminKey);
      assert.equal(removed.status, 200);
      const { trace, options } = traced();
      await direct().chat.completions.create({ model: 'gpt-4.1-nano', messages }, options);
      assert.equal((await rowOf(trace)).cost, '0.000001300000', 'back to the catalog once the custom price is gone');
    });

    test('cached and reasoning tokens: in their columns and priced at their own rates, JSON and stream alike', async () => {
      // o3: 40 x $2 + 60 cached x $0.50 + 50 output (30 of them reasoning) x $8, per million
      const json = traced();
      await direct(detailed.baseUrl).chat.completions.create({ model: 'o3', messages }, json.options);
      const stream = traced();
      const chunks = await direct(detailed.baseUrl).chat.completions.create({ model: 'o3', messages, stream: true, stream_options: { include_usage: true } }, stream.options);
      for await (const chunk of chunks) void chunk;
      for (const trace of [json.trace, stream.trace]) {
        const row = await rowOf(trace);
        assert.deepEqual([row.promptTokens, row.completionTokens, row.cachedTokens, row.cacheWriteTokens, row.reasoningTokens], [100, 50, 60, null, 30]);
        assert.equal(row.cost, '0.000510000000');
      }
    });
  });
}
