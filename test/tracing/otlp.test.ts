/**
 * Traces end to end: a gateway started with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a small collector on
 * 127.0.0.1, requests through it with the official openai client (a traceparent on each), then a graceful
 * shutdown, which must export every span. What the collector received is decoded (OTLP/HTTP JSON) and checked:
 * trace id continuity, parent ids, span kinds and times, GenAI attributes, one span per upstream try.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { findRequestLogsByTraceId, type RequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-upstream.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes: Array<{ key: string; value: OtlpValue }>;
  status?: { code?: number; message?: string };
}
interface ExportRequest {
  resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: OtlpValue }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

/** OTLP's enum values (opentelemetry-proto trace.proto) */
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const STATUS_CODE_ERROR = 2;

function plain(value: OtlpValue): unknown {
  if (value.arrayValue) return value.arrayValue.values.map(plain);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}
const attributesOf = (list: Array<{ key: string; value: OtlpValue }>) => Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));
const ms = (nanos: string | number) => Number(BigInt(nanos) / 1_000_000n);

/** a collector: records each export request's path, content type and decoded body */
async function startCollector() {
  const received: Array<{ path: string; contentType: string; body: ExportRequest }> = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const contentType = String(req.headers['content-type']);
      received.push({ path: req.url ?? '', contentType, body: JSON.parse(Buffer.concat(parts).toString('utf8')) as ExportRequest });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

let collector: Awaited<ReturnType<typeof startCollector>>;
let upstream: FakeUpstream;
let anthropicUpstream: FakeAnthropic;
let gateway: TestGateway;
let closed = false;

before(async () => {
  collector = await startCollector();
  upstream = await startFakeUpstream();
  anthropicUpstream = await startFakeAnthropic();
  gateway = await startTestGateway({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin, OTEL_SERVICE_NAME: 'gateway-otlp-test' } });
});

after(() => closeAll(() => (closed ? undefined : gateway?.close()), () => upstream?.close(), () => anthropicUpstream?.close(), () => collector?.close()));

const newTraceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
};

