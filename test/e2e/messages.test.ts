/**
 * POST /v1/messages end to end with the official @anthropic-ai/sdk client pointed at the gateway: natively to an
 * Anthropic-format upstream (the body untouched), and through the canonical chat form to an OpenAI-format one
 * (text, streams, tool use across two turns, parallel tools, stop reasons, usage with cache tokens).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { request } from 'undici';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-upstream.ts';
import { CITIES, startFakeToolsUpstream, type FakeToolsUpstream } from '../fakes/openai-tools-upstream.ts';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let anthropicUpstream: FakeAnthropic;
let chatUpstream: FakeToolsUpstream;

before(async () => {
  [anthropicUpstream, chatUpstream, gateway] = await Promise.all([startFakeAnthropic(), startFakeToolsUpstream(), startTestGateway()]);
});

after(async () => {
  await gateway.close();
  await Promise.all([anthropicUpstream.close(), chatUpstream.close()]);
});

/** A client of the chat backend: the gateway key in x-api-key (what the SDK sends), the provider chosen by header. */
function chatClient(): Anthropic {
  return new Anthropic({
    apiKey: gateway.adminKey,
    baseURL: gateway.origin,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': chatUpstream.baseUrl },
  });
}

/**
 * A client of the Anthropic backend: the gateway key in x-gateway-api-key, the provider key in x-api-key. The fake
 * Anthropic API accepts only anthropic-version 2023-06-01, which the client sends instead of its SDK's default.
 */
const nativeHeaders = () => ({ 'anthropic-version': '2023-06-01', 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropicUpstream.baseUrl });
function nativeClient(): Anthropic {
  return new Anthropic({ apiKey: 'sk-ant-provider', baseURL: gateway.origin, maxRetries: 0, defaultHeaders: nativeHeaders() });
}

const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } }, required: ['location'] },
};

function lastChatRequest() {
  const last = chatUpstream.requests.at(-1);
  assert.ok(last, 'the chat upstream received a request');
  return last;
}

