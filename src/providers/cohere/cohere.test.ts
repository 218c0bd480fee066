/**
 * The Cohere adapter beyond its fixture pairs (__fixtures__/*.json, replayed by test/providers-contract.test.ts):
 * pass-through bytes, properties of answers and streams (no thinking for strict clients, no usage when Cohere gives
 * none, documents only when asked, base64 embeddings, tool calls a client assembles), which calls get a decoder.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FIXTURE_CLOCK, framedEvents, inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { fixtureCase, type FixtureCase } from '../../../test/helpers/provider-fixtures.ts';
import type { ChatCompletion, ChatCompletionChunk, EmbeddingResponse, RerankResponse } from '../../core/openai-types.ts';
import type { InferenceCall } from '../contract.ts';
import { createCohereAdapter } from './index.ts';

const adapter = createCohereAdapter({ clock: FIXTURE_CLOCK });
const target = providerTarget('cohere', 'https://api.cohere.com', { apiKey: 'co-key' });

/** the client body of a fixture case */
const requestOf = (pair: FixtureCase) => pair.request as Record<string, unknown>;

function decode(call: InferenceCall, pair: FixtureCase): ChatCompletionChunk[] {
  const decoder = adapter.streamDecoder!(call, target)!;
  const chunks = framedEvents(pair.upstreamResponse?.events ?? [], 'sse').flatMap((event) => decoder.push(event));
  return [...chunks, ...decoder.end()] as ChatCompletionChunk[];
}

test('pass-through keeps method, path, query and the client bytes (the same buffer)', () => {
  const rawBody = Buffer.from('{"texts":["a"]}');
  const built = adapter.buildRequest(inferenceCall('passthrough', undefined, { path: '/v1/tokenize', query: 'a=1', rawBody }), target);
  assert.equal(built.url, 'https://api.cohere.com/v1/tokenize?a=1');
  assert.equal(built.body, rawBody);
  assert.equal(built.headers.authorization, 'Bearer co-key');
});

describe('cohere: provider response -> response out', () => {
  test('chat: thinking stays out of a strict answer; no usage when Cohere gives none; garbage throws', () => {
    const pair = fixtureCase('cohere/chat-response-text.json', 'answer: thinking and text, MAX_TOKENS -> length');
    const transform = adapter.responseTransform('chat')!;
    const answer = { ...(pair.upstreamResponse?.body as object), usage: undefined };
    const out = transform(answer, inferenceCall('chat', pair.request), target) as ChatCompletion;
    assert.equal(out.choices[0]?.message.content_blocks, undefined);
    assert.equal('usage' in out, false);
    assert.throws(() => transform({ nope: 1 }, inferenceCall('chat', pair.request), target), /no message/);
  });

  test('embeddings: base64 is OpenAI little-endian float32', () => {
    const pair = fixtureCase('cohere/embed.json', 'chain: embeddings');
    const call = inferenceCall('embeddings', { ...requestOf(pair), encoding_format: 'base64' });
    const encoded = adapter.responseTransform('embeddings')!(pair.upstreamResponse?.body, call, target) as EmbeddingResponse;
    const bytes = Buffer.from(String(encoded.data[0]?.embedding), 'base64');
    assert.deepEqual(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)), [0.5, -0.25, 0.125]);
  });

  test('rerank: no documents unless asked; an answer without results throws', () => {
    const pair = fixtureCase('cohere/rerank.json', 'chain: rerank');
    const transform = adapter.responseTransform('rerank')!;
    const bare = transform(pair.upstreamResponse?.body, inferenceCall('rerank', { ...requestOf(pair), return_documents: false }), target) as RerankResponse;
    assert.ok(bare.results.every((result) => !('document' in result)));
    assert.throws(() => transform({ results: 'x' }, inferenceCall('rerank', pair.request), target), /no results array/);
  });
});

describe('cohere: stream events -> chunks', () => {
  test('parallel tool calls assembled by a client: stable ids, exact arguments', () => {
    const pair = fixtureCase('cohere/chat-stream-tool-calls.json', 'stream: tool plan and parallel tool calls, usage last');
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for (const chunk of decode(inferenceCall('chat', pair.request), pair)) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        calls[delta.index] ??= { id: '', name: '', arguments: '' };
        const assembled = calls[delta.index]!;
        if (delta.id) assembled.id = delta.id;
        if (delta.function?.name) assembled.name = delta.function.name;
        assembled.arguments += delta.function?.arguments ?? '';
      }
    }
    assert.deepEqual(calls, [
      { id: 'get_weather_e8p4pn45zt0t', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'get_weather_pyxssbwnq9fq', name: 'get_weather', arguments: '{"city": "Rome"}' },
    ]);
  });

  test('strict clients get no thinking', () => {
    const pair = fixtureCase('cohere/chat-stream-thinking.json', 'stream: thinking as content_blocks');
    const strict = decode(inferenceCall('chat', pair.request), pair);
    assert.ok(strict.length > 0);
    assert.ok(strict.every((chunk) => !chunk.choices[0]?.delta.content_blocks), 'strict clients get no thinking');
  });

  test('only streamed chat calls get a decoder', () => {
    assert.equal(adapter.streamDecoder!(inferenceCall('chat', { model: 'm', messages: [] }), target), undefined);
    assert.equal(adapter.streamDecoder!(inferenceCall('embeddings', { model: 'm', input: 'x', stream: true }), target), undefined);
  });
});
