/** The Anthropic adapter around the mappers: URLs, auth, routes, Vertex options, rejected inputs, SSE bytes in. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import type { ChatRequest } from '../../core/openai-types.ts';
import { createSseFramer } from '../../upstream/framing/sse.ts';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { anthropicAdapter, createAnthropicStreamDecoder, fromAnthropicMessage, toAnthropicCompletionBody, toAnthropicMessagesBody } from './index.ts';

const target: ProviderTarget = { provider: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', customHost: false, apiKey: 'sk-ant-test', cloud: {} };

function call(route: RouteKind, body: unknown, extra: Partial<InferenceCall> = {}): InferenceCall {
  const rawBody = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody, contentType: 'application/json', params: {}, ...extra };
}

const chat = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hi' }], ...extra });

function rejects400(run: () => unknown, pattern: RegExp): void {
  assert.throws(run, (error: unknown) => error instanceof GatewayError && error.status === 400 && pattern.test(error.message));
}

describe('Anthropic adapter: provider requests', () => {
  test('chat goes to POST /messages with x-api-key and anthropic-version, the body rebuilt', () => {
    const built = anthropicAdapter.buildRequest(call('chat', chat({ stream: true, stream_options: { include_usage: true } })), target);
    assert.equal(`${built.method} ${built.url}`, 'POST https://api.anthropic.com/v1/messages');
    assert.deepEqual(built.headers, { 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-ant-test', 'content-type': 'application/json' });
    assert.deepEqual(JSON.parse(String(built.body)), { model: 'claude-sonnet-4-5-20250929', max_tokens: 4096, messages: [{ role: 'user', content: 'Hi' }], stream: true });
    assert.deepEqual(built.warnings, []);
  });

  test('without a provider key no x-api-key header is invented', () => {
    const built = anthropicAdapter.buildRequest(call('chat', chat()), { ...target, apiKey: undefined });
    assert.equal(built.headers['x-api-key'], undefined);
  });

  test('text completions also go to /messages; models is a GET with the paging query kept', () => {
    const completion = anthropicAdapter.buildRequest(call('completions', { model: 'claude-3-5-haiku-20241022', prompt: 'Say hi' }), target);
    assert.equal(completion.url, 'https://api.anthropic.com/v1/messages');
    const models = anthropicAdapter.buildRequest(call('models', undefined, { method: 'GET', query: 'limit=2&after_id=claude-x' }), target);
    assert.equal(`${models.method} ${models.url}`, 'GET https://api.anthropic.com/v1/models?limit=2&after_id=claude-x');
    assert.equal(models.body, undefined);
    assert.equal(models.headers['content-type'], undefined);
    assert.equal(models.headers['anthropic-version'], '2023-06-01');
  });

  test('pass-through keeps method, path, query and the client bytes, with Anthropic auth added', () => {
    const input = call('passthrough', { model: 'claude-sonnet-4-5-20250929', messages: [] }, { path: '/messages/count_tokens', query: 'beta=true' });
    const built = anthropicAdapter.buildRequest(input, target);
    assert.equal(`${built.method} ${built.url}`, 'POST https://api.anthropic.com/v1/messages/count_tokens?beta=true');
    assert.equal(built.body, input.rawBody);
    assert.equal(built.headers['x-api-key'], 'sk-ant-test');
    assert.equal(anthropicAdapter.responseTransform('passthrough'), undefined);
  });

  test('a stream decoder only for streamed chat and completions', () => {
    assert.equal(anthropicAdapter.streamDecoder?.(call('chat', chat()), target), undefined);
    assert.ok(anthropicAdapter.streamDecoder?.(call('chat', chat({ stream: true })), target));
    assert.ok(anthropicAdapter.streamDecoder?.(call('completions', { model: 'm', prompt: 'p', stream: true }), target));
    assert.equal(anthropicAdapter.streamDecoder?.(call('passthrough', { stream: true }), target), undefined);
  });
});

describe('Anthropic mappers: options for Claude on Vertex AI', () => {
  test('anthropic_version in the body and no model', () => {
    const options = { strictReferenceCompliance: true, anthropicVersion: 'vertex-2023-10-16', includeModel: false };
    const { body } = toAnthropicMessagesBody(chat(), options);
    assert.equal(body.anthropic_version, 'vertex-2023-10-16');
    assert.equal('model' in body, false);
    const text = toAnthropicCompletionBody({ model: 'claude', prompt: 'Hi' }, options).body;
    assert.equal(text.anthropic_version, 'vertex-2023-10-16');
    assert.equal('model' in text, false);
  });

  test('the provider name written into answers is the caller\'s', () => {
    const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } };
    assert.equal(fromAnthropicMessage(message, { strictReferenceCompliance: true, provider: 'vertex-ai', created: 1 }).provider, 'vertex-ai');
  });
});

describe('Anthropic mappers: inputs Anthropic cannot take are a 400 naming the field', () => {
  test('tool call arguments that are not a JSON object', () => {
    const messages: ChatRequest['messages'] = [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '[1,2]' } }] }];
    rejects400(() => toAnthropicMessagesBody(chat({ messages }), { strictReferenceCompliance: true }), /JSON object/);
    messages[0] = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{oops' } }] };
    rejects400(() => toAnthropicMessagesBody(chat({ messages }), { strictReferenceCompliance: true }), /JSON object/);
  });

  test('images other than data or http(s) URLs, unknown part types, the function role', () => {
    rejects400(() => toAnthropicMessagesBody(chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }] }), { strictReferenceCompliance: true }), /base64 data URLs or http/);
    rejects400(() => toAnthropicMessagesBody(chat({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }), { strictReferenceCompliance: true }), /input_audio/);
    rejects400(() => toAnthropicMessagesBody(chat({ messages: [{ role: 'function', name: 'f', content: 'x' }] }), { strictReferenceCompliance: true }), /function/);
  });

  test('several prompts or token ids in a text completion', () => {
    rejects400(() => toAnthropicCompletionBody({ model: 'm', prompt: ['a', 'b'] }, { strictReferenceCompliance: true }), /one prompt/);
    rejects400(() => toAnthropicCompletionBody({ model: 'm', prompt: [1, 2, 3] }, { strictReferenceCompliance: true }), /token ids/);
  });

  test('an explicit max_tokens is kept even with a thinking budget (Anthropic reports a conflict itself)', () => {
    const { body } = toAnthropicMessagesBody(chat({ max_tokens: 1000, thinking: { type: 'enabled', budget_tokens: 2048 } }), { strictReferenceCompliance: false });
    assert.equal(body.max_tokens, 1000);
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 2048 });
  });
});

describe('Anthropic answers that are not Anthropic answers', () => {
  test('a non-message JSON answer throws (the core answers 502)', () => {
    const transform = anthropicAdapter.responseTransform('chat');
    assert.ok(transform);
    assert.throws(() => transform({ hello: 'world' }, call('chat', chat()), target), /not an Anthropic message/);
    assert.throws(() => transform({ type: 'message', content: [{ type: 'tool_use' }] }, call('chat', chat()), target), /tool_use/);
    assert.throws(() => anthropicAdapter.responseTransform('models')?.({ nope: 1 }, call('models', undefined), target), /model list/);
  });

  test('a stream event that is not JSON throws a 502', () => {
    const decoder = createAnthropicStreamDecoder({ strictReferenceCompliance: true, includeUsage: false, provider: 'anthropic' });
    assert.throws(() => decoder.push({ event: 'message_start', data: '{not json' }), (error: unknown) => error instanceof GatewayError && error.status === 502);
  });
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
