/**
 * The Responses API over a provider's chat API, end to end with the official openai client against a fake chat
 * upstream: text, a stream of Responses events, a function call across two turns with previous_response_id (the
 * conversation kept by the gateway), structured output, and retrieve / input items / delete from the store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startChatToolsUpstream, type ChatToolsUpstream } from '../fakes/chat-tools-upstream.ts';
import { startFakeUpstream } from '../fakes/openai-upstream.ts';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: ChatToolsUpstream;
let client: OpenAI;

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

before(async () => {
  upstream = await startChatToolsUpstream();
  gateway = await startTestGateway();
  client = new OpenAI({
    apiKey: 'sk-provider-token',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'deepseek', 'x-gateway-custom-host': upstream.baseUrl },
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

const lastSent = () => upstream.requests.at(-1)!;

describe('Responses over chat: JSON answers', () => {
  test('text: instructions and input become chat messages; the answer a Response with usage', async () => {
    const response = await client.responses.create({ model: 'chat-model', instructions: 'Be brief.', input: 'Hi there', temperature: 0.2, max_output_tokens: 50 });
    assert.equal(response.object, 'response');
    assert.match(response.id, /^resp_[0-9a-f]{48}$/);
    assert.equal(response.status, 'completed');
    assert.equal(response.output_text, 'Hello world');
    assert.equal(response.output[0]?.type, 'message');
    assert.deepEqual(response.usage, { input_tokens: 11, input_tokens_details: { cached_tokens: 3 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 });
    assert.equal(response.instructions, 'Be brief.');
    assert.deepEqual(lastSent(), {
      model: 'chat-model',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi there' }],
      max_tokens: 50,
      temperature: 0.2,
    });
  });

  test('a function call, then its output in a second turn through previous_response_id', async () => {
    const first = await client.responses.create({ model: 'chat-model', input: 'Weather in Paris?', tools: [weatherTool] });
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call && call.type === 'function_call');
    assert.equal(call.name, 'get_weather');
    assert.equal(call.arguments, '{"city":"Paris"}');
    assert.equal(call.call_id, 'call_weather_1');
    assert.deepEqual((lastSent().tools as unknown[])[0], { type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: weatherTool.parameters, strict: true } });

    const second = await client.responses.create({
      model: 'chat-model',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21C' }],
      tools: [weatherTool],
    });
    assert.equal(second.output_text, 'The weather: sunny, 21C');
    const messages = lastSent().messages as Array<Record<string, unknown>>;
    assert.deepEqual(messages, [
      // the stored input item, as input_items lists it: its text as a part
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_weather_1', content: 'sunny, 21C' },
    ]);

    const items = await client.responses.inputItems.list(second.id, { order: 'asc' });
    assert.deepEqual(items.data.map((item) => item.type), ['message', 'function_call', 'function_call_output']);
    const newestFirst = await client.responses.inputItems.list(second.id, { limit: 1 });
    assert.equal(newestFirst.data[0]?.type, 'function_call_output');
    assert.equal(newestFirst.has_more, true);
  });

  test('structured output: text.format json_schema becomes response_format', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, temperature: { type: 'number' } }, required: ['city', 'temperature'], additionalProperties: false };
    const response = await client.responses.create({ model: 'chat-model', input: 'Paris weather as JSON', text: { format: { type: 'json_schema', name: 'weather', schema, strict: true } } });
    assert.deepEqual(JSON.parse(response.output_text), { city: 'Paris', temperature: 21 });
    assert.deepEqual(lastSent().response_format, { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } });
  });

  test('retrieve, then delete: served from the gateway store', async () => {
    const created = await client.responses.create({ model: 'chat-model', input: 'Keep me' });
    const sent = upstream.requests.length;
    const retrieved = await client.responses.retrieve(created.id);
    assert.equal(retrieved.id, created.id);
    assert.equal(retrieved.output_text, 'Hello world');
    await client.responses.delete(created.id);
    await assert.rejects(client.responses.retrieve(created.id, {}, { headers: { 'x-gateway-provider': null, 'x-gateway-custom-host': null } }), (error: unknown) => error instanceof OpenAI.NotFoundError);
    assert.equal(upstream.requests.length, sent, 'the provider was never asked');
  });

  test('store: false keeps nothing', async () => {
    const created = await client.responses.create({ model: 'chat-model', input: 'Forget me', store: false });
    await assert.rejects(client.responses.retrieve(created.id, {}, { headers: { 'x-gateway-provider': null, 'x-gateway-custom-host': null } }), OpenAI.NotFoundError);
  });
});

describe('Responses over chat: streams', () => {
  test('text: the Responses events in order, with sequence numbers and the usage at the end', async () => {
    const stream = await client.responses.create({ model: 'chat-model', input: 'Hi', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    assert.deepEqual(events.map((event) => event.type), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    assert.deepEqual(events.map((event) => event.sequence_number), events.map((_, index) => index));
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    assert.equal(done.response.output_text ?? (done.response.output[0] as OpenAI.Responses.ResponseOutputMessage).content.map((part) => (part.type === 'output_text' ? part.text : '')).join(''), 'Hello world');
    assert.equal(done.response.usage?.total_tokens, 18);
    assert.equal(lastSent().stream, true);
    assert.deepEqual(lastSent().stream_options, { include_usage: true });
    const stored = await client.responses.retrieve(done.response.id);
    assert.equal(stored.status, 'completed');
  });

  test('a streamed function call: argument deltas, then the second turn streamed too', async () => {
    const stream = client.responses.stream({ model: 'chat-model', input: 'Weather in Paris?', tools: [weatherTool] });
    const deltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (event) => deltas.push(event.delta));
    const first = await stream.finalResponse();
    assert.deepEqual(deltas, ['{"cit', 'y":"Paris"}']);
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call && call.type === 'function_call');
    assert.equal(call.arguments, '{"city":"Paris"}');

    const second = client.responses.stream({ model: 'chat-model', previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: 'rain' }], tools: [weatherTool] });
    const final = await second.finalResponse();
    assert.equal(final.output_text, 'The weather: rain');
  });
});

describe('Responses over chat: bad input', () => {
  test('a missing model, a bad item and a built-in tool are 400s naming the field; nothing reaches the provider', async () => {
    const sent = upstream.requests.length;
    const refused = async (body: Record<string, unknown>, param: string) => {
      const error = await client.responses.create(body as never).then(() => undefined, (caught: unknown) => caught);
      assert.ok(error instanceof OpenAI.BadRequestError, `a 400 for ${param}`);
      assert.equal((error as InstanceType<typeof OpenAI.BadRequestError>).param, param);
    };
    await refused({ input: 'Hi' }, 'model');
    await refused({ model: 'chat-model', input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id');
    await refused({ model: 'chat-model', input: 'Hi', tools: [{ type: 'web_search_preview' }] }, 'tools[0].type');
    await refused({ model: 'chat-model', input: 'Hi', text: { format: { type: 'json_schema', name: 'x' } } }, 'text.format.schema');
    await refused({ model: 'chat-model', input: 'Hi', previous_response_id: 'resp_unknown' }, 'previous_response_id');
    assert.equal(upstream.requests.length, sent);
  });
});

describe('Responses over chat: routing configs apply', () => {
  test('fallback from a native Responses target (404) to a chat-only one, with override_params; streamed too', async () => {
    const config = {
      strategy: { mode: 'fallback', on_status_codes: [404] },
      targets: [
        // speaks Responses natively: the request passes through, and this upstream has no /v1/responses
        { provider: 'openai', custom_host: upstream.baseUrl, api_key: 'sk-a' },
        { provider: 'deepseek', custom_host: upstream.baseUrl, api_key: 'sk-b', override_params: { model: 'overridden', temperature: 0.7 } },
      ],
    };
    const routed = new OpenAI({ apiKey: 'unused', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': JSON.stringify(config) } });
    const { data, response } = await routed.responses.create({ model: 'requested', input: 'Hi' }).withResponse();
    assert.equal(data.output_text, 'Hello world');
    assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[1]');
    assert.equal(response.headers.get('x-gateway-provider'), 'deepseek');
    assert.equal(lastSent().model, 'overridden');
    assert.equal(lastSent().temperature, 0.7);
    assert.equal(data.temperature, 0.7, 'the Response echoes the settings the provider got');

    const stream = await routed.responses.create({ model: 'requested', input: 'Hi', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    assert.equal(text, 'Hello world');
    assert.equal(lastSent().model, 'overridden');
  });
});

describe('Responses over chat: the request log', () => {
  async function rowOf(traceId: string) {
    await gateway.gateway.requestLog.flush();
    const rows = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, traceId);
    assert.equal(rows.length, 1);
    return rows[0]!;
  }

  test('JSON and streamed answers log the provider, the usage and the route', async () => {
    const { response } = await client.responses.create({ model: 'chat-model', input: 'Hi' }).withResponse();
    const json = await rowOf(response.headers.get('x-gateway-trace-id')!);
    assert.deepEqual([json.provider, json.promptTokens, json.completionTokens, json.totalTokens, json.status], ['deepseek', 11, 7, 18, 200]);

    const streamed = await client.responses.create({ model: 'chat-model', input: 'Hi', stream: true }).withResponse();
    for await (const _event of streamed.data) { /* read to the end */ }
    const row = await rowOf(streamed.response.headers.get('x-gateway-trace-id')!);
    assert.deepEqual([row.provider, row.promptTokens, row.completionTokens, row.totalTokens, row.streamMode], ['deepseek', 11, 7, 18, true]);
  });
});

