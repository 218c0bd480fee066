/** End to end through the real server with the official openai client, against a fake Bedrock that checks SigV4. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
import { startFakeBedrock, type BedrockRecordedRequest, type FakeBedrock } from '../fakes/bedrock-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const ACCESS_KEY_ID = 'AKIDGATEWAYTEST';
const SECRET = 'gateway-test-secret';
const CHAT_MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

let gateway: TestGateway;
let upstream: FakeBedrock;
let client: OpenAI;

function awsHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'x-gateway-api-key': gateway.adminKey,
    'x-gateway-provider': 'bedrock',
    'x-gateway-custom-host': upstream.baseUrl,
    'x-gateway-aws-region': 'us-west-2',
    'x-gateway-aws-access-key-id': ACCESS_KEY_ID,
    'x-gateway-aws-secret-access-key': SECRET,
    ...extra,
  };
}

before(async () => {
  upstream = await startFakeBedrock({ [ACCESS_KEY_ID]: SECRET, AKIDFROMBEARER: SECRET });
  gateway = await startTestGateway();
  client = new OpenAI({ apiKey: 'unused-bearer', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: awsHeaders() });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

function lastRequest(): BedrockRecordedRequest {
  const last = upstream.requests.at(-1);
  assert.ok(last, 'the fake Bedrock received a request');
  assert.ok(last.signedBy, 'the request carried a valid SigV4 signature');
  return last;
}

describe('chat', () => {
  test('Converse: system, tools with cache points, parallel tool calls back, cached usage, signed request', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: `${CHAT_MODEL}-tools`,
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } } as OpenAI.ChatCompletionContentPartText] },
          { role: 'user', content: 'Weather in Paris and Rome?' },
        ],
        tools: [WEATHER_TOOL],
        tool_choice: 'auto',
        max_tokens: 200,
        seed: 1,
      })
      .withResponse();
    const choice = data.choices[0]!;
    assert.equal(choice.message.content, 'Paris is sunny.');
    assert.deepEqual(
      choice.message.tool_calls?.map((call) => call.type === 'function' && [call.id, call.function.name, call.function.arguments]),
      [
        ['tooluse_paris', 'get_weather', '{"city":"Paris"}'],
        ['tooluse_rome', 'get_weather', '{"city":"Rome"}'],
      ],
    );
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal((choice as unknown as { native_finish_reason: string }).native_finish_reason, 'tool_use');
    assert.deepEqual(data.usage, {
      prompt_tokens: 1820,
      completion_tokens: 10,
      total_tokens: 1830,
      prompt_tokens_details: { cached_tokens: 1500, cache_creation_tokens: 300 },
    });
    assert.equal(response.headers.get('x-gateway-warnings'), 'bedrock: seed not supported; dropped');

    const seen = lastRequest();
    assert.equal(seen.url, '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0-tools/converse');
    assert.deepEqual(seen.signedBy, { accessKeyId: ACCESS_KEY_ID, region: 'us-west-2', signedHeaders: seen.signedBy?.signedHeaders });
    assert.equal(seen.headers['x-gateway-api-key'], undefined, 'the gateway key never reaches the provider');
    assert.deepEqual(seen.json, {
      messages: [{ role: 'user', content: [{ text: 'Weather in Paris and Rome?' }] }],
      system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
      inferenceConfig: { maxTokens: 200 },
      toolConfig: {
        tools: [{ toolSpec: { name: 'get_weather', description: 'Weather for a city', inputSchema: { json: WEATHER_TOOL.function.parameters } } }],
        toolChoice: { auto: {} },
      },
    });
  });

  test('the access key id may come from Authorization; a session token is signed as x-amz-security-token', async () => {
    const { 'x-gateway-aws-access-key-id': _id, ...headers } = awsHeaders({ 'x-gateway-aws-session-token': 'session-1' });
    const bearer = new OpenAI({ apiKey: 'AKIDFROMBEARER', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: headers });
    const data = await bearer.chat.completions.create({ model: CHAT_MODEL, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(data.choices[0]?.finish_reason, 'stop');
    const seen = lastRequest();
    assert.equal(seen.signedBy?.accessKeyId, 'AKIDFROMBEARER');
    assert.equal(seen.headers['x-amz-security-token'], 'session-1');
    assert.ok(seen.signedBy?.signedHeaders.includes('x-amz-security-token'));
    assert.equal(seen.headers.authorization?.startsWith('AWS4-HMAC-SHA256 '), true, 'the bearer token is not forwarded');
  });

  test('ConverseStream: binary event stream -> text, two tool calls with assembled arguments, usage last', async () => {
    const stream = await client.chat.completions.create({
      model: CHAT_MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
      tools: [WEATHER_TOOL],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const calls: Array<{ id?: string; name?: string; arguments: string }> = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    let usageWasLast = false;
    for await (const chunk of stream) {
      usageWasLast = false;
      if (chunk.usage) {
        usage = chunk.usage;
        usageWasLast = true;
      }
      const delta = chunk.choices[0]?.delta;
      text += delta?.content ?? '';
      for (const call of delta?.tool_calls ?? []) {
        const slot = (calls[call.index] ??= { arguments: '' });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name = call.function.name;
        slot.arguments += call.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(text, 'Checking both cities.');
    assert.deepEqual(calls, [
      { id: 'tooluse_paris', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'tooluse_rome', name: 'get_weather', arguments: '{"city": "Rome"}' },
    ]);
    assert.equal(finish, 'tool_calls');
    assert.ok(usageWasLast, 'usage comes in the last chunk');
    assert.deepEqual(usage, { prompt_tokens: 1520, completion_tokens: 45, total_tokens: 1565, prompt_tokens_details: { cached_tokens: 1500 } });
    const seen = lastRequest();
    assert.equal(seen.url, '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream');
    assert.equal(seen.headers.accept, 'application/vnd.amazon.eventstream');
  });

  test('a stream exception ends the stream with an error event carrying the provider message', async () => {
    const response = await request(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...awsHeaders() },
      body: JSON.stringify({ model: 'stream-exception', messages: [{ role: 'user', content: 'Hi' }], stream: true }),
    });
    const text = await response.body.text();
    assert.match(text, /"content":"Checking "/);
    const last = text.trim().split('\n\n').at(-1) ?? '';
    const error = JSON.parse(last.replace(/^data: /, '')).error;
    assert.equal(error.message, 'Too many tokens, please wait before trying again.');
    assert.equal(error.type, 'rate_limit_error');
    assert.equal(error.code, 'throttlingException');
  });

  test('provider errors keep status and message; missing AWS settings are 400s naming the header', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'error-429', messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 429);
      assert.match(error.message, /Too many requests, please wait/);
      return true;
    });
    const count = upstream.requests.length;
    for (const name of ['x-gateway-aws-region', 'x-gateway-aws-secret-access-key']) {
      const { [name]: _dropped, ...headers } = awsHeaders();
      const response = await request(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: CHAT_MODEL, messages: [{ role: 'user', content: 'Hi' }] }),
      });
      const body = (await response.body.json()) as { error: { param: string } };
      assert.equal(response.statusCode, 400);
      assert.equal(body.error.param, name);
    }
    assert.equal(upstream.requests.length, count, 'nothing was sent upstream');
  });
});

describe('embeddings and rerank', () => {
  test('Titan: one input, base64 (the openai client default) decoded back to the same floats, usage kept', async () => {
    const data = await client.embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: 'Hello world', dimensions: 256 });
    assert.deepEqual(data.data[0]?.embedding, [0.5, -0.25, 0.125]);
    assert.deepEqual(data.usage, { prompt_tokens: 4, total_tokens: 4 });
    const seen = lastRequest();
    assert.equal(seen.url, '/model/amazon.titan-embed-text-v2%3A0/invoke');
    assert.deepEqual(seen.json, { inputText: 'Hello world', dimensions: 256, normalize: true });
    await assert.rejects(
      client.embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: ['a', 'b'] }),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 400 && error.param === 'input',
    );
  });

  test('Cohere: several inputs in one call', async () => {
    const data = await client.embeddings.create({ model: 'cohere.embed-english-v3', input: ['a', 'b'], encoding_format: 'float' });
    assert.deepEqual(data.data.map((item) => [item.index, item.embedding]), [[0, [0, 0.5]], [1, [1, 0.5]]]);
    assert.deepEqual(lastRequest().json, { texts: ['a', 'b'], input_type: 'search_document' });
  });

  test('rerank: sorted by relevance with original indexes and documents, model ARN from the region', async () => {
    const response = await request(`${gateway.baseURL}/rerank`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...awsHeaders() },
      body: JSON.stringify({ model: 'amazon.rerank-v1:0', query: 'capital of France', documents: ['Berlin', { text: 'Madrid' }, 'Paris'], top_n: 2, return_documents: true }),
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(await response.body.json(), {
      object: 'list',
      model: 'amazon.rerank-v1:0',
      provider: 'bedrock',
      results: [
        { index: 2, relevance_score: 0.3, document: { text: 'Paris' } },
        { index: 1, relevance_score: 0.2, document: { text: 'Madrid' } },
      ],
    });
    const seen = lastRequest();
    assert.equal(seen.url, '/rerank');
    const config = (seen.json as { rerankingConfiguration: { bedrockRerankingConfiguration: Record<string, unknown> } }).rerankingConfiguration;
    assert.deepEqual(config.bedrockRerankingConfiguration, {
      numberOfResults: 2,
      modelConfiguration: { modelArn: 'arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0' },
    });
  });
});