describe('messages: native pass-through to an Anthropic target', () => {
  test('the body arrives untouched (cache_control, thinking, signatures), with anthropic-version and anthropic-beta', async () => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Think first.', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Earlier thought.', signature: 'sig_earlier' }, { type: 'text', text: 'Done.' }] },
        { role: 'user', content: 'Again' },
      ],
    } as const;
    const client = nativeClient();
    const { data, response } = await client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming, { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } }).withResponse();
    assert.equal(response.headers.get('x-gateway-provider'), 'anthropic');
    assert.equal(data.type, 'message');
    assert.deepEqual(data.content.map((block) => block.type), ['thinking', 'text']);
    const thinking = data.content[0] as Anthropic.ThinkingBlock;
    assert.equal(thinking.signature, 'sig_fake_1', 'the signature comes back as the provider wrote it');
    const seen = anthropicUpstream.requests.at(-1)!;
    assert.equal(`${seen.method} ${seen.url}`, 'POST /v1/messages');
    assert.deepEqual(seen.json, body, 'the body the client sent, untouched');
    assert.equal(seen.headers['x-api-key'], 'sk-ant-provider', 'x-api-key is the provider key when the gateway key comes in x-gateway-api-key');
    assert.equal(seen.headers['anthropic-version'], '2023-06-01');
    assert.equal(seen.headers['anthropic-beta'], 'prompt-caching-2024-07-31');
    assert.equal(seen.headers['x-gateway-api-key'], undefined, 'the gateway key is not sent on');
  });

  test('a native stream is relayed as the provider sent it and the SDK stream helpers assemble it', async () => {
    const stream = nativeClient().messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] });
    const message = await stream.finalMessage();
    assert.equal(message.id, 'msg_fake_stream');
    assert.ok(message.content.length > 0);
    assert.equal(message.stop_reason, 'end_turn');
  });

  test('the request log counts a native answer\'s usage, streamed (read beside the relayed bytes) or not', async () => {
    for (const [stream, expected] of [[false, [120, 5, 125]], [true, [120, 42, 162]]] as const) {
      const traceId = `messages-native-log-${String(stream)}`;
      const client = new Anthropic({ apiKey: 'sk-ant-provider', baseURL: gateway.origin, maxRetries: 0, defaultHeaders: { ...nativeHeaders(), 'x-gateway-trace-id': traceId } });
      const params = { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }] };
      const answer = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      await gateway.gateway.requestLog.flush();
      const [row] = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, traceId);
      assert.ok(row);
      assert.equal(row.route, 'messages');
      assert.equal(row.provider, 'anthropic');
      assert.deepEqual([row.promptTokens, row.completionTokens, row.totalTokens], expected);
      // the logged body is the Message the client assembled (a stream's text deltas read from a template, not parsed)
      const logged = JSON.parse(row.responseBody!) as Anthropic.Message;
      assert.deepEqual([logged.id, logged.content, logged.stop_reason], [answer.id, answer.content, answer.stop_reason]);
      assert.equal(row.bodiesTruncated, false);
    }
  });

  test('long streams, native and translated, past the events the log keeps: the logged body is the whole Message the SDK assembled', async () => {
    // 5,000 text deltas: more than the 4,096 events kept for a stream that does not assemble
    const native = new Anthropic({ apiKey: 'sk-ant-provider', baseURL: gateway.origin, maxRetries: 0, defaultHeaders: nativeHeaders() });
    for (const [name, client] of [['native', native], ['translated', chatClient()]] as const) {
      const traceId = `messages-long-${name}`;
      const params = { model: 'words-5000', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }] };
      const answer = await client.messages.stream(params, { headers: { 'x-gateway-trace-id': traceId } }).finalMessage();
      const text = answer.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      assert.equal(text, Array.from({ length: 5_000 }, (_, index) => `w${index} `).join(''), name);
      await gateway.gateway.requestLog.flush();
      const [row] = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, traceId);
      assert.ok(row, name);
      const logged = JSON.parse(row.responseBody!) as Anthropic.Message;
      assert.equal(logged.type, 'message', `${name}: logged as the Message, not as its events`);
      assert.deepEqual([logged.content, logged.stop_reason], [answer.content, answer.stop_reason], name);
      assert.equal(row.bodiesTruncated, false, name);
    }
  });

  test('count_tokens goes to the Anthropic target; a chat-only target answers 400 unsupported_route', async () => {
    const body = { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }] };
    const counted = await nativeClient().messages.countTokens(body as Anthropic.MessageCountTokensParams);
    assert.equal(counted.input_tokens, 14, 'the provider\'s count as it answered');
    const seen = anthropicUpstream.requests.at(-1)!;
    assert.equal(`${seen.method} ${seen.url}`, 'POST /v1/messages/count_tokens');
    assert.deepEqual(seen.json, body);
    await assert.rejects(chatClient().messages.countTokens(body as Anthropic.MessageCountTokensParams), (error: InstanceType<typeof Anthropic.APIError>) => {
      assert.equal(error.status, 400);
      assert.match(JSON.stringify(error.error), /unsupported_route/);
      return true;
    });
  });
});

