/**
 * The Anthropic adapter beyond its fixture pairs (__fixtures__/*.json, replayed by test/providers-contract.test.ts):
 * pass-through bytes, which calls get a decoder, the options for Claude on Vertex AI, answers that are not
 * Anthropic answers, and SSE bytes split anywhere.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inferenceCall } from '../../../test/helpers/provider-cases.ts';
import { loadProviderFixtures } from '../../../test/helpers/provider-fixtures.ts';
import type { ChatRequest } from '../../core/openai-types.ts';
import { createSseFramer } from '../../upstream/framing/sse.ts';
import type { ProviderTarget } from '../contract.ts';
import { anthropicAdapter, createAnthropicStreamDecoder, fromAnthropicMessage, toAnthropicCompletionBody, toAnthropicMessagesBody } from './index.ts';

const target: ProviderTarget = { provider: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', customHost: false, apiKey: 'sk-ant-test', cloud: {} };

const chat = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hi' }], ...extra });

test('a fixture file for every topic the adapter was written against', () => {
  const files = new Set(loadProviderFixtures().filter((entry) => entry.provider === 'anthropic').map((entry) => entry.file));
  const topics = ['simple-chat', 'system-developer', 'tools-parallel', 'images', 'thinking', 'cache-control', 'finish-reasons', 'stream-text', 'stream-tools', 'stream-thinking', 'stream-error', 'error-body', 'completions', 'response-format', 'models'];
  for (const topic of topics) assert.ok(files.has(`anthropic/${topic}.json`), `${topic}.json`);
});

describe('Anthropic adapter: around the mappers', () => {
  test('pass-through keeps method, path, query and the client bytes (the same buffer), with Anthropic auth added', () => {
    const input = inferenceCall('passthrough', { model: 'claude-sonnet-4-5-20250929', messages: [] }, { path: '/messages/count_tokens', query: 'beta=true' });
    const built = anthropicAdapter.buildRequest(input, target);
    assert.equal(`${built.method} ${built.url}`, 'POST https://api.anthropic.com/v1/messages/count_tokens?beta=true');
    assert.equal(built.body, input.rawBody);
    assert.equal(built.headers['x-api-key'], 'sk-ant-test');
    assert.equal(anthropicAdapter.responseTransform('passthrough'), undefined);
  });

  test('a stream decoder only for streamed chat and completions', () => {
    assert.equal(anthropicAdapter.streamDecoder?.(inferenceCall('chat', chat()), target), undefined);
    assert.ok(anthropicAdapter.streamDecoder?.(inferenceCall('chat', chat({ stream: true })), target));
    assert.ok(anthropicAdapter.streamDecoder?.(inferenceCall('completions', { model: 'm', prompt: 'p', stream: true }), target));
    assert.equal(anthropicAdapter.streamDecoder?.(inferenceCall('passthrough', { stream: true }), target), undefined);
  });
});

describe('Anthropic mappers: options for Claude on Vertex AI', () => {
  test('anthropic_version in the body and no model; the warnings name the caller', () => {
    const options = { strictReferenceCompliance: true, anthropicVersion: 'vertex-2023-10-16', includeModel: false, provider: 'vertex-ai' };
    const { body, warnings } = toAnthropicMessagesBody(chat({ seed: 1 }), options);
    assert.equal(body.anthropic_version, 'vertex-2023-10-16');
    assert.equal('model' in body, false);
    assert.deepEqual(warnings, ['vertex-ai: seed not supported; dropped']);
    const text = toAnthropicCompletionBody({ model: 'claude', prompt: 'Hi' }, options).body;
    assert.equal(text.anthropic_version, 'vertex-2023-10-16');
    assert.equal('model' in text, false);
  });

  test('the provider name written into answers is the caller\'s', () => {
    const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } };
    assert.equal(fromAnthropicMessage(message, { strictReferenceCompliance: true, provider: 'vertex-ai', created: 1 }).provider, 'vertex-ai');
  });
});

test('answers that are not Anthropic answers throw (the core answers 502)', () => {
  const transform = anthropicAdapter.responseTransform('chat');
  assert.ok(transform);
  assert.throws(() => transform({ hello: 'world' }, inferenceCall('chat', chat()), target), /not an Anthropic message/);
  assert.throws(() => transform({ type: 'message', content: [{ type: 'tool_use' }] }, inferenceCall('chat', chat()), target), /tool_use/);
  assert.throws(() => anthropicAdapter.responseTransform('models')?.({ nope: 1 }, inferenceCall('models', undefined, { method: 'GET' }), target), /model list/);
});

test('raw SSE bytes, split anywhere, decode to the same text and tool arguments', () => {
  const sse = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Héllo ✓"}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" 1}"}}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].join('');
  const bytes = Buffer.from(sse);
  for (const size of [1, 7, 64, bytes.length]) {
    const framer = createSseFramer();
    const decoder = createAnthropicStreamDecoder({ strictReferenceCompliance: true, includeUsage: true, provider: 'anthropic', created: 1 });
    const chunks: Array<{ choices: Array<{ delta: { content?: string; tool_calls?: Array<{ function?: { arguments?: string } }> }; finish_reason: string | null }>; usage?: { total_tokens: number } }> = [];
    for (let offset = 0; offset < bytes.length; offset += size) {
      for (const event of framer.push(bytes.subarray(offset, offset + size))) chunks.push(...(decoder.push(event) as typeof chunks));
    }
    for (const event of framer.end()) chunks.push(...(decoder.push(event) as typeof chunks));
    chunks.push(...(decoder.end() as typeof chunks));
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    const args = chunks.map((chunk) => chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '').join('');
    assert.equal(text, 'Héllo ✓');
    assert.equal(args, '{"a": 1}');
    assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(chunks.at(-1)?.usage?.total_tokens, 12);
  }
});
