/**
 * The inbound Messages transforms as fixture pairs (__fixtures__/request.json, answer.json, stream.json), and the
 * Messages route over adapters: native adapters untouched, a chat adapter reached through the canonical form.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { inferenceCall } from '../../../../test/helpers/provider-cases.ts';
import { GatewayError } from '../../../core/errors.ts';
import type { ChatCompletion } from '../../../core/openai-types.ts';
import type { ProviderTarget } from '../../contract.ts';
import { createProviderRegistry } from '../../registry.ts';
import { anthropicAdapter } from '../index.ts';
import { chatToMessage, stopReasonOf } from './answer.ts';
import { speaksMessages, withMessagesRoute } from './adapter.ts';
import { messagesToChat } from './request.ts';
import { createMessagesStreamEncoder } from './stream-encoder.ts';

type Json = Record<string, unknown>;
const fixture = <T>(name: string): T => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}.json`, import.meta.url), 'utf8')) as T;

describe('Messages request -> canonical chat request', () => {
  const { cases, rejected } = fixture<{ cases: Array<{ name: string; messages: Json; chat: Json }>; rejected: Array<{ name: string; messages: Json; param: string }> }>('request');
  for (const item of cases) {
    test(item.name, () => assert.deepEqual(messagesToChat(item.messages), item.chat));
  }
  for (const item of rejected) {
    test(`400: ${item.name}`, () => {
      assert.throws(() => messagesToChat(item.messages), (error: GatewayError) => {
        assert.ok(error instanceof GatewayError);
        assert.equal(error.status, 400);
        assert.equal(error.param, item.param);
        return true;
      });
    });
  }
});

describe('canonical chat answer -> Message', () => {
  const { cases, stopReasons } = fixture<{ cases: Array<{ name: string; chat: ChatCompletion; message: Json }>; stopReasons: Array<[string | null, string | null, string | null]> }>('answer');
  for (const item of cases) {
    test(item.name, () => assert.deepEqual(chatToMessage(item.chat), item.message));
  }
  test('every finish reason has its stop reason', () => {
    for (const [finish, native, expected] of stopReasons) assert.equal(stopReasonOf(finish, native), expected, `${finish} / ${native}`);
  });
});

describe('canonical chunks -> Messages event stream', () => {
  const { cases } = fixture<{ cases: Array<{ name: string; chunks: unknown[]; events: Json[] }> }>('stream');
  for (const item of cases) {
    test(item.name, () => {
      const encoder = createMessagesStreamEncoder({ model: 'requested-model' });
      const events = [...item.chunks.flatMap((chunk) => encoder.push(chunk)), ...encoder.end()];
      const expected = item.events.map((event) => {
        const message = event.message as Json | undefined;
        // an id minted for a stream without one: any msg_ id
        if (message?.id === '<any>') {
          const actual = (events[0]!.message as Json).id as string;
          assert.match(actual, /^msg_/);
          return { ...event, message: { ...message, id: actual } };
        }
        return event;
      });
      assert.deepEqual(events, expected);
    });
  }

  test('split tool arguments reassemble to exactly what the provider streamed', () => {
    const encoder = createMessagesStreamEncoder({ model: 'm' });
    const text = JSON.stringify({ query: 'a "quoted" \u00e9 value', list: [1, 2, { deep: true }] });
    const pieces = [text.slice(0, 1), text.slice(1, 9), text.slice(9, 10), text.slice(10)];
    const events = [
      ...encoder.push({ id: 'z', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'search' } }] } }] }),
      ...pieces.flatMap((piece) => encoder.push({ id: 'z', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] } }] })),
      ...encoder.end(),
    ];
    const joined = events.filter((event) => event.type === 'content_block_delta').map((event) => (event.delta as { partial_json: string }).partial_json).join('');
    assert.equal(joined, text);
  });
});

describe('the Messages route over adapters', () => {
  const registry = createProviderRegistry();
  const target: ProviderTarget = { provider: 'openai', baseUrl: 'https://api.openai.com/v1', customHost: false, apiKey: 'sk', cloud: {} };
  const body = { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };

  test('the Anthropic adapter speaks Messages natively and sends the client bytes as they came', () => {
    assert.equal(speaksMessages(anthropicAdapter), true);
    assert.equal(withMessagesRoute(anthropicAdapter), anthropicAdapter);
    const call = inferenceCall('messages', { ...body, thinking: { type: 'enabled', budget_tokens: 5 } });
    const built = anthropicAdapter.buildRequest(call, { ...target, provider: 'anthropic', baseUrl: 'https://api.anthropic.com/v1' });
    assert.equal(`${built.method} ${built.url}`, 'POST https://api.anthropic.com/v1/messages');
    assert.equal(built.body, call.rawBody, 'the same buffer: not re-serialised');
    assert.equal(anthropicAdapter.responseTransform('messages'), undefined, 'the answer goes back as the provider wrote it');
    assert.equal(anthropicAdapter.streamDecoder?.(inferenceCall('messages', { ...body, stream: true }), target), undefined, 'the stream is relayed');
    const count = anthropicAdapter.buildRequest(inferenceCall('messages.count_tokens', body), { ...target, baseUrl: 'https://api.anthropic.com/v1' });
    assert.equal(count.url, 'https://api.anthropic.com/v1/messages/count_tokens');
  });

  test('every adapter that serves chat serves messages through the canonical form; count_tokens stays native only', () => {
    for (const adapter of registry.values()) {
      const wrapped = withMessagesRoute(adapter);
      assert.equal(wrapped.capabilities.routes.has('messages'), adapter.capabilities.routes.has('chat') || speaksMessages(adapter), adapter.name);
      if (!speaksMessages(adapter)) assert.equal(wrapped.capabilities.routes.has('messages.count_tokens'), false, adapter.name);
    }
  });

  test('a chat adapter gets the chat call: its URL, the translated body, no Messages protocol headers', async () => {
    const openai = withMessagesRoute(registry.get('openai')!);
    const built = openai.buildRequest(inferenceCall('messages', { ...body, stream: true }), target);
    assert.equal(built.url, 'https://api.openai.com/v1/chat/completions');
    assert.deepEqual(JSON.parse(String(built.body)), { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } });
    const prepared = await openai.prepare!({ ...built, headers: { ...built.headers, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'x' } }, target);
    assert.equal(prepared.headers['anthropic-version'], undefined);
    assert.equal(prepared.headers['anthropic-beta'], undefined);
    assert.ok(openai.streamDecoder?.(inferenceCall('messages', { ...body, stream: true }), target), 'an OpenAI stream is read as canonical chunks');
    assert.equal(openai.streamDecoder?.(inferenceCall('messages', body), target), undefined);
    const transform = openai.responseTransform('messages')!;
    const answer = { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [] };
    assert.equal(transform(answer, inferenceCall('messages', body), target), answer, 'canonical already: kept, and marked read (never UNCHANGED)');
  });
});
