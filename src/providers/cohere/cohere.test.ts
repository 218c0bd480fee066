import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import type { ChatCompletion, ChatCompletionChunk, EmbeddingResponse, RerankResponse } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderTarget, RouteKind, StreamDecoder } from '../contract.ts';
import { createCohereAdapter } from './index.ts';

const adapter = createCohereAdapter({ clock: { now: () => 1_700_000_000_000, newId: () => 'unused' } });
const target: ProviderTarget = { provider: 'cohere', baseUrl: 'https://api.cohere.com', customHost: false, apiKey: 'co-key', cloud: {} };

interface Fixture {
  request: Record<string, unknown>;
  strict?: boolean;
  expected: unknown;
  warnings: string[];
  providerRequest: unknown;
  providerResponse: Record<string, unknown>;
  events: Array<{ event?: string; data: unknown }>;
  assembledToolCalls: unknown;
}
const fixture = (name: string): Fixture => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as Fixture;

function call(route: RouteKind, body: unknown, extra: Partial<InferenceCall> = {}): InferenceCall {
  const rawBody = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody, contentType: 'application/json', params: {}, ...extra };
}

function decode(decoder: StreamDecoder, events: Array<{ event?: string; data: unknown }>): unknown[] {
  const out: unknown[] = [];
  for (const event of events) out.push(...decoder.push({ event: event.event, data: typeof event.data === 'string' ? event.data : JSON.stringify(event.data) }));
  out.push(...decoder.end());
  return out;
}

describe('cohere: request in -> provider request', () => {
  test('chat: messages, tools, sampling and format mapped; unsupported settings warned and dropped (fixture)', () => {
    const { request, expected, warnings } = fixture('chat-request.json');
    const built = adapter.buildRequest(call('chat', request), target);
    assert.equal(`${built.method} ${built.url}`, 'POST https://api.cohere.com/v2/chat');
    assert.equal(built.headers.authorization, 'Bearer co-key');
    assert.equal(built.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(String(built.body)), expected);
    assert.deepEqual(built.warnings, warnings);
  });

  test('chat: tool_choice none, a named tool_choice, parallel_tool_calls false and mixed strict tools', () => {
    const tools = [
      { type: 'function', function: { name: 'a', parameters: { type: 'object' }, strict: true } },
      { type: 'function', function: { name: 'b', parameters: { type: 'object' } } },
    ];
    const none = adapter.buildRequest(call('chat', { model: 'm', messages: [], tools, tool_choice: 'none' }), target);
    assert.equal(JSON.parse(String(none.body)).tool_choice, 'NONE');
    assert.deepEqual(none.warnings, ['cohere: per-tool strict (Cohere applies strict_tools to all tools) not supported; dropped']);
    const named = adapter.buildRequest(
      call('chat', { model: 'm', messages: [], tools: [tools[0]], tool_choice: { type: 'function', function: { name: 'a' } }, parallel_tool_calls: false }),
      target,
    );
    const body = JSON.parse(String(named.body)) as Record<string, unknown>;
    assert.equal(body.tool_choice, undefined);
    assert.equal(body.strict_tools, true, 'all tools strict: Cohere strict_tools');
    assert.equal(body.parallel_tool_calls, undefined);
    assert.deepEqual(named.warnings, [
      'cohere: tool_choice naming a function not supported (only auto, required, none); dropped',
      'cohere: parallel_tool_calls: false not supported; dropped',
    ]);
  });

  test('the gateway flag and stream_options never reach Cohere; no stream field on a plain call', () => {
    const built = adapter.buildRequest(call('chat', { model: 'm', messages: [{ role: 'user', content: 'hi' }], strict_reference_compliance: false }), target);
    assert.deepEqual(JSON.parse(String(built.body)), { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    assert.deepEqual(built.warnings, []);
  });

  test('embeddings: texts, input_type, output_dimension (fixture); default input_type is search_document', () => {
    const { request, providerRequest, warnings } = fixture('embed.json');
    const built = adapter.buildRequest(call('embeddings', request), target);
    assert.equal(built.url, 'https://api.cohere.com/v2/embed');
    assert.deepEqual(JSON.parse(String(built.body)), providerRequest);
    assert.deepEqual(built.warnings, warnings);
    const plain = JSON.parse(String(adapter.buildRequest(call('embeddings', { model: 'embed-v4.0', input: 'x', encoding_format: 'base64' }), target).body));
    assert.deepEqual(plain, { model: 'embed-v4.0', texts: ['x'], input_type: 'search_document', embedding_types: ['float'] });
  });

  test('embeddings: token-id input is a 400 naming input', () => {
    assert.throws(
      () => adapter.buildRequest(call('embeddings', { model: 'm', input: [1, 2, 3] }), target),
      (error: unknown) => error instanceof GatewayError && error.status === 400 && error.param === 'input',
    );
  });

  test('rerank: documents as strings, v2 fields passed, rank_fields warned (fixture)', () => {
    const { request, providerRequest, warnings } = fixture('rerank.json');
    const built = adapter.buildRequest(call('rerank', request), target);
    assert.equal(built.url, 'https://api.cohere.com/v2/rerank');
    assert.deepEqual(JSON.parse(String(built.body)), providerRequest);
    assert.deepEqual(built.warnings, warnings);
  });

  test('pass-through keeps method, path, query and the client bytes', () => {
    const rawBody = Buffer.from('{"texts":["a"]}');
    const built = adapter.buildRequest(call('passthrough', undefined, { path: '/v1/tokenize', query: 'a=1', rawBody }), target);
    assert.equal(built.url, 'https://api.cohere.com/v1/tokenize?a=1');
    assert.equal(built.body, rawBody);
    assert.equal(built.headers.authorization, 'Bearer co-key');
  });
});

describe('cohere: provider response -> response out', () => {
  for (const name of ['chat-response-tool-calls.json', 'chat-response-text.json']) {
    test(`chat answer (${name})`, () => {
      const { request, providerResponse, expected, strict } = fixture(name);
      const input = call('chat', request, { strictReferenceCompliance: strict !== false });
      assert.deepEqual(adapter.responseTransform('chat')!(providerResponse, input, target), expected);
    });
  }

  test('chat: thinking stays out of a strict answer; no usage when Cohere gives none; garbage throws', () => {
    const { request, providerResponse } = fixture('chat-response-text.json');
    const transform = adapter.responseTransform('chat')!;
    const out = transform({ ...providerResponse, usage: undefined }, call('chat', request), target) as ChatCompletion;
    assert.equal(out.choices[0]?.message.content_blocks, undefined);
    assert.equal('usage' in out, false);
    assert.throws(() => transform({ nope: 1 }, call('chat', request), target), /no message/);
  });

  test('embeddings: float list with billed tokens (fixture); base64 is OpenAI little-endian float32', () => {
    const { request, providerResponse, expected } = fixture('embed.json');
    const transform = adapter.responseTransform('embeddings')!;
    assert.deepEqual(transform(providerResponse, call('embeddings', request), target), expected);
    const encoded = transform(providerResponse, call('embeddings', { ...request, encoding_format: 'base64' }), target) as EmbeddingResponse;
    const bytes = Buffer.from(String(encoded.data[0]?.embedding), 'base64');
    assert.deepEqual(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)), [0.5, -0.25, 0.125]);
  });

  test('rerank: sorted, documents from the request, search units (fixture); no documents unless asked', () => {
    const { request, providerResponse, expected } = fixture('rerank.json');
    const transform = adapter.responseTransform('rerank')!;
    assert.deepEqual(transform(providerResponse, call('rerank', request), target), expected);
    const bare = transform(providerResponse, call('rerank', { ...request, return_documents: false }), target) as RerankResponse;
    assert.ok(bare.results.every((result) => !('document' in result)));
    assert.throws(() => transform({ results: 'x' }, call('rerank', request), target), /no results array/);
  });

  test('errors keep Cohere\'s message', () => {
    assert.deepEqual(adapter.parseError!(400, { id: 'x', message: 'invalid request: model not found' }), { message: 'invalid request: model not found' });
    assert.equal(adapter.parseError!(500, 'oops'), undefined);
  });
});