describe('messages: through the canonical chat form (OpenAI-format backend)', () => {
  test('text: the Message shape, stop reason and usage with cache tokens; the chat request translated', async () => {
    const { data, response } = await chatClient()
      // temperature is not in this SDK's types any more; the API still takes it
      .messages.create(<Anthropic.MessageCreateParamsNonStreaming>{
        model: 'gpt-4o-mini',
        max_tokens: 100,
        system: 'Be brief.',
        temperature: 0.3,
        stop_sequences: ['END'],
        metadata: { user_id: 'user-1' },
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      })
      .withResponse();
    assert.equal(response.headers.get('x-gateway-provider'), 'openai');
    assert.equal(data.type, 'message');
    assert.equal(data.role, 'assistant');
    assert.match(data.id, /^msg_/);
    assert.deepEqual(data.content, [{ type: 'text', text: 'Hello from chat' }]);
    assert.equal(data.stop_reason, 'end_turn');
    assert.deepEqual(data.usage, { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 10 });
    const seen = lastChatRequest();
    assert.equal(seen.headers['anthropic-version'], undefined, 'the Messages protocol headers are not sent to a chat backend');
    assert.equal(seen.headers['x-api-key'], undefined, 'the gateway key given in x-api-key is not sent on');
    assert.deepEqual(seen.json, {
      model: 'gpt-4o-mini',
      max_tokens: 100,
      temperature: 0.3,
      stop: ['END'],
      user: 'user-1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
      ],
    });
  });

  test('max_tokens reached reads as stop_reason max_tokens', async () => {
    const data = await chatClient().messages.create({ model: 'length', max_tokens: 3, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(data.stop_reason, 'max_tokens');
  });

  test('structured output: output_config.format json_schema becomes response_format', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const body = { model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'Answer' }], output_config: { format: { type: 'json_schema', schema } } };
    const data = await chatClient().messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming);
    assert.deepEqual(JSON.parse((data.content[0] as Anthropic.TextBlock).text), { answer: '42' });
    assert.deepEqual(lastChatRequest().json.response_format, { type: 'json_schema', json_schema: { name: 'output', schema, strict: true } });
  });

  test('agent loop: parallel tool_use, tool_result back, final answer (not streamed)', async () => {
    const client = chatClient();
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris and Tokyo?' }];
    const first = await client.messages.create({ model: 'gpt-4o-mini', max_tokens: 200, tools: [weatherTool], tool_choice: { type: 'auto' }, messages });
    assert.equal(first.stop_reason, 'tool_use');
    const uses = first.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    assert.deepEqual(uses.map((use) => use.input), CITIES.map((city) => ({ location: city, unit: 'celsius' })));
    assert.deepEqual(lastChatRequest().json.tools, [{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: weatherTool.input_schema } }]);
    assert.equal(lastChatRequest().json.tool_choice, 'auto');

    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: `sunny in ${(use.input as { location: string }).location}` })) });
    const second = await client.messages.create({ model: 'gpt-4o-mini', max_tokens: 200, tools: [weatherTool], messages });
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(second.content, [{ type: 'text', text: 'Weather: sunny in Paris | sunny in Tokyo' }]);
    const sent = lastChatRequest().json.messages as Array<Record<string, unknown>>;
    assert.deepEqual(sent.map((message) => message.role), ['user', 'assistant', 'tool', 'tool']);
    assert.deepEqual((sent[1]!.tool_calls as Array<{ id: string }>).map((call) => call.id), uses.map((use) => use.id));
    assert.deepEqual(sent.slice(2).map((message) => message.tool_call_id), uses.map((use) => use.id));
  });

  test('stream: the exact event sequence, text then parallel tools, input_json_delta assembled, usage at the end', async () => {
    const response = await request(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.adminKey, 'anthropic-version': '2023-06-01', 'x-gateway-provider': 'openai', 'x-gateway-custom-host': chatUpstream.baseUrl },
      body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 200, stream: true, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather?' }] }),
    });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /text\/event-stream/);
    const text = await response.body.text();
    assert.doesNotMatch(text, /\[DONE\]/);
    const events = text.trim().split('\n\n').map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse(dataLine!.slice('data: '.length)) as Record<string, unknown>;
      assert.equal(eventLine, `event: ${String(data.type)}`, 'each event is named by its type');
      return data;
    });
    const summary = events.map((event) => {
      const delta = event.delta as Record<string, unknown> | undefined;
      const block = event.content_block as Record<string, unknown> | undefined;
      if (event.type === 'content_block_start') return `start ${String(event.index)} ${String(block!.type)}`;
      if (event.type === 'content_block_delta') return `delta ${String(event.index)} ${String(delta!.type)}`;
      if (event.type === 'content_block_stop') return `stop ${String(event.index)}`;
      return String(event.type);
    });
    assert.deepEqual(summary, [
      'message_start', 'ping',
      'start 0 text', 'delta 0 text_delta', 'stop 0',
      'start 1 tool_use', 'delta 1 input_json_delta', 'delta 1 input_json_delta', 'delta 1 input_json_delta', 'stop 1',
      'start 2 tool_use', 'delta 2 input_json_delta', 'delta 2 input_json_delta', 'delta 2 input_json_delta', 'stop 2',
      'message_delta', 'message_stop',
    ]);
    const json = (index: number) => events.filter((event) => event.type === 'content_block_delta' && event.index === index).map((event) => (event.delta as { partial_json: string }).partial_json).join('');
    assert.deepEqual(JSON.parse(json(1)), { location: 'Paris', unit: 'celsius' });
    assert.deepEqual(JSON.parse(json(2)), { location: 'Tokyo', unit: 'celsius' });
    const end = events.find((event) => event.type === 'message_delta')!;
    assert.deepEqual(end.delta, { stop_reason: 'tool_use', stop_sequence: null });
    assert.deepEqual(end.usage, { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 10 });
    const seen = lastChatRequest().json;
    assert.equal(seen.stream, true);
    assert.deepEqual(seen.stream_options, { include_usage: true });
  });

  test('stream helpers: messages.stream() and finalMessage() through the agent loop, streamed both turns', async () => {
    const client = chatClient();
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const deltas: string[] = [];
    const stream = client.messages.stream({ model: 'gpt-single', max_tokens: 200, tools: [weatherTool], messages });
    stream.on('inputJson', (partial) => deltas.push(partial));
    const first = await stream.finalMessage();
    assert.equal(first.stop_reason, 'tool_use');
    assert.deepEqual(first.content.map((block) => block.type), ['text', 'tool_use']);
    const use = first.content[1] as Anthropic.ToolUseBlock;
    assert.deepEqual(use.input, { location: 'Paris', unit: 'celsius' });
    assert.equal(deltas.join(''), JSON.stringify({ location: 'Paris', unit: 'celsius' }));
    assert.deepEqual(first.usage, { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 10 });

    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: [{ type: 'text', text: '21C and clear' }] }] });
    const second = await client.messages.stream({ model: 'gpt-single', max_tokens: 200, tools: [weatherTool], messages }).finalMessage();
    assert.deepEqual(second.content, [{ type: 'text', text: 'Weather: 21C and clear' }]);
    assert.equal(second.stop_reason, 'end_turn');
  });
});

