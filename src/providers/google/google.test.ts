/**
 * The Gemini adapter beyond its fixture pairs (__fixtures__/*.json, replayed by test/providers-contract.test.ts):
 * the JSON schema conversion, thought signatures going back on the next turn, base64 embeddings, answers that are
 * not Gemini answers, and which calls get a decoder.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FIXTURE_CLOCK, framedEvents, inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { fixtureCase } from '../../../test/helpers/provider-fixtures.ts';
import type { ChatCompletion, ChatCompletionChunk, ChatMessage, ToolCall } from '../../core/openai-types.ts';
import { createGoogleAdapter, type EmbeddingList } from './index.ts';
import { toGeminiSchema } from './schema.ts';

const adapter = createGoogleAdapter({ clock: FIXTURE_CLOCK });
const target = providerTarget('google', 'https://generativelanguage.googleapis.com/v1beta', { apiKey: 'AIza-test' });

function built(body: unknown): { json: { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> } } {
  const request = adapter.buildRequest(inferenceCall('chat', body), target);
  return { json: JSON.parse(String(request.body)) };
}

test('schema conversion: Optional (anyOf with null), oneOf, const, recursive $ref stops', () => {
  const result = toGeminiSchema({
    type: 'object',
    properties: {
      maybe: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'optional text', default: null },
      either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      fixed: { const: 'x' },
      node: { $ref: '#/definitions/Node' },
    },
    definitions: { Node: { type: 'object', properties: { child: { $ref: '#/definitions/Node' } } } },
  });
  const properties = JSON.parse(JSON.stringify(result.schema.properties));
  assert.deepEqual(properties.maybe, { type: 'string', nullable: true, description: 'optional text', default: null });
  assert.deepEqual(properties.either, { anyOf: [{ type: 'string' }, { type: 'number' }] });
  assert.deepEqual(properties.fixed, { enum: ['x'] });
  let depth = 0;
  for (let node = properties.node; node?.properties?.child; node = node.properties.child) depth += 1;
  assert.ok(depth >= 5 && depth <= 10, `recursion is cut after a few levels (${depth})`);
  assert.deepEqual(result.dropped, ['$ref']);
});

test('an answer that is neither candidates nor promptFeedback throws', () => {
  assert.throws(() => adapter.responseTransform('chat')!({ hello: 'world' }, inferenceCall('chat', { model: 'm', messages: [] }), target), /neither candidates nor promptFeedback/);
});

test('no decoder for non-streamed chat or embeddings', () => {
  assert.equal(adapter.streamDecoder!(inferenceCall('chat', { model: 'm', messages: [] }), target), undefined);
  assert.equal(adapter.streamDecoder!(inferenceCall('embeddings', { model: 'm', input: 'x' }), target), undefined);
});

describe('google: thought_signature round trip', () => {
  const next = (assistant: ChatMessage, calls: ToolCall[]) => ({
    model: 'gemini-3-pro-preview',
    messages: [
      { role: 'user', content: 'Weather in Paris and London?' },
      assistant,
      ...calls.map((item, index) => ({ role: 'tool', tool_call_id: item.id, content: `{"temp":${20 + index}}` })),
    ],
  });

  test('non-streamed: the signature on the answer goes back on the same functionCall part', () => {
    const pair = fixtureCase('google/chat-response-thinking-tools.json', 'answer: thoughts in content_blocks, tool calls with the thought signature');
    const answer = adapter.responseTransform('chat')!(pair.upstreamResponse?.body, inferenceCall('chat', { model: 'm', messages: [] }), target) as ChatCompletion;
    const message = answer.choices[0]!.message;
    const request = built(next({ role: 'assistant', content: message.content, tool_calls: message.tool_calls! }, message.tool_calls!));
    const modelTurn = request.json.contents[1]!;
    assert.equal(modelTurn.role, 'model');
    assert.deepEqual(modelTurn.parts.slice(1), [
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQBVKhc7ZsigA==' },
      { functionCall: { name: 'get_weather', args: { city: 'London' } } },
    ]);
    assert.deepEqual(request.json.contents[2]!.parts.map((part) => (part.functionResponse as { name: string }).name), ['get_weather', 'get_weather']);
  });

  test('streamed: tool call deltas assembled by a client carry the signature back', () => {
    const pair = fixtureCase('google/chat-stream.json', 'stream: thinking, text, parallel tool calls, usage last');
    const decoder = adapter.streamDecoder!(inferenceCall('chat', { model: 'm', messages: [], stream: true }), target)!;
    const chunks = [...framedEvents(pair.upstreamResponse?.events ?? [], 'sse').flatMap((event) => decoder.push(event)), ...decoder.end()] as ChatCompletionChunk[];
    const calls: ToolCall[] = [];
    for (const chunk of chunks) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        const existing = calls[delta.index];
        if (existing) existing.function.arguments += delta.function?.arguments ?? '';
        else calls[delta.index] = { id: delta.id!, type: 'function', function: { name: delta.function!.name!, arguments: delta.function?.arguments ?? '' }, ...(delta.thought_signature ? { thought_signature: delta.thought_signature } : {}) };
      }
    }
    const parts = built(next({ role: 'assistant', content: 'Let me check.', tool_calls: calls }, calls)).json.contents[1]!.parts;
    assert.equal(parts[1]!.thoughtSignature, 'U0lHLTE=');
    assert.deepEqual(parts[1]!.functionCall, { name: 'get_weather', args: { city: 'Paris' } });
    assert.equal(parts[2]!.thoughtSignature, undefined);
  });
});

test('embeddings: no made-up usage; base64 is float32 little-endian', () => {
  const pair = fixtureCase('google/embeddings.json', 'chain: batchEmbedContents');
  const transform = adapter.responseTransform('embeddings')!;
  assert.equal('usage' in (transform(pair.upstreamResponse?.body, inferenceCall('embeddings', pair.request), target) as EmbeddingList), false);
  const call = inferenceCall('embeddings', { ...(pair.request as object), encoding_format: 'base64' });
  const out = transform(pair.upstreamResponse?.body, call, target) as EmbeddingList;
  const bytes = Buffer.from(String(out.data[0]?.embedding), 'base64');
  assert.deepEqual([...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)], [0.5, -0.25, 0.125]);
});
