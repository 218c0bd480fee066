/** End to end through the real server with the official openai client, against a fake Anthropic API that checks what it receives. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeAnthropic;
let client: OpenAI;

const gatewayHeaders = () => ({
  'x-gateway-api-key': gateway.adminKey,
  'x-gateway-provider': 'anthropic',
  'x-gateway-custom-host': upstream.baseUrl,
});

before(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway();
  client = new OpenAI({ apiKey: 'sk-ant-provider', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: gatewayHeaders() });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

function lastRequest() {
  const last = upstream.requests.at(-1);
  assert.ok(last, 'the upstream received a request');
  return last;
}

/** A raw call, for the answers the openai client's types do not know (content_blocks, error events). */
async function raw(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await request(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-ant-provider', ...gatewayHeaders(), ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

const weatherTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
};

describe('anthropic: chat completions', () => {
  test('non-streaming: Anthropic auth and body, the answer in OpenAI shape with cached usage', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], temperature: 0.2 })
      .withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.choices[0]?.message.content, 'Hello world');
    assert.equal(data.choices[0]?.finish_reason, 'stop');
    assert.equal((data.choices[0] as unknown as { native_finish_reason: string }).native_finish_reason, 'end_turn');
    assert.deepEqual(data.usage, { prompt_tokens: 120, completion_tokens: 5, total_tokens: 125, prompt_tokens_details: { cached_tokens: 100, cache_creation_tokens: 0 } });
    assert.equal(response.headers.get('x-gateway-provider'), 'anthropic');
    assert.equal(response.headers.get('x-gateway-warnings'), null);
    const seen = lastRequest();
    assert.equal(`${seen.method} ${seen.url}`, 'POST /v1/messages');
    assert.equal(seen.headers['x-api-key'], 'sk-ant-provider');
    assert.equal(seen.headers['anthropic-version'], '2023-06-01');
    assert.equal(seen.headers.authorization, undefined, 'the bearer token travels as x-api-key only');
    assert.deepEqual(seen.json, { model: 'claude-sonnet-4-5-20250929', max_tokens: 4096, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 });
  });

  test('settings Anthropic cannot honour are not sent and come back in x-gateway-warnings', async () => {
    const { response } = await client.chat.completions
      .create({ model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hi' }], seed: 3, logit_bias: { '50256': -100 } })
      .withResponse();
    assert.equal(response.headers.get('x-gateway-warnings'), 'anthropic: seed not supported; dropped; anthropic: logit_bias not supported; dropped');
    assert.equal('seed' in (lastRequest().json ?? {}), false);
  });

  test('parallel tool calls, then the tool results sent back as one user turn of tool_result blocks', async () => {
    const first = await client.chat.completions.create({
      model: 'claude-sonnet-4-5-20250929',
      messages: [{ role: 'user', content: 'Weather in Paris and Tokyo?' }],
      tools: [weatherTool],
      tool_choice: 'auto',
    });
    const message = first.choices[0]?.message;
    assert.equal(first.choices[0]?.finish_reason, 'tool_calls');
    assert.deepEqual(message?.tool_calls?.map((call) => call.type === 'function' && [call.id, call.function.name, call.function.arguments]), [
      ['toolu_paris', 'get_weather', '{"location":"Paris"}'],
      ['toolu_tokyo', 'get_weather', '{"location":"Tokyo"}'],
    ]);
    assert.ok(message);
    const second = await client.chat.completions.create({
      model: 'claude-sonnet-4-5-20250929',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris and Tokyo?' },
        message,
        { role: 'tool', tool_call_id: 'toolu_paris', content: '15C' },
        { role: 'tool', tool_call_id: 'toolu_tokyo', content: '22C' },
      ],
    });
    assert.equal(second.choices[0]?.message.content, 'Hello world');
    const sent = lastRequest().json?.messages as Array<{ role: string; content: unknown }>;
    assert.deepEqual(sent.map((turn) => turn.role), ['user', 'assistant', 'user']);
    assert.deepEqual(sent[2]?.content, [
      { type: 'tool_result', tool_use_id: 'toolu_paris', content: '15C' },
      { type: 'tool_result', tool_use_id: 'toolu_tokyo', content: '22C' },
    ]);
  });

  test('streaming with parallel tool calls: ids, names and arguments assembled, usage last', async () => {
    const stream = await client.chat.completions.create({
      model: 'claude-sonnet-4-5-20250929',
      messages: [{ role: 'user', content: 'Weather in Paris and Tokyo?' }],
      tools: [weatherTool],
      stream: true,
      stream_options: { include_usage: true },
    });
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    let finish: string | null | undefined;
    let role: string | undefined;
    const usages: Array<OpenAI.CompletionUsage | null | undefined> = [];
    for await (const chunk of stream) {
      usages.push(chunk.usage);
      const choice = chunk.choices[0];
      role ??= choice?.delta.role;
      for (const call of choice?.delta.tool_calls ?? []) {
        const slot = (calls[call.index] ??= { id: '', name: '', arguments: '' });
        slot.id += call.id ?? '';
        slot.name += call.function?.name ?? '';
        slot.arguments += call.function?.arguments ?? '';
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
    }
    assert.equal(role, 'assistant');
    assert.deepEqual(calls, [
      { id: 'toolu_paris', name: 'get_weather', arguments: '{"location":"Paris"}' },
      { id: 'toolu_tokyo', name: 'get_weather', arguments: '{"location":"Tokyo"}' },
    ]);
    assert.equal(finish, 'tool_calls');
    assert.deepEqual(usages.at(-1), { prompt_tokens: 120, completion_tokens: 42, total_tokens: 162, prompt_tokens_details: { cached_tokens: 100, cache_creation_tokens: 0 } });
    assert.ok(usages.slice(0, -1).every((usage) => !usage), 'usage only in the last chunk');
    assert.equal(lastRequest().json?.stream, true);
  });

  test('streaming text without include_usage: no usage chunk, ends with [DONE]', async () => {
    const answer = await raw({ model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    assert.equal(answer.status, 200);
    const events = answer.text.trim().split('\n\n');
    assert.equal(events.at(-1), 'data: [DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)) as { choices: Array<{ delta: { content?: string } }>; usage?: unknown });
    assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'Hello world');
    assert.ok(chunks.every((chunk) => chunk.usage === undefined));
  });

  test('an error event mid-stream reaches the client with Anthropic\'s message', async () => {
    const answer = await raw({ model: 'stream-error', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    assert.match(answer.text, /"content":"Partial"/);
    assert.match(answer.text, /data: \{"error":\{"message":"Overloaded","type":"upstream_error","param":null,"code":"overloaded_error"\}\}/);
    assert.doesNotMatch(answer.text, /\[DONE\]/);
  });

  test('images: a data URL goes as a base64 source, an https URL as a url source', async () => {
    await client.chat.completions.create({
      model: 'claude-sonnet-4-5-20250929',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }, { type: 'text', text: 'Same?' }] }],
    });
    const sent = lastRequest().json?.messages as Array<{ content: unknown }>;
    assert.deepEqual(sent[0]?.content, [
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
      { type: 'text', text: 'Same?' },
    ]);
  });
});

