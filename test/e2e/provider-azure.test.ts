/**
 * Azure OpenAI and Azure AI inference (Foundry) end to end: the real gateway, the official openai client, and a fake
 * Azure upstream that checks paths, api-version, credential headers and bodies and answers in Azure's shapes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
import { startFakeAzure, type FakeAzure } from '../fakes/azure-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let fake: FakeAzure;
let azure: OpenAI;
let foundry: OpenAI;

const WEATHER_TOOLS: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
];

before(async () => {
  fake = await startFakeAzure();
  gateway = await startTestGateway();
  azure = new OpenAI({
    apiKey: 'azure-key',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: {
      'x-gateway-api-key': gateway.adminKey,
      'x-gateway-provider': 'azure-openai',
      'x-gateway-custom-host': `${fake.origin}/openai`,
      'x-gateway-azure-deployment-id': 'gpt4o-prod',
      'x-gateway-azure-api-version': '2024-10-21',
      'x-gateway-azure-model-name': 'gpt-4o',
    },
  });
  foundry = new OpenAI({
    apiKey: 'foundry-key',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: {
      'x-gateway-api-key': gateway.adminKey,
      'x-gateway-provider': 'azure-ai-inference',
      'x-gateway-custom-host': `${fake.origin}/models`,
    },
  });
});

after(async () => {
  await gateway.close();
  await fake.close();
});

function assertApiKey(key: string): void {
  const seen = fake.last();
  assert.equal(seen.headers['api-key'], key);
  assert.equal(seen.headers.authorization, undefined, 'the bearer becomes api-key, it is not sent as well');
  assert.equal(seen.headers['x-gateway-api-key'], undefined);
}

describe('azure-openai', () => {
  test('chat: deployment path, api-version, api-key; filter results kept and the bytes untouched', async () => {
    const { data, response } = await azure.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 })
      .withResponse();
    const seen = fake.last();
    assert.equal(seen.path, '/openai/deployments/gpt4o-prod/chat/completions');
    assert.equal(seen.query.get('api-version'), '2024-10-21');
    assertApiKey('azure-key');
    assert.deepEqual(seen.json, { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 });
    assert.equal(data.choices[0]?.message.content, 'Hello from Azure');
    assert.equal(data.model, 'gpt-4o-2024-08-06', 'the answer names its model: the setting does not override it');
    assert.equal(data.usage?.prompt_tokens_details?.cached_tokens, 1024);
    const extra = data as unknown as { prompt_filter_results: unknown[]; choices: Array<{ content_filter_results: unknown }> };
    assert.equal(extra.prompt_filter_results.length, 1);
    assert.ok(extra.choices[0]?.content_filter_results);
    assert.equal(response.headers.get('x-ratelimit-remaining-tokens'), '449000', 'an unchanged answer keeps the provider headers');
    assert.equal(response.headers.get('x-gateway-provider'), 'azure-openai');
  });

  test('without x-gateway-azure-api-version the default GA version is sent', async () => {
    await azure.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'x-gateway-azure-api-version': null } });
    assert.equal(fake.last().query.get('api-version'), '2024-10-21');
    assert.equal(fake.last().query.size, 1);
  });

  test('an answer without a model reports x-gateway-azure-model-name', async () => {
    const data = await azure.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'x-gateway-azure-deployment-id': 'no-model' } });
    assert.equal(data.model, 'gpt-4o');
    assert.equal(fake.last().path, '/openai/deployments/no-model/chat/completions');
  });

  test('streaming: the choice-less first chunk is held back, its filter results kept, usage last', async () => {
    const stream = await azure.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(fake.last().path, '/openai/deployments/gpt4o-prod/chat/completions');
    assert.equal(fake.last().json.stream, true);
    for (const chunk of chunks.slice(0, -1)) assert.ok(chunk.choices[0]?.delta, 'every chunk before the usage chunk has a choice with a delta');
    assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
    assert.ok((chunks[0] as unknown as { prompt_filter_results?: unknown[] }).prompt_filter_results?.length);
    assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'Hello Azure');
    assert.equal(chunks.at(-1)?.usage?.total_tokens, 11);
    assert.deepEqual(chunks.at(-1)?.choices, []);
  });

  test('streaming parallel tool calls: assembled exactly by the official stream helper', async () => {
    const runner = azure.chat.completions.stream({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Weather and time in Paris?' }],
      tools: WEATHER_TOOLS,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    runner.on('chunk', (chunk) => chunks.push(chunk));
    const final = await runner.finalChatCompletion();
    const choice = final.choices[0]!;
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.deepEqual(
      choice.message.tool_calls?.map((call) => (call.type === 'function' ? [call.id, call.function.name, call.function.arguments] : [])),
      [['call_a1', 'get_weather', '{"city": "Paris"}'], ['call_b2', 'get_time', '{"tz":"CET"}']],
    );
    assert.equal(final.usage?.total_tokens, 113);
    assert.ok(chunks.every((chunk) => chunk.choices.length > 0 || chunk.usage), 'no choice-less chunk without usage reaches the client');
    const annotation = chunks.find((chunk) => chunk.id === '');
    assert.ok(annotation, 'the asynchronous-filter annotation chunk is relayed');
    assert.deepEqual(annotation.choices[0]?.delta, {});
    assert.equal(annotation.model, 'gpt-4o', 'its empty model is named by x-gateway-azure-model-name');
  });

  test('embeddings and text completions go to their deployment paths', async () => {
    const embedded = await azure.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] }, { headers: { 'x-gateway-azure-deployment-id': 'emb-small' } });
    assert.equal(fake.last().path, '/openai/deployments/emb-small/embeddings');
    assert.equal(fake.last().query.get('api-version'), '2024-10-21');
    assertApiKey('azure-key');
    assert.equal(embedded.data.length, 2);
    assert.deepEqual(embedded.data[1]?.embedding, [0.5, -0.25, 1]);
    const completion = await azure.completions.create({ model: 'gpt-35-turbo-instruct', prompt: 'Say hi' }, { headers: { 'x-gateway-azure-deployment-id': 'instruct' } });
    assert.equal(fake.last().path, '/openai/deployments/instruct/completions');
    assert.equal(completion.choices[0]?.text, 'Hello text');
  });

  test('a content-filter error keeps its status, message, code and innererror', async () => {
    await assert.rejects(
      azure.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'bad' }] }, { headers: { 'x-gateway-azure-deployment-id': 'filtered' } }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError);
        assert.equal(error.status, 400);
        assert.equal(error.code, 'content_filter');
        assert.match(error.message, /content management policy/);
        return true;
      },
    );
    const response = await request(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer azure-key', 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'azure-openai', 'x-gateway-custom-host': `${fake.origin}/openai`, 'x-gateway-azure-deployment-id': 'filtered' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'bad' }] }),
    });
    const body = (await response.body.json()) as { error: { innererror?: { code: string } } };
    assert.equal(response.statusCode, 400);
    assert.equal(body.error.innererror?.code, 'ResponsibleAIPolicyViolation');
  });

  test('Entra mode keeps the bearer token', async () => {
    await azure.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'x-gateway-azure-auth-mode': 'entra' } });
    assert.equal(fake.last().headers.authorization, 'Bearer azure-key');
    assert.equal(fake.last().headers['api-key'], undefined);
  });

  test('v1 API: /openai/v1 path, no api-version, the deployment as the model', async () => {
    const data = await azure.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'x-gateway-azure-api-version': 'v1' } });
    const seen = fake.last();
    assert.equal(seen.path, '/openai/v1/chat/completions');
    assert.equal(seen.query.has('api-version'), false);
    assert.equal(seen.json.model, 'gpt4o-prod');
    assert.equal(data.choices[0]?.message.content, 'Hello from Azure');
  });

  test('missing or bad cloud settings are 400s naming the header, and nothing is sent', async () => {
    const before = fake.requests.length;
    const cases: Array<[Record<string, string | null>, string]> = [
      [{ 'x-gateway-azure-deployment-id': null }, 'x-gateway-azure-deployment-id'],
      [{ 'x-gateway-custom-host': null }, 'x-gateway-azure-resource-name'],
      [{ 'x-gateway-custom-host': null, 'x-gateway-azure-resource-name': 'evil.example.com/' }, 'x-gateway-azure-resource-name'],
      [{ 'x-gateway-azure-auth-mode': 'managed' }, 'x-gateway-azure-auth-mode'],
    ];
    for (const [headers, param] of cases) {
      await assert.rejects(azure.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }, { headers }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError);
        assert.equal(error.status, 400);
        assert.equal(error.param, param);
        return true;
      });
    }
    assert.equal(fake.requests.length, before);
  });
});

describe('azure-ai-inference (Foundry)', () => {
  test('chat: /models/chat/completions with api-version, api-key and extra-parameters; body untouched', async () => {
    const data = await foundry.chat.completions.create({ model: 'Mistral-Large-2411', messages: [{ role: 'user', content: 'Hi' }], parallel_tool_calls: false });
    const seen = fake.last();
    assert.equal(seen.path, '/models/chat/completions');
    assert.equal(seen.query.get('api-version'), '2024-05-01-preview');
    assertApiKey('foundry-key');
    assert.equal(seen.headers['extra-parameters'], 'pass-through');
    assert.deepEqual(seen.json, { model: 'Mistral-Large-2411', messages: [{ role: 'user', content: 'Hi' }], parallel_tool_calls: false });
    assert.equal(data.model, 'Mistral-Large-2411');
    assert.equal(data.choices[0]?.message.content, 'Hello from Azure');
  });

  test('streaming tool calls', async () => {
    const final = await foundry.chat.completions
      .stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather and time?' }], tools: WEATHER_TOOLS })
      .finalChatCompletion();
    assert.equal(fake.last().path, '/models/chat/completions');
    assert.deepEqual(final.choices[0]?.message.tool_calls?.map((call) => call.id), ['call_a1', 'call_b2']);
    assert.equal(final.usage, undefined, 'no usage asked, none made up');
  });

  test('embeddings', async () => {
    const embedded = await foundry.embeddings.create({ model: 'embed-v-4-0', input: 'hello' });
    assert.equal(fake.last().path, '/models/embeddings');
    assert.equal(fake.last().query.get('api-version'), '2024-05-01-preview');
    assert.deepEqual(embedded.data[0]?.embedding, [0.5, -0.25, 0]);
  });

  test('rerank: the Cohere route, vendor prefix stripped, answer normalised and sorted', async () => {
    const result = (await foundry.post('/rerank', {
      body: { model: 'cohere.rerank-v3.5', query: 'capital', documents: ['alpha', { text: 'beta' }, 'gamma'], top_n: 3, return_documents: true },
    })) as { object: string; provider: string; model: string; id: string; results: Array<{ index: number; relevance_score: number; document?: { text: string } }>; usage?: { search_units?: number } };
    const seen = fake.last();
    assert.equal(seen.path, '/providers/cohere/v2/rerank');
    assert.equal(seen.query.has('api-version'), false);
    assertApiKey('foundry-key');
    assert.deepEqual(seen.json, { model: 'rerank-v3.5', query: 'capital', documents: ['alpha', 'beta', 'gamma'], top_n: 3 });
    assert.equal(result.object, 'list');
    assert.equal(result.provider, 'azure-ai-inference');
    assert.equal(result.model, 'cohere.rerank-v3.5');
    assert.equal(result.id, 'rerank-fake');
    assert.deepEqual(result.results.map((item) => [item.index, item.document?.text]), [[2, 'gamma'], [1, 'beta'], [0, 'alpha']]);
    assert.equal(result.usage?.search_units, 1);
  });
});