describe('cohere: stream events -> chunks', () => {
  test('parallel tool calls with a tool plan: stable ids and indexes, exact arguments, usage last (fixture)', () => {
    const { request, events, expected, assembledToolCalls } = fixture('chat-stream-tool-calls.json');
    const chunks = decode(adapter.streamDecoder!(call('chat', request), target)!, events) as ChatCompletionChunk[];
    assert.deepEqual(chunks, expected);
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for (const chunk of chunks) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        calls[delta.index] ??= { id: '', name: '', arguments: '' };
        const assembled = calls[delta.index]!;
        if (delta.id) assembled.id = delta.id;
        if (delta.function?.name) assembled.name = delta.function.name;
        assembled.arguments += delta.function?.arguments ?? '';
      }
    }
    assert.deepEqual(calls, assembledToolCalls);
  });

  test('thinking as content_blocks for a non-strict client, no usage chunk without include_usage (fixture)', () => {
    const { request, events, expected } = fixture('chat-stream-thinking.json');
    const input = call('chat', request, { strictReferenceCompliance: false });
    assert.deepEqual(decode(adapter.streamDecoder!(input, target)!, events), expected);
    const strict = decode(adapter.streamDecoder!(call('chat', request), target)!, events) as ChatCompletionChunk[];
    assert.ok(strict.every((chunk) => !chunk.choices[0]?.delta.content_blocks), 'strict clients get no thinking');
  });

  test('only streamed chat calls get a decoder', () => {
    assert.equal(adapter.streamDecoder!(call('chat', { model: 'm', messages: [] }), target), undefined);
    assert.equal(adapter.streamDecoder!(call('embeddings', { model: 'm', input: 'x', stream: true }), target), undefined);
  });

  test('an error at message-end, a truncated stream and a non-JSON event are errors', () => {
    const request = { model: 'm', messages: [], stream: true };
    const start = { event: 'message-start', data: { type: 'message-start', id: 'x', delta: { message: { role: 'assistant' } } } };
    assert.throws(
      () => decode(adapter.streamDecoder!(call('chat', request), target)!, [start, { data: { type: 'message-end', delta: { finish_reason: 'ERROR', error: 'model overloaded' } } }]),
      (error: unknown) => error instanceof GatewayError && /model overloaded/.test(error.message),
    );
    assert.throws(() => decode(adapter.streamDecoder!(call('chat', request), target)!, [start]), /before its message-end/);
    assert.throws(() => decode(adapter.streamDecoder!(call('chat', request), target)!, [{ data: 'not json' }]), /not JSON/);
  });
});

describe('cohere: warnings', () => {
  test('a client field name that is no valid header text is cut to printable ASCII', () => {
    const built = adapter.buildRequest(call('chat', { model: 'm', messages: [], 'caf\u00e9\n字': 1 }), target);
    assert.deepEqual(built.warnings, ['cohere: caf??? not supported; dropped']);
  });
});
