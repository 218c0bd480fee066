/**
 * The spans made from a finished request's log row, exported to the SDK's in-memory exporter: where they hang
 * (traceparent, then the gateway's trace headers, then a new trace), their kinds and times (request from its
 * arrival to its end, one child per upstream try at its own offset), and the GenAI attributes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { GEN_AI, operationName } from '../../src/tracing/gen-ai-attributes.ts';
import { createTracing } from '../../src/tracing/tracing.ts';
import { finished, STARTED_AT } from '../metrics/finished-rows.ts';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

function tracingWithMemory() {
  const exporter = new InMemorySpanExporter();
  const errors: unknown[] = [];
  const tracing = createTracing({ exporter, serviceName: 'gateway-under-test', processor: 'simple', onError: (error) => errors.push(error) });
  return { tracing, exporter, errors };
}

const byKind = (spans: ReadableSpan[], kind: SpanKind) => spans.filter((span) => span.kind === kind);
const only = (spans: ReadableSpan[]) => {
  assert.equal(spans.length, 1);
  return spans[0]!;
};

const ATTEMPTS = [
  { path: '0', provider: 'first-provider', model: 'model-a', started_ms: 12, duration_ms: 300, status: 503, error: { type: 'upstream_error', message: 'overloaded' }, retry: 0 },
  { path: '1', provider: 'second-provider', model: 'model-b', started_ms: 320, duration_ms: 900, status: 200, error: null, retry: 0 },
];

describe('request and attempt spans', () => {
  test('a traceparent is the parent; one SERVER span over the request, one CLIENT span per try at its offset', async () => {
    const { tracing, exporter, errors } = tracingWithMemory();
    tracing.observe(finished(
      { route: 'chat', provider: 'second-provider', model: 'model-b', responseTimeMs: 1500, attempts: ATTEMPTS, retryCount: 0, cachedTokens: 4, reasoningTokens: 2, streamMode: true, firstByteMs: 400 },
      { traceparent: TRACEPARENT, 'x-gateway-trace-id': 'ffffffffffffffffffffffffffffffff' },
      ['stop'],
    ));
    await tracing.flush();
    assert.deepEqual(errors, []);
    const spans = exporter.getFinishedSpans();
    assert.equal(spans.length, 3);
    const server = only(byKind(spans, SpanKind.SERVER));
    assert.equal(server.spanContext().traceId, CALLER_TRACE);
    assert.equal(server.parentSpanContext?.spanId, CALLER_SPAN);
    assert.equal(server.name, 'chat model-b');
    assert.equal(hrTimeToMilliseconds(server.startTime), STARTED_AT);
    assert.equal(hrTimeToMilliseconds(server.endTime), STARTED_AT + 1500);
    assert.equal(server.status.code, SpanStatusCode.UNSET);
    assert.equal(server.resource.attributes['service.name'], 'gateway-under-test');
    assert.deepEqual(
      { ...server.attributes },
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'second-provider',
        'gen_ai.system': 'second-provider',
        'gen_ai.request.model': 'model-b',
        'gen_ai.request.stream': true,
        'gen_ai.usage.input_tokens': 11,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.usage.cache_read.input_tokens': 4,
        'gen_ai.usage.reasoning.output_tokens': 2,
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.response.time_to_first_chunk': 0.4,
        'http.request.method': 'POST',
        'http.response.status_code': 200,
        'url.path': '/v1/chat/completions',
        'gateway.trace_id': 'trace-not-an-otel-id',
        'gateway.route': 'chat',
        'gateway.cache.status': 'MISS',
        'gateway.retry_count': 0,
        'gateway.cost_usd': 0.000123,
      },
    );

    const clients = byKind(spans, SpanKind.CLIENT).sort((a, b) => hrTimeToMilliseconds(a.startTime) - hrTimeToMilliseconds(b.startTime));
    assert.equal(clients.length, 2);
    for (const client of clients) {
      assert.equal(client.spanContext().traceId, CALLER_TRACE);
      assert.equal(client.parentSpanContext?.spanId, server.spanContext().spanId);
    }
    const [failed, answered] = clients as [ReadableSpan, ReadableSpan];
    assert.equal(failed.name, 'chat model-a');
    assert.equal(hrTimeToMilliseconds(failed.startTime), STARTED_AT + 12);
    assert.equal(hrTimeToMilliseconds(failed.endTime), STARTED_AT + 312);
    assert.equal(failed.status.code, SpanStatusCode.ERROR);
    assert.equal(failed.status.message, 'overloaded');
    assert.equal(failed.attributes['error.type'], 'upstream_error');
    assert.equal(failed.attributes['http.response.status_code'], 503);
    assert.equal(failed.attributes['gen_ai.provider.name'], 'first-provider');
    assert.equal(failed.attributes['gateway.attempt.path'], '0');
    assert.equal(failed.attributes['gen_ai.usage.input_tokens'], undefined, 'usage belongs to the try that answered');
    assert.equal(hrTimeToMilliseconds(answered.startTime), STARTED_AT + 320);
    assert.equal(hrTimeToMilliseconds(answered.endTime), STARTED_AT + 1220);
    assert.equal(answered.status.code, SpanStatusCode.UNSET);
    assert.equal(answered.attributes['gen_ai.request.model'], 'model-b');
    assert.equal(answered.attributes['gen_ai.usage.output_tokens'], 7);
    assert.deepEqual(answered.attributes['gen_ai.response.finish_reasons'], ['stop']);
    assert.equal(answered.attributes['error.type'], undefined);
  });

  test('without a traceparent, the gateway headers name the trace, the parent and the span itself when they are OTel ids', async () => {
    const { tracing, exporter } = tracingWithMemory();
    tracing.observe(finished({ traceId: 'ABCDEF0123456789ABCDEF0123456789', parentSpanId: '1111222233334444', spanId: 'aaaabbbbccccdddd' }));
    await tracing.flush();
    const server = only(exporter.getFinishedSpans());
    assert.equal(server.spanContext().traceId, 'abcdef0123456789abcdef0123456789');
    assert.equal(server.spanContext().spanId, 'aaaabbbbccccdddd');
    assert.equal(server.parentSpanContext?.spanId, '1111222233334444');
    assert.equal(server.attributes['gateway.trace_id'], 'ABCDEF0123456789ABCDEF0123456789');
  });

  test('a UUID trace id (the gateway generates those) is the trace; with no parent span id the span is a root', async () => {
    const { tracing, exporter } = tracingWithMemory();
    tracing.observe(finished({ traceId: '0af76519-16cd-43dd-8448-eb211c80319c', parentSpanId: 'not-hex' }, { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }));
    await tracing.flush();
    const server = only(exporter.getFinishedSpans());
    assert.equal(server.spanContext().traceId, '0af7651916cd43dd8448eb211c80319c', 'an all-zero traceparent is invalid: the gateway id wins');
    assert.equal(server.parentSpanContext, undefined);
  });

  test('ids that are not OTel ids start a new trace; a span id is not reused by the next span', async () => {
    const { tracing, exporter } = tracingWithMemory();
    tracing.observe(finished({ traceId: 'my-trace', spanId: 'span-1', attempts: [ATTEMPTS[1]!] }));
    tracing.observe(finished({ traceId: 'cccccccccccccccccccccccccccccccc', spanId: 'dddddddddddddddd' }));
    tracing.observe(finished({ traceId: 'my-trace' }));
    await tracing.flush();
    const servers = byKind(exporter.getFinishedSpans(), SpanKind.SERVER);
    assert.equal(servers.length, 3);
    const traceIds = servers.map((span) => span.spanContext().traceId);
    assert.match(traceIds[0]!, /^[0-9a-f]{32}$/);
    assert.equal(traceIds[1], 'cccccccccccccccccccccccccccccccc');
    assert.notEqual(traceIds[2], traceIds[0]);
    assert.notEqual(traceIds[2], 'cccccccccccccccccccccccccccccccc', 'a preset id is used once');
    assert.notEqual(servers[2]!.spanContext().spanId, 'dddddddddddddddd');
    assert.equal(servers[0]!.attributes['gateway.trace_id'], 'my-trace');
  });

  test('a failed request: ERROR status with the message, error.type from the error the client got (or the status)', async () => {
    const { tracing, exporter } = tracingWithMemory();
    tracing.observe(finished({ status: 429, isSuccess: false, error: { message: 'Rate limit exceeded', type: 'rate_limit_error', code: 'rate_limit_exceeded' }, promptTokens: null, completionTokens: null, cost: null }));
    tracing.observe(finished({ status: 499, isSuccess: false, error: null }));
    await tracing.flush();
    const [limited, closed] = exporter.getFinishedSpans() as [ReadableSpan, ReadableSpan];
    assert.equal(limited.status.code, SpanStatusCode.ERROR);
    assert.equal(limited.status.message, 'Rate limit exceeded');
    assert.equal(limited.attributes['error.type'], 'rate_limit_error');
    assert.equal(limited.attributes['http.response.status_code'], 429);
    assert.equal(limited.attributes['gen_ai.usage.input_tokens'], undefined, 'unknown counts are left out, never 0');
    assert.equal(limited.attributes['gateway.cost_usd'], undefined);
    assert.equal(closed.attributes['error.type'], '499');
  });

  test('a caller that did not sample its trace (traceparent flags 00) gets no spans', async () => {
    const { tracing, exporter } = tracingWithMemory();
    tracing.observe(finished({ attempts: ATTEMPTS }, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-00` }));
    await tracing.flush();
    assert.equal(exporter.getFinishedSpans().length, 0);
  });

  test('an observer never throws: a row it cannot read is reported, and the next one still traced', async () => {
    const { tracing, exporter, errors } = tracingWithMemory();
    assert.doesNotThrow(() => tracing.observe(finished({ createdAt: 'not a date' as unknown as Date })));
    assert.equal(errors.length, 1);
    tracing.observe(finished());
    await tracing.flush();
    assert.equal(exporter.getFinishedSpans().length, 1);
  });

  test('route kinds map to gen_ai.operation.name values; the names are those of the semantic conventions package', () => {
    assert.equal(operationName('chat'), incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT);
    assert.equal(operationName('completions'), incubating.GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION);
    assert.equal(operationName('embeddings'), incubating.GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS);
    assert.equal(operationName('messages'), incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT);
    assert.equal(operationName('responses.create'), incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT);
    assert.equal(operationName('rerank'), 'rerank');
    assert.deepEqual(GEN_AI, {
      operationName: incubating.ATTR_GEN_AI_OPERATION_NAME,
      providerName: incubating.ATTR_GEN_AI_PROVIDER_NAME,
      system: incubating.ATTR_GEN_AI_SYSTEM,
      requestModel: incubating.ATTR_GEN_AI_REQUEST_MODEL,
      responseModel: incubating.ATTR_GEN_AI_RESPONSE_MODEL,
      requestStream: incubating.ATTR_GEN_AI_REQUEST_STREAM,
      responseFinishReasons: incubating.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
      responseTimeToFirstChunk: incubating.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
      inputTokens: incubating.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      outputTokens: incubating.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      cacheReadInputTokens: incubating.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      cacheCreationInputTokens: incubating.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
      reasoningOutputTokens: incubating.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
    });
  });
});