describe('messages: a translated stream that breaks', () => {
  test('ends with an error event in the Messages shape, which the SDK raises', async () => {
    const response = await request(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.adminKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': chatUpstream.baseUrl },
      body: JSON.stringify({ model: 'break', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const frames = (await response.body.text()).trim().split('\n\n');
    const names = frames.map((frame) => frame.split('\n')[0]);
    // how much of the text arrives before the reset is the network's choice; the error event always ends the stream
    assert.equal(names.at(-1), 'event: error');
    if (names.length > 1) assert.equal(names[0], 'event: message_start');
    assert.equal(names.filter((name) => name === 'event: message_stop').length, 0, 'a broken stream does not claim to have ended');
    const error = JSON.parse(frames.at(-1)!.split('\n')[1]!.slice('data: '.length)) as { type: string; error: { type: string; message: string } };
    assert.equal(error.type, 'error');
    assert.equal(error.error.type, 'api_error');
    assert.match(error.error.message, /broke/);
    const stream = chatClient().messages.stream({ model: 'break', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] });
    await assert.rejects(stream.finalMessage(), (thrown: Error) => thrown instanceof Anthropic.APIError || /broke|terminated/i.test(thrown.message));
  });
});

describe('messages: input and credentials', () => {
  const post = (body: unknown, headers: Record<string, string> = { 'x-api-key': gateway.adminKey }) =>
    gateway.gateway.app.inject({ method: 'POST', url: '/v1/messages', headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', 'x-gateway-custom-host': chatUpstream.baseUrl, ...headers }, payload: JSON.stringify(body) });

  test('a missing model, max_tokens or messages is a 400 naming the field, before any provider', async () => {
    const before = chatUpstream.requests.length;
    for (const [field, body] of [
      ['model', { max_tokens: 10, messages: [] }],
      ['max_tokens', { model: 'm', messages: [] }],
      ['messages', { model: 'm', max_tokens: 10 }],
    ] as const) {
      const response = await post(body);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal((response.json() as { error: { param: string } }).error.param, field);
    }
    const badRole = await post({ model: 'm', max_tokens: 10, messages: [{ role: 'system', content: 'x' }] });
    assert.equal(badRole.statusCode, 400);
    assert.match((badRole.json() as { error: { param: string } }).error.param, /^messages\[0\]\.role$|^messages\.0\.role$|role/);
    const serverTool = await post({ model: 'm', max_tokens: 10, tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'x' }] });
    assert.equal(serverTool.statusCode, 400);
    assert.equal((serverTool.json() as { error: { param: string } }).error.param, 'tools[0].type');
    assert.equal(chatUpstream.requests.length, before, 'nothing reached the provider');
  });

  test('an unknown key in x-api-key is a 401; x-api-key is the gateway key only on the Messages routes', async () => {
    const unknown = await post({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': 'not-a-gateway-key' });
    assert.equal(unknown.statusCode, 401);
    const none = await post({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }, {});
    assert.equal(none.statusCode, 401);
    const chat = await gateway.gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.adminKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': chatUpstream.baseUrl },
      payload: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(chat.statusCode, 401, 'other routes still want x-gateway-api-key');
  });

  test('the gateway key sent twice (x-gateway-api-key and the SDK key) is never handed to the provider', async () => {
    const copies: Array<Record<string, string>> = [{ 'x-api-key': gateway.adminKey }, { authorization: `Bearer ${gateway.adminKey}` }];
    for (const copy of copies) {
      const response = await post({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }, { 'x-gateway-api-key': gateway.adminKey, ...copy });
      assert.equal(response.statusCode, 200, response.body);
      const seen = lastChatRequest();
      assert.equal(seen.headers.authorization, undefined);
      assert.equal(seen.headers['x-api-key'], undefined);
    }
    const own = await post({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }, { 'x-gateway-api-key': gateway.adminKey, 'x-api-key': 'sk-provider-own' });
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(lastChatRequest().headers.authorization, 'Bearer sk-provider-own', 'another x-api-key is the provider credential');
  });
});

describe('messages: config features apply as for chat completions', () => {
  /** a client routed by an inline config; the gateway key in x-api-key */
  const configured = (config: unknown, headers: Record<string, string> = {}) =>
    new Anthropic({ apiKey: gateway.adminKey, baseURL: gateway.origin, maxRetries: 0, defaultHeaders: { 'anthropic-version': '2023-06-01', 'x-gateway-config': JSON.stringify(config), ...headers } });
  const anthropicTarget = (model: string) => ({ provider: 'anthropic', custom_host: anthropicUpstream.baseUrl, api_key: 'sk-ant-config', override_params: { model } });
  const chatTarget = () => ({ provider: 'openai', custom_host: chatUpstream.baseUrl });

  test('fallback from a failing native target to a chat backend: the answer is a Message either way', async () => {
    const nativeBefore = anthropicUpstream.requests.length;
    const { data, response } = await configured({ strategy: { mode: 'fallback' }, targets: [anthropicTarget('error-529'), chatTarget()] })
      .messages.create({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    assert.equal(anthropicUpstream.requests.length, nativeBefore + 1, 'the native target was tried first');
    assert.equal(anthropicUpstream.requests.at(-1)!.headers['x-api-key'], 'sk-ant-config', 'the config\'s key, not the gateway key');
    assert.equal(response.headers.get('x-gateway-provider'), 'openai');
    assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[1]');
    assert.deepEqual(data.content, [{ type: 'text', text: 'Hello from chat' }]);
  });

  test('the stream falls back too, and the fallen-back stream is the Messages event stream', async () => {
    const stream = configured({ strategy: { mode: 'fallback' }, targets: [anthropicTarget('error-500'), chatTarget()] })
      .messages.stream({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] });
    const message = await stream.finalMessage();
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hello from chat' }]);
    assert.equal(message.stop_reason, 'end_turn');
  });

  test('an input guardrail that denies stops the request before any provider: 446', async () => {
    const before = chatUpstream.requests.length;
    const config = { ...chatTarget(), input_guardrails: [{ 'default.contains': { operator: 'none', words: ['forbidden'] }, deny: true }] };
    await assert.rejects(configured(config).messages.create({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'this is forbidden' }] }), (error: InstanceType<typeof Anthropic.APIError>) => {
      assert.equal(error.status, 446);
      return true;
    });
    assert.equal(chatUpstream.requests.length, before);
  });

  test('the request log: one row on route messages with the usage of the canonical answer, streamed or not', async () => {
    for (const stream of [false, true]) {
      const traceId = `messages-log-${String(stream)}`;
      const client = configured(chatTarget(), { 'x-gateway-trace-id': traceId });
      if (stream) await client.messages.stream({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
      else await client.messages.create({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] });
      await gateway.gateway.requestLog.flush();
      const rows = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, traceId);
      assert.equal(rows.length, 1);
      const row = rows[0]!;
      assert.equal(row.route, 'messages');
      assert.equal(row.status, 200);
      assert.equal(row.provider, 'openai');
      assert.equal(row.streamMode, stream);
      assert.deepEqual([row.promptTokens, row.completionTokens, row.totalTokens], [30, 7, 37]);
    }
  });
});
