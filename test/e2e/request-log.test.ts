/**
 * The request log end to end, on every storage back-end: requests through the real server with the official
 * `openai` client (raw undici where the client would hide the answer), then the rows read back by trace id after
 * an explicit flush of the writer. Answers, streams (relayed and translated), fallbacks and retries, guardrail
 * verdicts, failures before any provider call, timeouts, bad upstream answers and cache hits.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
import { findRequestLogsByTraceId, type RequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const PROMPT = 'the-prompt-text-of-this-test';
/** ORGANISATION_HEADERS_TO_MASK of the gateway under test */
const ORG_MASKED = 'x-org-secret';

for (const backend of testBackends()) {
  describe(`request log [${backend.name}]`, () => {
    let gateway: TestGateway;
    let upstream: FakeUpstream;

    before(async () => {
      upstream = await startFakeUpstream();
      gateway = await startBackendGateway(backend, { env: { ORGANISATION_HEADERS_TO_MASK: ORG_MASKED.toUpperCase() } });
    });

    after(() => closeAll(() => gateway?.close(), () => upstream?.close()));

    /** the row(s) of one trace, once the writer has flushed */
    async function rowsOf(traceId: string): Promise<RequestLogRow[]> {
      await gateway.gateway.requestLog.flush();
      return findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, traceId);
    }

    async function onlyRow(traceId: string): Promise<RequestLogRow> {
      const rows = await rowsOf(traceId);
      assert.equal(rows.length, 1, `one row for trace ${traceId}`);
      return rows[0]!;
    }

    /** a client straight at the fake upstream (no config), or with a config */
    function client(config?: unknown, headers: Record<string, string> = {}): OpenAI {
      const routing: Record<string, string> = config === undefined
        ? { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl }
        : { 'x-gateway-config': JSON.stringify(config) };
      return new OpenAI({
        apiKey: 'sk-provider-key-never-logged',
        baseURL: gateway.baseURL,
        maxRetries: 0,
        defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, ...routing, ...headers },
      });
    }

    const to = (model: string, extra: Record<string, unknown> = {}) => ({ provider: 'openai', custom_host: upstream.baseUrl, override_params: { model }, ...extra });
    const messages = [{ role: 'user' as const, content: PROMPT }];

    /** a raw request, for answers the openai client would turn into exceptions before we see them */
    async function raw(headers: Record<string, string>, body: unknown) {
      const response = await request(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': gateway.adminKey, 'content-type': 'application/json', authorization: 'Bearer sk-x', ...headers },
        body: JSON.stringify(body),
      });
      const text = await response.body.text();
      return { status: response.statusCode, text };
    }

    test('a chat answer: status, provider, model, tokens, trace, caller, metadata, timings, its try, bodies; no keys', async () => {
      const trace = randomUUID();
      const metadata = { _user: 'jane', team: 'search' };
      await client(undefined, { 'x-gateway-metadata': JSON.stringify(metadata), 'x-gateway-span-id': 'span-1' })
        .chat.completions.create({ model: 'gpt-test', messages }, { headers: { 'x-gateway-trace-id': trace } });
      const row = await onlyRow(trace);
      assert.equal(row.status, 200);
      assert.equal(row.isSuccess, true);
      assert.equal(row.route, 'chat');
      assert.equal(row.method, 'POST');
      assert.equal(row.path, '/v1/chat/completions');
      assert.equal(row.provider, 'openai');
      assert.equal(row.model, 'gpt-test');
      assert.deepEqual([row.promptTokens, row.completionTokens, row.totalTokens], [5, 2, 7]);
      assert.equal(row.streamMode, false);
      assert.equal(row.cacheStatus, 'DISABLED');
      assert.equal(row.retryCount, 0);
      assert.equal(row.lastUsedOptionIndex, null);
      assert.equal(row.spanId, 'span-1');
      assert.deepEqual(row.metadata, metadata);
      assert.equal(row.organisationId, gateway.gateway.bootstrap.organisation.id);
      assert.equal(row.workspaceId, gateway.gateway.bootstrap.workspace.id);
      assert.match(row.apiKeyId ?? '', /^[0-9a-f-]{36}$/);
      assert.ok(row.responseTimeMs >= 0);
      assert.equal(row.error, null);
      assert.equal(row.hookResults, null);
      assert.equal(row.mode, 'single');
      assert.equal(row.attempts.length, 1);
      const [only] = row.attempts as Array<Record<string, unknown>>;
      assert.deepEqual({ ...only, started_ms: 0, duration_ms: 0 }, { path: null, provider: 'openai', model: 'gpt-test', status: 200, error: null, retry: 0, started_ms: 0, duration_ms: 0 });
      assert.ok((only!.started_ms as number) + (only!.duration_ms as number) <= row.responseTimeMs + 1);
      assert.equal(row.queueTimeMs, only!.started_ms, 'queueing runs to the first send');
      assert.ok(row.upstreamTimeMs !== null && row.upstreamTimeMs >= 0 && row.upstreamTimeMs <= row.responseTimeMs);
      assert.ok(row.firstByteMs !== null && row.firstByteMs <= row.responseTimeMs);
      assert.deepEqual(JSON.parse(row.requestBody ?? ''), { model: 'gpt-test', messages });
      assert.equal((JSON.parse(row.responseBody ?? '') as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content, 'Hello world');
      assert.equal(row.bodiesTruncated, false);
      assert.equal(row.gatewayHeaders?.['x-gateway-span-id'], 'span-1');
      assert.equal(row.gatewayHeaders?.['x-gateway-api-key'], '********');
      assert.equal(row.requestHeaders?.authorization, '********');
      assert.equal(row.responseHeaders?.['x-gateway-trace-id'], trace);
      assert.doesNotMatch(JSON.stringify(row), /sk-provider-key-never-logged/, 'the provider key is not stored');
      assert.doesNotMatch(JSON.stringify(row), new RegExp(gateway.adminKey), 'the gateway key is not stored');
    });

    test('bodies stay out with x-gateway-debug: false and for a workspace that turns them off; masked headers are hashed', async () => {
      const trace = randomUUID();
      await client(undefined, { 'x-gateway-debug': 'false' }).chat.completions.create({ model: 'gpt-test', messages }, { headers: { 'x-gateway-trace-id': trace } });
      const quiet = await onlyRow(trace);
      assert.equal(quiet.requestBody, null);
      assert.equal(quiet.responseBody, null);
      assert.equal(quiet.totalTokens, 7, 'the rest of the record is kept');
      assert.doesNotMatch(JSON.stringify(quiet), new RegExp(PROMPT));

      const masked = randomUUID();
      await client(undefined, { 'X-Caller-Token': 'caller-value-1', [ORG_MASKED]: 'org-value-2', 'x-gateway-sensitive-headers': 'x-CALLER-token' })
        .chat.completions.create({ model: 'gpt-test', messages }, { headers: { 'x-gateway-trace-id': masked } });
      const row = await onlyRow(masked);
      const hash = (value: string) => `sha256:${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
      assert.equal(row.requestHeaders?.['x-caller-token'], hash('caller-value-1'), 'named by the request');
      assert.equal(row.requestHeaders?.[ORG_MASKED], hash('org-value-2'), 'named by the organisation');
      assert.doesNotMatch(JSON.stringify(row), /caller-value-1|org-value-2/);

      const workspace = gateway.gateway.bootstrap.workspace.id;
      const put = await gateway.gateway.app.inject({ method: 'PUT', url: `/v1/admin/workspaces/${workspace}`, headers: { 'x-gateway-api-key': gateway.adminKey }, payload: { defaults: { log_bodies: false } } });
      assert.equal(put.statusCode, 200, put.body);
      try {
        const off = randomUUID();
        await client().chat.completions.create({ model: 'gpt-test', messages }, { headers: { 'x-gateway-trace-id': off } });
        const row = await onlyRow(off);
        assert.equal(row.requestBody, null);
        assert.equal(row.responseBody, null);
      } finally {
        await gateway.gateway.app.inject({ method: 'PUT', url: `/v1/admin/workspaces/${workspace}`, headers: { 'x-gateway-api-key': gateway.adminKey }, payload: { defaults: { log_bodies: true } } });
      }
    });

    test('a relayed stream: tokens from the final usage chunk, stream_mode, time to the end of the stream', async () => {
      const trace = randomUUID();
      const stream = await client().chat.completions.create(
        { model: 'gpt-stream', messages, stream: true, stream_options: { include_usage: true } },
        { headers: { 'x-gateway-trace-id': trace } },
      );
      let text = '';
      for await (const part of stream) text += part.choices[0]?.delta.content ?? '';
      assert.equal(text, 'Hello world');
      const row = await onlyRow(trace);
      assert.equal(row.status, 200);
      assert.equal(row.streamMode, true);
      assert.equal(row.model, 'gpt-stream');
      assert.deepEqual([row.promptTokens, row.completionTokens, row.totalTokens], [5, 2, 7]);
      assert.equal(row.error, null);
      const body = JSON.parse(row.responseBody ?? '') as { object: string; choices: Array<{ message: { content: string }; finish_reason: string }>; usage: unknown };
      assert.equal(body.object, 'chat.completion', 'the stream is reassembled into one answer');
      assert.equal(body.choices[0]?.message.content, 'Hello world');
      assert.equal(body.choices[0]?.finish_reason, 'stop');
      assert.ok(row.firstByteMs !== null && row.firstByteMs <= row.responseTimeMs, 'time to the first token');
      assert.equal(row.responseHeaders?.['content-type']?.startsWith('text/event-stream'), true);
    });

    test('long streams, relayed and read through the decoder, past what a request keeps: their answers logged whole', async () => {
      // 3,000 relayed events are ~500 KB (a request keeps 256 KB, then folds); 5,000 decoded chunks pass the 4,096 kept
      const guarded = { ...to('words-stream-5000'), output_guardrails: [{ 'default.contains': { operator: 'none', words: ['forbidden'] } }] };
      for (const [name, openai, model, count] of [['relayed', client(), 'words-stream-3000', 3_000], ['decoded', client(guarded), 'x', 5_000]] as const) {
        const trace = randomUUID();
        const stream = await openai.chat.completions.create({ model, messages, stream: true }, { headers: { 'x-gateway-trace-id': trace } });
        let text = '';
        for await (const part of stream) text += part.choices[0]?.delta.content ?? '';
        assert.equal(text, Array.from({ length: count }, (_, index) => `w${index} `).join(''), name);
        const row = await onlyRow(trace);
        assert.equal(row.bodiesTruncated, false, name);
        const body = JSON.parse(row.responseBody ?? '') as { choices: Array<{ message: { content: string }; finish_reason: string }> };
        assert.equal(body.choices[0]?.message.content, text, `${name}: the whole answer`);
        assert.equal(body.choices[0]?.finish_reason, 'stop', name);
      }
    });

    test('a relayed Responses stream: the Response its last event carried, not the events, however long', async () => {
      // long-200000: a stream of ~400 KB whose last event (~200 KB) spans several reads; its Response passes the 64 KiB
      // body cap, so it is cut there (and marked) as any body is
      for (const model of ['gpt-4o', 'long-50000', 'long-200000']) {
        const trace = randomUUID();
        let completed: OpenAI.Responses.Response | undefined;
        for await (const event of await client().responses.create({ model, input: 'Log me', stream: true }, { headers: { 'x-gateway-trace-id': trace } })) {
          if (event.type === 'response.completed') completed = event.response;
        }
        assert.ok(completed, model);
        const row = await onlyRow(trace);
        if (model === 'long-200000') {
          assert.ok(row.responseBody?.startsWith('{"id":"resp_fake","object":"response"'), `${model}: the Response, not the events`);
          assert.equal(row.responseBody?.length, 64 * 1024, model);
          assert.equal(row.bodiesTruncated, true, model);
          continue;
        }
        assert.equal(row.bodiesTruncated, false, model);
        assert.deepEqual(JSON.parse(row.responseBody!), JSON.parse(JSON.stringify(completed)), `${model}: the Response, not the events`);
      }
    });

    test('a stream without usage logs unknown tokens as null, never 0; its time runs to the end of the stream', async () => {
      const trace = randomUUID();
      // slow-<ms>: the first chunk at once, the rest after <ms>
      const stream = await client().chat.completions.create({ model: 'slow-250', messages, stream: true }, { headers: { 'x-gateway-trace-id': trace } });
      for await (const _part of stream) void _part;
      const row = await onlyRow(trace);
      assert.equal(row.streamMode, true);
      assert.deepEqual([row.promptTokens, row.completionTokens, row.totalTokens], [null, null, null]);
      assert.ok(row.responseTimeMs >= 250, `response_time_ms ${row.responseTimeMs} covers the whole stream`);
    });

    test('a stream read through the decoder (output guardrails): tokens from the usage chunk and the output verdicts', async () => {
      const trace = randomUUID();
      const config = { ...to('gpt-guarded'), output_guardrails: [{ 'default.contains': { operator: 'none', words: ['forbidden'] } }] };
      const stream = await client(config).chat.completions.create(
        { model: 'x', messages, stream: true, stream_options: { include_usage: true } },
        { headers: { 'x-gateway-trace-id': trace } },
      );
      for await (const _part of stream) void _part;
      const row = await onlyRow(trace);
      assert.equal(row.streamMode, true);
      assert.equal(row.model, 'gpt-guarded', 'the model after override_params');
      assert.deepEqual([row.promptTokens, row.completionTokens, row.totalTokens], [5, 2, 7]);
      const hooks = row.hookResults as { before_request_hooks: unknown[]; after_request_hooks: Array<{ verdict: boolean }> };
      assert.deepEqual(hooks.before_request_hooks, []);
      assert.equal(hooks.after_request_hooks[0]?.verdict, true);
    });

    test('a fallback and a retry: retry_count and last_used_option_index say what answered', async () => {
      const trace = randomUUID();
      const flaky = `flaky-1-log-${backend.name}`;
      const config = { strategy: { mode: 'fallback' }, targets: [to('error-503'), to(flaky, { retry: { attempts: 2 } })] };
      const { data } = await client(config).chat.completions.create({ model: 'x', messages }, { headers: { 'x-gateway-trace-id': trace } }).withResponse();
      assert.equal(data.model, flaky);
      const row = await onlyRow(trace);
      assert.equal(row.status, 200);
      assert.equal(row.lastUsedOptionIndex, 'config.targets[1]');
      assert.equal(row.retryCount, 1);
      assert.equal(row.model, flaky);
      assert.equal(row.totalTokens, 7);
      assert.equal(row.mode, 'fallback');
      const tries = (row.attempts as Array<{ path: string; model: string; status: number; retry: number; error: { message: string } | null; started_ms: number }>);
      assert.deepEqual(tries.map((entry) => [entry.path, entry.model, entry.status, entry.retry]), [
        ['config.targets[0]', 'error-503', 503, 0],
        ['config.targets[1]', flaky, 503, 0],
        ['config.targets[1]', flaky, 200, 1],
      ]);
      assert.equal(tries[0]?.error?.message, 'fake upstream error 503');
      assert.equal(tries[2]?.error, null);
      assert.ok(tries[0]!.started_ms <= tries[1]!.started_ms && tries[1]!.started_ms <= tries[2]!.started_ms);
    });

    test('input guardrails that fail without deny: the verdicts are in hook_results, the request succeeds', async () => {
      const trace = randomUUID();
      const config = { ...to('gpt-test'), input_guardrails: [{ 'default.contains': { operator: 'none', words: ['prompt'] } }] };
      await client(config).chat.completions.create({ model: 'x', messages }, { headers: { 'x-gateway-trace-id': trace } });
      const row = await onlyRow(trace);
      assert.equal(row.status, 200);
      assert.equal(row.isSuccess, true);
      const hooks = row.hookResults as { before_request_hooks: Array<{ verdict: boolean; checks: Array<{ id: string }> }>; after_request_hooks: unknown[] };
      assert.equal(hooks.before_request_hooks[0]?.verdict, false);
      assert.equal(hooks.before_request_hooks[0]?.checks[0]?.id, 'default.contains');
      assert.deepEqual(hooks.after_request_hooks, []);
    });

    test('an input deny (446) is logged with its error and verdicts, and no provider was called', async () => {
      const trace = randomUUID();
      const since = upstream.requests.length;
      const config = { ...to('gpt-test'), input_guardrails: [{ 'default.contains': { operator: 'none', words: ['prompt'] }, deny: true }] };
      await assert.rejects(
        client(config).chat.completions.create({ model: 'x', messages }, { headers: { 'x-gateway-trace-id': trace } }),
        (error: unknown) => error instanceof OpenAI.APIError && error.status === 446,
      );
      assert.equal(upstream.requests.length, since, 'no provider call');
      const row = await onlyRow(trace);
      assert.equal(row.status, 446);
      assert.equal(row.isSuccess, false);
      assert.equal(row.provider, null);
      assert.deepEqual(row.error, { message: 'The input guardrails denied the request.', type: 'guardrail_error', code: 'input_guardrail_denied' });
      const hooks = row.hookResults as { before_request_hooks: Array<{ verdict: boolean; deny: boolean }> };
      assert.equal(hooks.before_request_hooks[0]?.verdict, false);
      assert.equal(hooks.before_request_hooks[0]?.deny, true);
    });

    test('an output deny of a JSON answer (446) keeps the output verdicts and the answer is not stored', async () => {
      const trace = randomUUID();
      const config = { ...to('gpt-test'), output_guardrails: [{ 'default.contains': { operator: 'none', words: ['world'] }, deny: true }] };
      const result = await raw({ 'x-gateway-config': JSON.stringify(config), 'x-gateway-trace-id': trace }, { model: 'x', messages });
      assert.equal(result.status, 446);
      const row = await onlyRow(trace);
      assert.equal(row.status, 446);
      assert.equal((row.error as { code: string }).code, 'output_guardrail_denied');
      const hooks = row.hookResults as { after_request_hooks: Array<{ verdict: boolean }> };
      assert.equal(hooks.after_request_hooks[0]?.verdict, false);
    });

    test('a validation error (400) is logged, with the route it was for', async () => {
      const trace = randomUUID();
      const result = await raw({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-trace-id': trace }, { model: 'gpt-test' });
      assert.equal(result.status, 400);
      const row = await onlyRow(trace);
      assert.equal(row.status, 400);
      assert.equal(row.isSuccess, false);
      assert.equal(row.route, 'chat');
      assert.equal(row.model, 'gpt-test');
      assert.equal((row.error as { type: string }).type, 'invalid_request_error');
    });

    test('a timeout (408) and an answer that is not JSON (502) are logged with their errors', async () => {
      const timedOut = randomUUID();
      const slow = await raw(
        { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-request-timeout': '100', 'x-gateway-trace-id': timedOut },
        { model: 'slow-3000', messages },
      );
      assert.equal(slow.status, 408);
      const garbled = randomUUID();
      const garbage = await raw({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-trace-id': garbled }, { model: 'garbage', messages });
      assert.equal(garbage.status, 502);
      const timeoutRow = await onlyRow(timedOut);
      assert.equal(timeoutRow.status, 408);
      assert.equal((timeoutRow.error as { type: string }).type, 'timeout_error');
      const [tried] = timeoutRow.attempts as Array<{ status: number; error: { type: string }; duration_ms: number }>;
      assert.equal(tried?.status, 408);
      assert.ok(tried!.duration_ms >= 100, `the try lasted its timeout (${tried!.duration_ms} ms)`);
      assert.equal(timeoutRow.responseBody, null);
      const garbageRow = await onlyRow(garbled);
      assert.equal(garbageRow.status, 502);
      assert.equal(garbageRow.provider, 'openai');
      assert.equal((garbageRow.error as { code: string }).code, 'bad_upstream_response');
    });

    test('a provider error keeps its status and message', async () => {
      const trace = randomUUID();
      await assert.rejects(client().chat.completions.create({ model: 'error-429', messages }, { headers: { 'x-gateway-trace-id': trace } }));
      const row = await onlyRow(trace);
      assert.equal(row.status, 429);
      assert.equal(row.isSuccess, false);
      assert.deepEqual(row.error, { message: 'fake upstream error 429', type: 'fake_error', code: 'fake' });
      assert.deepEqual((row.attempts as Array<{ status: number; error: unknown }>).map((entry) => [entry.status, entry.error]), [[429, { type: 'fake_error', message: 'fake upstream error 429' }]]);
      assert.match(row.responseBody ?? '', /fake upstream error 429/, 'the error answer is kept');
    });

    test('a client that leaves before the answer is logged as 499 with a client_closed error', async () => {
      const trace = randomUUID();
      const aborted = upstream.aborted;
      const controller = new AbortController();
      const pending = request(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'x-gateway-api-key': gateway.adminKey, 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-trace-id': trace },
        body: JSON.stringify({ model: 'slow-5000', messages }),
      });
      // once the upstream holds the request, the client goes away
      const deadline = Date.now() + 5_000;
      while (!upstream.requests.some((seen) => (seen.json as { model?: string } | undefined)?.model === 'slow-5000')) {
        assert.ok(Date.now() < deadline, 'the request reached the upstream');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      controller.abort();
      await assert.rejects(pending);
      // the gateway aborts the upstream call after it has seen the client leave (and queued the row)
      await upstream.waitForAborted(aborted + 1);
      const row = await onlyRow(trace);
      assert.equal(row.status, 499);
      assert.equal(row.isSuccess, false);
      assert.equal((row.error as { code: string }).code, 'client_closed_request');
    });

    test('a cache HIT is logged as HIT with the stored answer\'s tokens', async () => {
      const config = { ...to('gpt-cached'), cache: { mode: 'simple', max_age: 60 } };
      const content = `cache me ${backend.name} ${randomUUID()}`;
      const first = randomUUID();
      const second = randomUUID();
      await client(config).chat.completions.create({ model: 'x', messages: [{ role: 'user', content }] }, { headers: { 'x-gateway-trace-id': first } });
      await client(config).chat.completions.create({ model: 'x', messages: [{ role: 'user', content }] }, { headers: { 'x-gateway-trace-id': second } });
      assert.equal((await onlyRow(first)).cacheStatus, 'MISS');
      const hit = await onlyRow(second);
      assert.equal(hit.cacheStatus, 'HIT');
      assert.equal(hit.status, 200);
      assert.equal(hit.totalTokens, 7);
      assert.deepEqual(hit.attempts, [], 'no provider was called');
      assert.equal(hit.upstreamTimeMs, null);
      assert.match(hit.responseBody ?? '', /Hello world/);
    });

    test('pass-through routes are logged without their query string; admin routes are not logged', async () => {
      const trace = randomUUID();
      const response = await request(`${gateway.baseURL}/some/provider/path?key=provider-secret`, {
        method: 'GET',
        headers: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-trace-id': trace },
      });
      await response.body.text();
      assert.equal(response.statusCode, 200);
      const row = await onlyRow(trace);
      assert.equal(row.route, 'passthrough');
      assert.equal(row.path, '/v1/some/provider/path');
      // the fake echoes the query in its answer body; everything the gateway itself records leaves it out
      assert.doesNotMatch(JSON.stringify({ ...row, responseBody: null }), /provider-secret/);
      assert.match(row.responseBody ?? '', /"echo":true/, 'the pass-through answer is kept');

      const adminTrace = randomUUID();
      const admin = await request(`${gateway.baseURL}/api-keys`, { headers: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-trace-id': adminTrace } });
      await admin.body.text();
      assert.deepEqual(await rowsOf(adminTrace), []);
    });
  });
}