test('each request is a SERVER span under the caller\'s traceparent, each upstream try a CLIENT span under it; all exported at shutdown', async () => {
  const client = (headers: Record<string, string>) => new OpenAI({ apiKey: 'sk-x', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, ...headers } });
  const messages = [{ role: 'user' as const, content: 'hello' }];

  const direct = newTraceparent();
  const directLogTrace = randomUUID();
  await client({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, traceparent: direct.header, 'x-gateway-trace-id': directLogTrace })
    .chat.completions.create({ model: 'gpt-4o', messages });

  const fallback = newTraceparent();
  const fallbackLogTrace = randomUUID();
  const config = {
    strategy: { mode: 'fallback' },
    targets: [
      { provider: 'openai', custom_host: upstream.baseUrl, override_params: { model: 'error-500' } },
      { provider: 'openai', custom_host: upstream.baseUrl, override_params: { model: 'gpt-4o-mini' } },
    ],
  };
  await client({ 'x-gateway-config': JSON.stringify(config), traceparent: fallback.header, 'x-gateway-trace-id': fallbackLogTrace })
    .chat.completions.create({ model: 'ignored', messages });

  // no traceparent: the gateway's own trace id (32 hex digits) and parent span id place the span
  const gatewayTrace = randomBytes(16).toString('hex');
  const gatewayParent = randomBytes(8).toString('hex');
  await client({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-trace-id': gatewayTrace, 'x-gateway-parent-span-id': gatewayParent })
    .embeddings.create({ model: 'text-embedding-3-small', input: 'hello' });

  // bodies not logged (x-gateway-debug: false): the spans still carry the answer's finish reasons, JSON and stream
  const quiet = newTraceparent();
  await client({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, traceparent: quiet.header, 'x-gateway-debug': 'false' })
    .chat.completions.create({ model: 'gpt-4o', messages });
  const quietStream = newTraceparent();
  const stream = await client({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, traceparent: quietStream.header, 'x-gateway-debug': 'false' })
    .chat.completions.create({ model: 'gpt-4o', messages, stream: true });
  for await (const chunk of stream) void chunk;
  // two choices relayed, bodies not logged: the first finished ~8 KB before the stream's end, past its tail
  const twoChoices = newTraceparent();
  const twoStream = await client({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, traceparent: twoChoices.header, 'x-gateway-debug': 'false' })
    .chat.completions.create({ model: 'gpt-4o', messages, stream: true, n: 2 });
  const choiceEnds: Array<string | null> = [];
  for await (const chunk of twoStream) for (const choice of chunk.choices) if (choice.finish_reason) choiceEnds[choice.index] = choice.finish_reason;
  assert.deepEqual(choiceEnds, ['stop', 'length'], 'the fake upstream streamed two choices');

  // a cache hit, bodies not logged: the stored answer's finish reasons
  const cacheConfig = JSON.stringify({ provider: 'openai', custom_host: upstream.baseUrl, cache: { mode: 'simple', max_age: 600 } });
  const cacheMessages = [{ role: 'user' as const, content: `cache me ${randomUUID()}` }];
  const cacheMiss = newTraceparent();
  await client({ 'x-gateway-config': cacheConfig, traceparent: cacheMiss.header }).chat.completions.create({ model: 'gpt-4o', messages: cacheMessages });
  const cacheHit = newTraceparent();
  await client({ 'x-gateway-config': cacheConfig, traceparent: cacheHit.header, 'x-gateway-debug': 'false' }).chat.completions.create({ model: 'gpt-4o', messages: cacheMessages });

  // the Messages API from a native target: its stop_reason is the finish reason, a JSON answer (bodies logged) and a
  // stream relayed as it came (bodies not logged)
  const anthropic = (headers: Record<string, string>) => new Anthropic({
    apiKey: 'sk-ant-provider',
    baseURL: gateway.origin,
    maxRetries: 0,
    defaultHeaders: { 'anthropic-version': '2023-06-01', 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropicUpstream.baseUrl, ...headers },
  });
  const message = newTraceparent();
  await anthropic({ traceparent: message.header }).messages.create({ model: 'm', max_tokens: 64, messages });
  const messageStream = newTraceparent();
  const events = await anthropic({ traceparent: messageStream.header, 'x-gateway-debug': 'false' }).messages.create({ model: 'm', max_tokens: 64, messages, stream: true });
  for await (const event of events) void event;

  // the Responses API, bodies not logged: a Response's status is its finish reason, JSON and streamed; a native
  // target's stream is relayed as it came, its last event (the whole Response) longer than the tail kept for usage
  const openaiTarget = { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-debug': 'false' };
  const response = newTraceparent();
  await client({ ...openaiTarget, traceparent: response.header }).responses.create({ model: 'gpt-4o', input: 'hello' });
  const responseStream = newTraceparent();
  const responseEvents = await client({ ...openaiTarget, traceparent: responseStream.header }).responses.create({ model: 'long-10000', input: 'hello', stream: true });
  for await (const event of responseEvents) void event;
  const responseCut = newTraceparent();
  const cutEvents = await client({ ...openaiTarget, traceparent: responseCut.header }).responses.create({ model: 'gpt-4o', input: 'hello', max_output_tokens: 1, stream: true });
  for await (const event of cutEvents) void event;
  // a Response made from a chat answer (Anthropic's Messages API has no Responses API)
  const overChat = newTraceparent();
  await client({ 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropicUpstream.baseUrl, 'x-gateway-debug': 'false', traceparent: overChat.header })
    .responses.create({ model: 'm', input: 'hello' });

  await gateway.gateway.requestLog.flush();
  const rowOf = async (trace: string): Promise<RequestLogRow> => {
    const rows = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, trace);
    assert.equal(rows.length, 1);
    return rows[0]!;
  };
  const directRow = await rowOf(directLogTrace);
  const fallbackRow = await rowOf(fallbackLogTrace);

  // the batch processor holds spans for seconds: only the graceful shutdown sends them now
  await gateway.close();
  closed = true;

  assert.ok(collector.received.length > 0, 'the collector received an export');
  for (const item of collector.received) {
    assert.equal(item.path, '/v1/traces');
    assert.equal(item.contentType, 'application/json');
  }
  const resources = collector.received.flatMap((item) => item.body.resourceSpans);
  for (const resource of resources) assert.equal(attributesOf(resource.resource.attributes)['service.name'], 'gateway-otlp-test');
  const spans = resources.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
  const inTrace = (traceId: string) => spans.filter((span) => span.traceId === traceId);

  // the plain request: SERVER under the traceparent's span, one CLIENT under it
  const directSpans = inTrace(direct.traceId);
  assert.equal(directSpans.length, 2);
  const server = directSpans.find((span) => span.kind === SPAN_KIND_SERVER)!;
  assert.equal(server.parentSpanId, direct.spanId);
  assert.equal(server.name, 'chat gpt-4o');
  assert.equal(ms(server.startTimeUnixNano), directRow.createdAt.getTime());
  assert.equal(ms(server.endTimeUnixNano), directRow.createdAt.getTime() + directRow.responseTimeMs);
  const serverAttributes = attributesOf(server.attributes);
  assert.equal(serverAttributes['gen_ai.operation.name'], 'chat');
  assert.equal(serverAttributes['gen_ai.provider.name'], 'openai');
  assert.equal(serverAttributes['gen_ai.request.model'], 'gpt-4o');
  assert.equal(serverAttributes['gen_ai.usage.input_tokens'], directRow.promptTokens);
  assert.equal(serverAttributes['gen_ai.usage.output_tokens'], directRow.completionTokens);
  assert.equal(serverAttributes['http.response.status_code'], 200);
  assert.equal(serverAttributes['gateway.trace_id'], directLogTrace, 'the way back to the log row');
  const directClient = directSpans.find((span) => span.kind === SPAN_KIND_CLIENT)!;
  assert.equal(directClient.parentSpanId, server.spanId);
  const directTry = directRow.attempts[0] as { started_ms: number; duration_ms: number };
  assert.equal(ms(directClient.startTimeUnixNano), directRow.createdAt.getTime() + directTry.started_ms);
  assert.equal(attributesOf(directClient.attributes)['http.response.status_code'], 200);

  // the fallback: two tries under one SERVER span, the failed one marked
  const fallbackSpans = inTrace(fallback.traceId);
  assert.equal(fallbackSpans.length, 1 + fallbackRow.attempts.length);
  assert.equal(fallbackRow.attempts.length, 2);
  const fallbackServer = fallbackSpans.find((span) => span.kind === SPAN_KIND_SERVER)!;
  assert.equal(fallbackServer.parentSpanId, fallback.spanId);
  const tries = fallbackSpans.filter((span) => span.kind === SPAN_KIND_CLIENT).sort((a, b) => ms(a.startTimeUnixNano) - ms(b.startTimeUnixNano));
  for (const attempt of tries) assert.equal(attempt.parentSpanId, fallbackServer.spanId);
  const [failed, answered] = tries.map((attempt) => ({ span: attempt, attributes: attributesOf(attempt.attributes) }));
  assert.equal(failed!.attributes['gen_ai.request.model'], 'error-500');
  assert.equal(failed!.attributes['http.response.status_code'], 500);
  assert.ok(failed!.attributes['error.type'], 'the failed try names its error type');
  assert.equal(failed!.span.status?.code, STATUS_CODE_ERROR);
  assert.equal(answered!.attributes['gen_ai.request.model'], 'gpt-4o-mini');
  assert.equal(answered!.attributes['gen_ai.usage.output_tokens'], fallbackRow.completionTokens);
  assert.deepEqual(answered!.attributes['gen_ai.response.finish_reasons'], ['stop']);
  assert.equal(answered!.attributes['error.type'], undefined);

  // the gateway's headers as OTel ids
  const embeddingSpans = inTrace(gatewayTrace);
  const embeddingServer = embeddingSpans.find((span) => span.kind === SPAN_KIND_SERVER);
  assert.ok(embeddingServer, 'the x-gateway-trace-id names the trace');
  assert.equal(embeddingServer.parentSpanId, gatewayParent);
  assert.equal(attributesOf(embeddingServer.attributes)['gen_ai.operation.name'], 'embeddings');

  const quietServers = [quiet, quietStream].map((trace) => inTrace(trace.traceId).find((span) => span.kind === SPAN_KIND_SERVER));
  for (const quietServer of quietServers) {
    assert.ok(quietServer, 'a request without logged bodies is traced');
    assert.deepEqual(attributesOf(quietServer.attributes)['gen_ai.response.finish_reasons'], ['stop'], quietServer.name);
    assert.equal(attributesOf(quietServer.attributes)['gen_ai.response.model'], 'gpt-4o', quietServer.name);
  }
  const twoServer = inTrace(twoChoices.traceId).find((span) => span.kind === SPAN_KIND_SERVER);
  assert.ok(twoServer);
  assert.deepEqual(attributesOf(twoServer.attributes)['gen_ai.response.finish_reasons'], ['stop', 'length'], 'each choice\'s, the first one\'s from before the tail');

  for (const trace of [message, messageStream]) {
    const messageServer = inTrace(trace.traceId).find((span) => span.kind === SPAN_KIND_SERVER);
    assert.ok(messageServer, 'a Messages request is traced');
    assert.equal(messageServer.name, 'chat m', 'a Messages request is a chat operation');
    assert.deepEqual(attributesOf(messageServer.attributes)['gen_ai.response.finish_reasons'], ['end_turn'], messageServer.name);
    assert.equal(attributesOf(messageServer.attributes)['gen_ai.response.model'], 'm', 'the model that answered');
  }

  const hitServer = inTrace(cacheHit.traceId).find((span) => span.kind === SPAN_KIND_SERVER);
  assert.ok(hitServer, 'a cache hit is traced');
  assert.equal(attributesOf(hitServer.attributes)['gateway.cache.status'], 'HIT');
  assert.deepEqual(attributesOf(hitServer.attributes)['gen_ai.response.finish_reasons'], ['stop']);

  const responsesCases: Array<[ReturnType<typeof newTraceparent>, string[], string]> = [
    [response, ['stop'], 'gpt-4o'],
    [responseStream, ['stop'], 'long-10000'],
    [responseCut, ['max_output_tokens'], 'gpt-4o'],
    [overChat, ['stop'], 'm'],
  ];
  for (const [trace, reasons, model] of responsesCases) {
    const responseServer = inTrace(trace.traceId).find((span) => span.kind === SPAN_KIND_SERVER);
    assert.ok(responseServer, 'a Responses request is traced');
    assert.equal(responseServer.name, `chat ${model}`);
    assert.deepEqual(attributesOf(responseServer.attributes)['gen_ai.response.finish_reasons'], reasons, model);
    assert.equal(attributesOf(responseServer.attributes)['gen_ai.response.model'], model, model);
  }

  const quietSpans = [quiet, quietStream, twoChoices, message, messageStream, cacheMiss, cacheHit, ...responsesCases.map(([trace]) => trace)].reduce((sum, trace) => sum + inTrace(trace.traceId).length, 0);
  assert.equal(spans.length, directSpans.length + fallbackSpans.length + embeddingSpans.length + quietSpans, 'no other span was exported');
});