describe('anthropic: thinking', () => {
  const body = { model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'enabled', budget_tokens: 1024 } };

  test('strict compliance (the default): thinking is not sent, and a warning says so', async () => {
    const answer = await raw(body);
    assert.equal(answer.status, 200);
    assert.equal(lastRequest().json?.thinking, undefined);
    assert.equal(answer.headers['x-gateway-warnings'], 'anthropic: thinking is a provider extra (send x-gateway-strict-reference-compliance: false to use it); dropped');
    assert.equal((JSON.parse(answer.text) as { choices: Array<{ message: Record<string, unknown> }> }).choices[0]?.message.content_blocks, undefined);
  });

  test('a config\'s strict_open_ai_compliance: false (the compatible gateway\'s name) works like strict_reference_compliance', async () => {
    const config = JSON.stringify({ provider: 'anthropic', custom_host: upstream.baseUrl, strict_open_ai_compliance: false });
    const answer = await raw(body, { 'x-gateway-config': config });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(lastRequest().json?.thinking, { type: 'enabled', budget_tokens: 1024 });
  });

  test('non-strict: thinking sent, content_blocks with the signature back, and sent back first next turn', async () => {
    const answer = await raw(body, { 'x-gateway-strict-reference-compliance': 'false' });
    assert.deepEqual(lastRequest().json?.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.equal(lastRequest().json?.max_tokens, 4096 + 1024);
    const message = (JSON.parse(answer.text) as { choices: Array<{ message: Record<string, unknown> }> }).choices[0]?.message;
    assert.deepEqual(message?.content_blocks, [{ type: 'thinking', thinking: 'Let me think about the weather.', signature: 'sig_fake_1' }]);
    await raw({ ...body, strict_reference_compliance: false, messages: [...body.messages, message, { role: 'user', content: 'And?' }] });
    const sent = lastRequest().json as { messages: Array<{ content: unknown }>; strict_reference_compliance?: unknown };
    assert.equal(sent.strict_reference_compliance, undefined, 'the gateway flag never reaches Anthropic');
    assert.deepEqual(sent.messages[1]?.content, [{ type: 'thinking', thinking: 'Let me think about the weather.', signature: 'sig_fake_1' }, { type: 'text', text: 'Hello world' }]);
  });

  test('non-strict streaming: thinking and signature as content_blocks deltas', async () => {
    const answer = await raw({ ...body, stream: true }, { 'x-gateway-strict-reference-compliance': 'false' });
    assert.match(answer.text, /"content_blocks":\[\{"index":0,"delta":\{"type":"thinking","thinking":"Let me think about the weather."\}\}\]/);
    assert.match(answer.text, /"content_blocks":\[\{"index":0,"delta":\{"type":"thinking","signature":"sig_fake_1"\}\}\]/);
  });
});