describe('Responses over chat: a broken stream', () => {
  test('ends with an error event after what arrived, and nothing is stored', async () => {
    const broken = await startFakeUpstream();
    try {
      const raw = await fetch(`${gateway.baseURL}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'deepseek', 'x-gateway-custom-host': broken.baseUrl, authorization: 'Bearer sk-x' },
        body: JSON.stringify({ model: 'break', input: 'Hi', stream: true }),
      });
      const text = await raw.text();
      const events = text.trim().split('\n\n').map((frame) => {
        const [eventLine, dataLine] = frame.split('\n');
        return { name: eventLine!.slice('event: '.length), data: JSON.parse(dataLine!.slice('data: '.length)) as { type: string; sequence_number: number; code?: string; response?: { id: string } } };
      });
      assert.deepEqual(events.map((event) => event.name), events.map((event) => event.data.type), 'each event line names its data');
      assert.deepEqual(events.map((event) => event.name), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'error']);
      assert.equal(events.at(-1)!.data.code, 'stream_interrupted');
      assert.equal(events.at(-1)!.data.sequence_number, events.length - 1);
      assert.ok(!text.includes('[DONE]'));
      const id = events[0]!.data.response!.id;
      await assert.rejects(client.responses.retrieve(id, {}, { headers: { 'x-gateway-provider': null, 'x-gateway-custom-host': null } }), OpenAI.NotFoundError);
    } finally {
      await broken.close();
    }
  });
});
