/**
 * The response cache on /v1/messages and /v1/responses, end to end with the official clients: a hit answers in
 * the route's own shape (a Message, or the exact Anthropic event stream; a fresh Response kept in the store, or
 * the Responses event stream), whatever produced the entry (a native answer or stream, or one translated from
 * chat), and an entry of one route is never served to another. Upstream request counts prove where each answer
 * came from; each test uses its own cache namespace. The request log keeps the body the client got (a Message,
 * a Response), never the canonical chat form it was translated from.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request } from 'undici';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-upstream.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let anthropic: FakeAnthropic;
let openai: FakeUpstream;

before(async () => {
  [anthropic, openai, gateway] = await Promise.all([startFakeAnthropic(), startFakeUpstream(), startTestGateway()]);
});

after(async () => {
  await gateway.close();
  await Promise.all([anthropic.close(), openai.close()]);
});

const CACHE = { mode: 'simple', max_age: 60 };
const nativeConfig = () => ({ provider: 'anthropic', custom_host: anthropic.baseUrl, api_key: 'sk-ant-provider', cache: CACHE });
const chatConfig = (provider = 'openai', cache: Record<string, unknown> = CACHE) => ({ provider, api_key: 'sk-x', custom_host: openai.baseUrl, cache });

function headers(config: unknown, namespace: string): Record<string, string> {
  return { 'x-gateway-config': JSON.stringify(config), 'x-gateway-cache-namespace': namespace };
}

function anthropicClient(config: unknown, namespace: string): Anthropic {
  // the fake Anthropic API accepts only anthropic-version 2023-06-01
  return new Anthropic({ apiKey: gateway.adminKey, baseURL: gateway.origin, maxRetries: 0, defaultHeaders: { 'anthropic-version': '2023-06-01', ...headers(config, namespace) } });
}

function openaiClient(config: unknown, namespace: string): OpenAI {
  return new OpenAI({ apiKey: 'sk-x', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, ...headers(config, namespace) } });
}

/** The raw SSE of a streaming Messages request: each event's name and data, and the response headers. */
async function rawMessagesStream(body: unknown, config: unknown, namespace: string) {
  const response = await request(`${gateway.origin}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': gateway.adminKey, 'anthropic-version': '2023-06-01', ...headers(config, namespace) },
    body: JSON.stringify({ ...(body as object), stream: true }),
  });
  const text = await response.body.text();
  const events = text.split('\n\n').filter((frame) => frame.trim() !== '').map((frame) => {
    const name = /^event: (.+)$/m.exec(frame)?.[1];
    const data = JSON.parse(/^data: (.+)$/m.exec(frame)?.[1] ?? 'null') as { type: string };
    assert.equal(name, data.type, 'each event is named after its type');
    return data;
  });
  return { status: response.statusCode, headers: response.headers, events };
}

/** A Message without the fields the SDK's stream reader adds on its own (parsed_output, stop_details). */
function plain(message: Anthropic.Message): Record<string, unknown> {
  const { parsed_output: _parsed, stop_details: _details, ...rest } = message as Anthropic.Message & { parsed_output?: unknown; stop_details?: unknown };
  return rest;
}

const namespace = () => `native-${randomUUID()}`;
const count = (upstream: { requests: unknown[] }) => {
  const start = upstream.requests.length;
  return () => upstream.requests.length - start;
};

const THINKING = {
  model: 'claude-sonnet-4-5',
  max_tokens: 2048,
  thinking: { type: 'enabled', budget_tokens: 1024 },
  messages: [{ role: 'user', content: 'Cache this thought' }],
} as unknown as Anthropic.MessageCreateParamsNonStreaming;

describe('the cache on /v1/messages, native Anthropic target', () => {
  test('a JSON answer is stored as the Message; a streaming request replays it as the exact event stream', async () => {
    const ns = namespace();
    const calls = count(anthropic);
    const client = anthropicClient(nativeConfig(), ns);
    const first = await client.messages.create(THINKING).withResponse();
    assert.equal(first.response.headers.get('x-gateway-cache-status'), 'MISS');
    const again = await client.messages.create(THINKING).withResponse();
    assert.equal(again.response.headers.get('x-gateway-cache-status'), 'HIT');
    assert.deepEqual(again.data, first.data, 'the Message as the provider wrote it');

    const streamed = await rawMessagesStream(THINKING, nativeConfig(), ns);
    assert.equal(streamed.headers['x-gateway-cache-status'], 'HIT');
    assert.match(String(streamed.headers['content-type']), /text\/event-stream/);
    assert.deepEqual(streamed.events.map((event) => event.type), [
      'message_start', 'ping',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    assert.deepEqual(streamed.events[3], { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me think about the weather.' } });
    assert.deepEqual(streamed.events[4], { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig_fake_1' } });
    assert.deepEqual(streamed.events.at(-2), { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: first.data.usage });

    // the SDK's own stream reader assembles the same Message
    const final = await client.messages.stream(THINKING).finalMessage();
    assert.deepEqual(plain(final), plain(first.data));
    assert.equal(calls(), 1, 'one provider call for all four answers');
  });

  test('a native stream is assembled into its Message: tool input and signatures exact, served to a JSON request', async () => {
    const ns = namespace();
    const calls = count(anthropic);
    const client = anthropicClient(nativeConfig(), ns);
    const body = { ...THINKING, tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }] } as Anthropic.MessageCreateParamsNonStreaming;
    const live = await client.messages.stream(body).finalMessage();
    assert.deepEqual(live.content.map((block) => block.type), ['thinking', 'tool_use', 'tool_use']);
    const { data, response } = await client.messages.create(body).withResponse();
    assert.equal(response.headers.get('x-gateway-cache-status'), 'HIT');
    assert.deepEqual(plain(data), plain(live));
    assert.deepEqual((data.content[1] as Anthropic.ToolUseBlock).input, { location: 'Paris' });
    assert.equal((data.content[0] as Anthropic.ThinkingBlock).signature, 'sig_fake_1');
    assert.equal(data.usage.output_tokens, 42, "message_delta's usage over message_start's");
    assert.equal(calls(), 1);
  });

  test('a stream that ends with an error event is not stored', async () => {
    const ns = namespace();
    const calls = count(anthropic);
    const body = { model: 'stream-error', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };
    for (let i = 0; i < 2; i += 1) {
      const streamed = await rawMessagesStream(body, nativeConfig(), ns);
      assert.equal(streamed.events.at(-1)?.type, 'error');
    }
    assert.equal(calls(), 2);
  });
});

describe('the cache on /v1/messages, translated through chat', () => {
  test('a chat answer is stored as a Message and replayed as the Messages stream', async () => {
    const ns = namespace();
    const calls = count(openai);
    const client = anthropicClient(chatConfig(), ns);
    const body = { model: 'echo-model', max_tokens: 50, messages: [{ role: 'user' as const, content: 'Translate me' }] };
    const first = await client.messages.create(body).withResponse();
    assert.equal(first.response.headers.get('x-gateway-cache-status'), 'MISS');
    assert.equal(first.data.type, 'message');
    const hit = await client.messages.create(body).withResponse();
    assert.equal(hit.response.headers.get('x-gateway-cache-status'), 'HIT');
    assert.deepEqual(hit.data, first.data, 'a Message, not the chat completion the provider answered');
    const streamed = await client.messages.stream(body).finalMessage();
    assert.deepEqual(plain(streamed), plain(first.data));
    assert.equal(calls(), 1);
  });

  test('a translated stream is stored as a Message', async () => {
    const ns = namespace();
    const calls = count(openai);
    const client = anthropicClient(chatConfig(), ns);
    const body = { model: 'stream-model', max_tokens: 50, messages: [{ role: 'user' as const, content: 'Stream then cache' }] };
    const live = await client.messages.stream(body).finalMessage();
    assert.equal(live.content[0]?.type === 'text' && live.content[0].text, 'Hello world');
    const { data, response } = await client.messages.create(body).withResponse();
    assert.equal(response.headers.get('x-gateway-cache-status'), 'HIT');
    assert.equal(data.type, 'message');
    assert.deepEqual(data.content, live.content);
    assert.equal(data.stop_reason, 'end_turn');
    assert.equal(calls(), 1);
  });

  test('the same body on /v1/chat/completions and /v1/messages: two entries, each in its own shape', async () => {
    const ns = namespace();
    const calls = count(openai);
    // a body both routes accept
    const body = { model: 'echo-model', max_tokens: 20, messages: [{ role: 'user' as const, content: 'Same body, two routes' }] };
    const chat = await openaiClient(chatConfig(), ns).chat.completions.create(body).withResponse();
    assert.equal(chat.response.headers.get('x-gateway-cache-status'), 'MISS');
    const message = await anthropicClient(chatConfig(), ns).messages.create(body).withResponse();
    assert.equal(message.response.headers.get('x-gateway-cache-status'), 'MISS', 'the chat entry is not served here');
    assert.equal(message.data.type, 'message');
    const chatAgain = await openaiClient(chatConfig(), ns).chat.completions.create(body).withResponse();
    assert.equal(chatAgain.response.headers.get('x-gateway-cache-status'), 'HIT');
    assert.equal(chatAgain.data.object, 'chat.completion');
    assert.equal(calls(), 2);
  });
});

describe('the cache on /v1/responses', () => {
  test('over chat: a hit is a fresh Response, kept: retrievable and continued by previous_response_id', async () => {
    const ns = namespace();
    const calls = count(openai);
    const client = openaiClient(chatConfig('deepseek'), ns);
    const body = { model: 'echo-model', input: 'Remember the number 7' };
    const first = await client.responses.create(body).withResponse();
    assert.equal(first.response.headers.get('x-gateway-cache-status'), 'MISS');
    const hit = await client.responses.create(body).withResponse();
    assert.equal(hit.response.headers.get('x-gateway-cache-status'), 'HIT');
    assert.equal(hit.data.object, 'response');
    assert.notEqual(hit.data.id, first.data.id, 'a fresh id');
    assert.notEqual(hit.data.output[0]?.id, first.data.output[0]?.id);
    assert.equal(hit.data.output_text, first.data.output_text);
    assert.deepEqual(hit.data.usage, first.data.usage);
    assert.equal(calls(), 1);

    const retrieved = await client.responses.retrieve(hit.data.id);
    assert.deepEqual(retrieved, hit.data);
    const next = await client.responses.create({ model: 'echo-model', input: 'Which number?', previous_response_id: hit.data.id });
    assert.equal(calls(), 2);
    const sent = (openai.requests.at(-1)!.json as { messages: Array<{ role: string; content: unknown }> }).messages;
    assert.deepEqual(sent.map((message) => message.role), ['user', 'assistant', 'user'], 'the cached turn continues the conversation');
    assert.equal(sent[1]?.content, first.data.output_text);
    assert.equal(next.output_text, 'You asked: Which number?');
  });

  test('over chat: a streamed answer is stored, and a hit streams as Responses events ending in response.completed', async () => {
    const ns = namespace();
    const calls = count(openai);
    const client = openaiClient(chatConfig('deepseek'), ns);
    const body = { model: 'stream-model', input: 'Stream me into the cache' };
    let live: OpenAI.Responses.Response | undefined;
    for await (const event of await client.responses.create({ ...body, stream: true })) if (event.type === 'response.completed') live = event.response;
    assert.equal(live?.output_text ?? (live?.output[0] as { content?: Array<{ text: string }> })?.content?.[0]?.text, 'Hello world');

    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    const stream = await client.responses.create({ ...body, stream: true }).withResponse();
    assert.equal(stream.response.headers.get('x-gateway-cache-status'), 'HIT');
    for await (const event of stream.data) {
      types.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    assert.deepEqual(types, [
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    ]);
    assert.ok(completed && completed.id !== live?.id);
    assert.deepEqual(completed.usage, live?.usage);
    assert.equal(calls(), 1);
    const kept = await client.responses.retrieve(completed.id);
    assert.equal(kept.id, completed.id);
  });

  test('a native Responses target: the cached Response gets a fresh id the gateway keeps', async () => {
    const ns = namespace();
    const calls = count(openai);
    const client = openaiClient(chatConfig('openai'), ns);
    const body = { model: 'native-model', input: 'Native and cached' };
    const first = await client.responses.create(body);
    assert.equal(first.id, 'resp_fake');
    const { data, response } = await client.responses.create(body).withResponse();
    assert.equal(response.headers.get('x-gateway-cache-status'), 'HIT');
    assert.match(data.id, /^resp_[0-9a-f]{48}$/);
    assert.equal(data.output_text, 'Hello world');
    assert.equal(calls(), 1);
    assert.deepEqual(await client.responses.retrieve(data.id), data, 'served from the store, not asked of the provider');
    assert.equal(calls(), 1);
  });

  test('the semantic cache: a paraphrased Responses input and a paraphrased Messages turn are SEMANTIC HITs', async () => {
    const ns = namespace();
    const semantic = { mode: 'semantic', max_age: 60, embedding: { provider: 'openai', model: 'words-64', custom_host: openai.baseUrl, api_key: 'sk-x' } };
    const question = 'What is the capital city of France and which river flows through it in the middle of the old town today';
    const responses = openaiClient(chatConfig('deepseek', semantic), ns);
    const first = await responses.responses.create({ model: 'echo-model', input: question });
    const paraphrased = await responses.responses.create({ model: 'echo-model', input: `${question} please` }).withResponse();
    assert.equal(paraphrased.response.headers.get('x-gateway-cache-status'), 'SEMANTIC HIT');
    assert.equal(paraphrased.data.output_text, first.output_text);

    const messages = anthropicClient(chatConfig('openai', semantic), ns);
    const answer = await messages.messages.create({ model: 'echo-model', max_tokens: 30, messages: [{ role: 'user', content: question }] });
    const again = await messages.messages.create({ model: 'echo-model', max_tokens: 30, messages: [{ role: 'user', content: `${question} please` }] }).withResponse();
    assert.equal(again.response.headers.get('x-gateway-cache-status'), 'SEMANTIC HIT');
    assert.deepEqual(again.data, answer);
  });
});

describe('the request log keeps what the client got', () => {
  async function loggedBody(traceId: string): Promise<Record<string, unknown>> {
    await gateway.gateway.requestLog.flush();
    const [row] = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, traceId);
    assert.ok(row?.responseBody, `a logged body for ${traceId}`);
    return JSON.parse(row.responseBody) as Record<string, unknown>;
  }
  const traced = (traceId: string, config: unknown) => ({ ...headers(config, namespace()), 'x-gateway-trace-id': traceId });
  const noCache = (provider = 'openai') => ({ provider, api_key: 'sk-x', custom_host: openai.baseUrl });

  test('Messages through chat, JSON and streamed: the Message, not the chat completion', async () => {
    for (const stream of [false, true]) {
      const traceId = `log-messages-translated-${String(stream)}`;
      const client = new Anthropic({ apiKey: gateway.adminKey, baseURL: gateway.origin, maxRetries: 0, defaultHeaders: traced(traceId, noCache()) });
      const params = { model: 'echo-model', max_tokens: 30, messages: [{ role: 'user' as const, content: 'Log me' }] };
      const got = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      const logged = await loggedBody(traceId);
      assert.equal(logged.type, 'message');
      assert.equal(logged.object, undefined);
      assert.deepEqual(logged.content, got.content);
      assert.equal(logged.stop_reason, got.stop_reason);
    }
  });

  test('a native Messages stream relayed as bytes: the Message it carried', async () => {
    const traceId = 'log-messages-native-stream';
    const client = new Anthropic({ apiKey: gateway.adminKey, baseURL: gateway.origin, maxRetries: 0, defaultHeaders: { 'anthropic-version': '2023-06-01', ...traced(traceId, { provider: 'anthropic', custom_host: anthropic.baseUrl, api_key: 'sk-ant' }) } });
    const got = await client.messages.stream(THINKING).finalMessage();
    const logged = await loggedBody(traceId);
    assert.deepEqual(logged, plain(got));
  });

  test('Responses over chat, streamed: the Response the client got, with its id', async () => {
    const traceId = 'log-responses-stream';
    const client = new OpenAI({ apiKey: 'sk-x', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, ...traced(traceId, noCache('deepseek')) } });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of await client.responses.create({ model: 'stream-model', input: 'Log the stream', stream: true })) if (event.type === 'response.completed') completed = event.response;
    const logged = await loggedBody(traceId);
    assert.equal(logged.object, 'response');
    assert.equal(logged.id, completed?.id);
    assert.deepEqual(logged.output, completed?.output);
  });
});