describe('anthropic: errors', () => {
  test('provider errors keep the provider status, message and type', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'error-429', messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 429);
      assert.match(error.message, /Fake Anthropic error 429: slow down/);
      assert.equal(error.type, 'rate_limit_error');
      return true;
    });
  });

  test('a provider answering garbage is a 502', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'garbage', messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 502);
  });

  test('a request Anthropic cannot take is a 400 before any upstream call', async () => {
    const before = upstream.requests.length;
    const answer = await raw({ model: 'claude', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] });
    assert.equal(answer.status, 400);
    assert.match(answer.text, /input_audio/);
    assert.equal(upstream.requests.length, before);
  });

  test('embeddings and rerank are not Anthropic routes', async () => {
    await assert.rejects(client.embeddings.create({ model: 'claude', input: 'x' }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 400 && /does not support this route/.test(error.message));
  });
});

describe('anthropic: other routes', () => {
  test('text completions over the Messages API, plain and streamed', async () => {
    const completion = await client.completions.create({ model: 'claude-3-5-haiku-20241022', prompt: 'Say hi', max_tokens: 20 });
    assert.equal(completion.object, 'text_completion');
    assert.equal(completion.choices[0]?.text, 'Hello world');
    assert.equal(completion.usage?.total_tokens, 125);
    assert.deepEqual(lastRequest().json, { model: 'claude-3-5-haiku-20241022', max_tokens: 20, messages: [{ role: 'user', content: 'Say hi' }] });
    const stream = await client.completions.create({ model: 'claude-3-5-haiku-20241022', prompt: 'Say hi', stream: true });
    let text = '';
    let finish: string | null | undefined;
    for await (const part of stream) {
      text += part.choices[0]?.text ?? '';
      finish = part.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(text, 'Hello world');
    assert.equal(finish, 'stop');
  });

  test('models: Anthropic\'s list in OpenAI\'s shape', async () => {
    const page = await client.models.list();
    assert.deepEqual(page.data.map((model) => [model.id, model.object, model.owned_by, model.created]), [['claude-sonnet-4-5-20250929', 'model', 'anthropic', 1759104000]]);
    assert.equal(`${lastRequest().method} ${lastRequest().url}`, 'GET /v1/models');
  });

  test('pass-through: native Anthropic paths with auth added and a forwarded anthropic-beta header', async () => {
    const response = await request(`${gateway.baseURL}/messages/count_tokens`, {
      method: 'POST',
      headers: {
        ...gatewayHeaders(),
        authorization: 'Bearer sk-ant-provider',
        'content-type': 'application/json',
        'anthropic-beta': 'token-counting-2024-11-01',
        'x-gateway-forward-headers': 'anthropic-beta',
      },
      body: JSON.stringify({ model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(await response.body.json(), { input_tokens: 14 });
    const seen = lastRequest();
    assert.equal(seen.url, '/v1/messages/count_tokens');
    assert.equal(seen.headers['anthropic-beta'], 'token-counting-2024-11-01');
    assert.equal(seen.headers['x-api-key'], 'sk-ant-provider');
  });
});
