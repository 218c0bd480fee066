/** Cohere end to end: the real gateway and the official openai client against a fake Cohere API that checks its input. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { COHERE_TEST_KEY, startFakeCohere, type FakeCohere } from '../fakes/cohere-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let cohere: FakeCohere;
let client: OpenAI;

before(async () => {
  cohere = await startFakeCohere();
  gateway = await startTestGateway();
  client = new OpenAI({
    apiKey: COHERE_TEST_KEY,
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'cohere', 'x-gateway-custom-host': cohere.baseUrl },
  });
});

after(async () => {
  await gateway.close();
  await cohere.close();
});

function lastRequest() {
  const last = cohere.requests.at(-1);
  assert.ok(last, 'the fake Cohere received a request');
  return last;
}

const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];

describe('cohere chat', () => {
  test('a plain answer: text, finish reasons, usage from tokens with cached tokens, settings mapped', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'command-a-03-2025',
        messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello in French' }],
        max_completion_tokens: 20,
        top_p: 0.5,
        stop: ['\n\n'],
        logit_bias: { '42': 1 },
      })
      .withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.choices[0]?.message.content, 'Bonjour!');
    assert.equal(data.choices[0]?.finish_reason, 'stop');
    assert.equal((data.choices[0] as unknown as { native_finish_reason: string }).native_finish_reason, 'COMPLETE');
    assert.deepEqual(data.usage, { prompt_tokens: 210, completion_tokens: 9, total_tokens: 219, prompt_tokens_details: { cached_tokens: 128 } });
    assert.equal(response.headers.get('x-gateway-provider'), 'cohere');
    assert.equal(response.headers.get('x-gateway-warnings'), 'cohere: logit_bias not supported; dropped');
    const seen = lastRequest();
    assert.equal(seen.url, '/v2/chat');
    assert.equal(seen.headers['x-gateway-api-key'], undefined, 'the gateway key never reaches Cohere');
    assert.deepEqual(seen.json, {
      model: 'command-a-03-2025',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello in French' }],
      max_tokens: 20,
      p: 0.5,
      stop_sequences: ['\n\n'],
    });
  });

  test('tool calls and a tool round trip: the answer\'s calls are sent back as Cohere tool messages', async () => {
    const first = await client.chat.completions.create({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }], tools, tool_choice: 'required' });
    const choice = first.choices[0]!;
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, 'I will check both cities.');
    const calls = (choice.message.tool_calls ?? []).filter((call) => call.type === 'function');
    assert.deepEqual(calls.map((call) => [call.id, call.function.name, call.function.arguments]), [
      ['get_weather_1a2b', 'get_weather', '{"city":"Paris"}'],
      ['get_weather_3c4d', 'get_weather', '{"city":"Rome"}'],
    ]);
    assert.equal(lastRequest().json.tool_choice, 'REQUIRED');

    const second = await client.chat.completions.create({
      model: 'command-a-03-2025',
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        choice.message,
        ...calls.map((call, index) => ({ role: 'tool' as const, tool_call_id: call.id, content: index === 0 ? '18C' : '24C' })),
      ],
    });
    assert.equal(second.choices[0]?.message.content, 'Bonjour!');
    const messages = lastRequest().json.messages as Array<Record<string, unknown>>;
    assert.deepEqual(messages[1], { role: 'assistant', tool_calls: choice.message.tool_calls, tool_plan: 'I will check both cities.' });
    assert.deepEqual(messages[3], { role: 'tool', tool_call_id: 'get_weather_3c4d', content: '24C' });
  });

  test('streaming with parallel tool calls: stable ids and indexes, arguments assembled exactly, usage last', async () => {
    const stream = await client.chat.completions.create({
      model: 'command-a-03-2025',
      messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    let content = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let chunksAfterUsage = 0;
    for await (const chunk of stream) {
      if (usage) chunksAfterUsage += 1;
      assert.equal(chunk.id, 'chat-stream-1');
      const choice = chunk.choices[0];
      content += choice?.delta.content ?? '';
      finish = choice?.finish_reason ?? finish;
      for (const delta of choice?.delta.tool_calls ?? []) {
        const call = (calls[delta.index] ??= { id: '', name: '', arguments: '' });
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.name = delta.function.name;
        call.arguments += delta.function?.arguments ?? '';
      }
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(content, 'I will check both cities.');
    assert.deepEqual(calls, [
      { id: 'get_weather_1a2b', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'get_weather_3c4d', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
    assert.equal(finish, 'tool_calls');
    assert.deepEqual(usage, { prompt_tokens: 210, completion_tokens: 9, total_tokens: 219, prompt_tokens_details: { cached_tokens: 128 } });
    assert.equal(chunksAfterUsage, 0, 'usage comes in the last chunk');
    assert.equal(lastRequest().json.stream, true);
    assert.equal('stream_options' in lastRequest().json, false);
  });

  test('the openai client\'s stream helper assembles the same answer (the chunks are valid OpenAI chunks)', async () => {
    const runner = client.chat.completions.stream({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'hi' }], tools });
    const final = await runner.finalChatCompletion();
    const calls = (final.choices[0]?.message.tool_calls ?? []).filter((call) => call.type === 'function');
    assert.deepEqual(calls.map((call) => JSON.parse(call.function.arguments)), [{ city: 'Paris' }, { city: 'Rome' }]);
  });

  test('a streamed text answer without include_usage has no usage chunk', async () => {
    const stream = await client.chat.completions.create({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) {
      assert.equal(chunk.usage ?? undefined, undefined);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    assert.equal(text, 'Bonjour!');
  });

  test('an error event in the stream reaches the client as an error', async () => {
    const stream = await client.chat.completions.create({ model: 'stream-error', messages: [{ role: 'user', content: 'hi' }], stream: true });
    await assert.rejects(async () => {
      for await (const _chunk of stream) {
        // read until the error event
      }
    }, /internal model failure/);
  });

  test('Cohere errors keep their status and message; a garbage answer is a 502', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'error-429', messages: [{ role: 'user', content: 'hi' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 429);
      assert.match(error.message, /fake cohere says no \(429\)/);
      return true;
    });
    await assert.rejects(
      client.chat.completions.create({ model: 'garbage', messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 502,
    );
  });
});

describe('cohere embeddings and rerank', () => {
  test('embeddings: the openai client\'s default base64 decodes to Cohere\'s floats; usage from billed units', async () => {
    const result = await client.embeddings.create({ model: 'embed-v4.0', input: ['alpha', 'beta'], dimensions: 256 });
    assert.deepEqual(result.data.map((item) => item.embedding), [[0.5, -0.25, 0.125], [1, -0.25, 0.125]]);
    assert.deepEqual(result.usage, { prompt_tokens: 6, total_tokens: 6 });
    const seen = lastRequest();
    assert.equal(seen.url, '/v2/embed');
    assert.deepEqual(seen.json, { model: 'embed-v4.0', texts: ['alpha', 'beta'], input_type: 'search_document', embedding_types: ['float'], output_dimension: 256 });
  });

  test('embeddings: float format, and input_type from an extra field', async () => {
    const result = await client.embeddings.create({
      model: 'embed-v4.0',
      input: 'alpha',
      encoding_format: 'float',
      // @ts-expect-error Cohere's input_type is not an OpenAI field
      input_type: 'search_query',
    });
    assert.deepEqual(result.data[0]?.embedding, [0.5, -0.25, 0.125]);
    assert.equal(lastRequest().json.input_type, 'search_query');
  });

  test('rerank: sorted by relevance, original indexes, documents from the request, search units, dropped fields warned', async () => {
    const documents = ['Carson City is in Nevada.', { text: 'Washington, D.C. is the US capital.', source: 'wiki' }, 'Capital punishment is old.'];
    const { data, response } = await client
      .post<{ id: string; object: string; provider: string; model: string; results: Array<{ index: number; relevance_score: number; document?: { text: string } }>; usage: { search_units: number } }>(
        '/rerank',
        { body: { model: 'rerank-v3.5', query: 'US capital?', documents, top_n: 3, return_documents: true, rank_fields: ['text'], max_chunks_per_doc: 2 } },
      )
      .withResponse();
    assert.equal(data.id, 'rerank-1');
    assert.equal(data.object, 'list');
    assert.equal(data.provider, 'cohere');
    assert.equal(data.model, 'rerank-v3.5');
    assert.deepEqual(data.results.map((result) => [result.index, result.relevance_score]), [[2, 0.3], [1, 0.2], [0, 0.1]]);
    assert.deepEqual(data.results.map((result) => result.document?.text), ['Capital punishment is old.', 'Washington, D.C. is the US capital.', 'Carson City is in Nevada.']);
    assert.deepEqual(data.usage, { search_units: 1 });
    assert.equal(
      response.headers.get('x-gateway-warnings'),
      'cohere: document fields other than text not supported (Cohere ranks plain text); dropped; cohere: rank_fields not supported; dropped',
    );
    const seen = lastRequest();
    assert.equal(seen.url, '/v2/rerank');
    assert.deepEqual(seen.json, {
      model: 'rerank-v3.5',
      query: 'US capital?',
      documents: ['Carson City is in Nevada.', 'Washington, D.C. is the US capital.', 'Capital punishment is old.'],
      top_n: 3,
      max_chunks_per_doc: 2,
    });
  });
});

describe('cohere: a custom host ending in a version (the reference API form, https://api.cohere.ai/v1)', () => {
  test('the version segment is dropped: chat still reaches /v2/chat', async () => {
    const versioned = new OpenAI({
      apiKey: COHERE_TEST_KEY,
      baseURL: gateway.baseURL,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'cohere', 'x-gateway-custom-host': `${cohere.baseUrl}/v1` },
    });
    const answer = await versioned.chat.completions.create({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'Say hello in French' }] });
    assert.equal(answer.choices[0]?.message.content, 'Bonjour!');
    assert.equal(lastRequest().url, '/v2/chat');
  });
});
