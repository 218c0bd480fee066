/** End to end through the real server with the official openai client, against a fake Gemini API. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { GOOGLE_API_KEY, SIGNATURE, embeddingValues, startFakeGoogleUpstream, type FakeServer } from '../fakes/google-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeServer;
let client: OpenAI;

before(async () => {
  upstream = await startFakeGoogleUpstream();
  gateway = await startTestGateway();
  client = new OpenAI({
    apiKey: GOOGLE_API_KEY,
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: {
      'x-gateway-api-key': gateway.adminKey,
      'x-gateway-provider': 'google',
      'x-gateway-custom-host': `${upstream.origin}/v1beta`,
    },
  });
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

const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather',
      strict: true,
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    },
  },
];

describe('google: chat', () => {
  test('non-streaming: Gemini body, API key header, answer with usage and finish reason', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'gemini-2.0-flash', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], max_tokens: 50, temperature: 0.3 })
      .withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.choices[0]?.message.content, 'Hello from Gemini');
    assert.equal(data.choices[0]?.finish_reason, 'stop');
    assert.deepEqual(data.usage, { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17, prompt_tokens_details: { cached_tokens: 4 } });
    assert.equal(response.headers.get('x-gateway-provider'), 'google');
    assert.equal(response.headers.get('x-gateway-warnings'), null);
    const seen = lastRequest();
    assert.equal(seen.url, '/v1beta/models/gemini-2.0-flash:generateContent');
    assert.equal(seen.headers['x-goog-api-key'], GOOGLE_API_KEY);
    assert.equal(seen.headers.authorization, undefined, 'the key travels only in x-goog-api-key');
    assert.deepEqual(seen.json, {
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { maxOutputTokens: 50, temperature: 0.3 },
    });
  });

  test('settings Gemini cannot honour come back in x-gateway-warnings and are not sent', async () => {
    const { response } = await client.chat.completions
      .create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }], logit_bias: { '1': 5 } })
      .withResponse();
    assert.equal(response.headers.get('x-gateway-warnings'), 'google: logit_bias not supported; dropped');
    assert.equal('logit_bias' in (lastRequest().json as object), false);
  });

  test('streaming with parallel tool calls: deltas, signature, finish reason, usage last; then the signature goes back', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris and London?' }];
    const stream = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages, tools, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    const calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string }; thought_signature?: string }> = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? '';
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
      for (const delta of choice?.delta.tool_calls ?? []) {
        const signature = (delta as { thought_signature?: string }).thought_signature;
        const existing = calls[delta.index];
        if (existing) existing.function.arguments += delta.function?.arguments ?? '';
        else calls[delta.index] = { id: delta.id!, type: 'function', function: { name: delta.function!.name!, arguments: delta.function?.arguments ?? '' }, ...(signature ? { thought_signature: signature } : {}) };
      }
    }
    assert.equal(text, 'Let me check.');
    assert.equal(finish, 'tool_calls');
    assert.equal(usage?.total_tokens, 17);
    assert.deepEqual(calls.map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)]), [
      ['call_0', 'get_weather', { city: 'Paris' }],
      ['call_1', 'get_weather', { city: 'London' }],
    ]);
    assert.equal(calls[0]?.thought_signature, SIGNATURE);
    const first = lastRequest();
    assert.equal(first.url, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    const declaration = (first.json as { tools: Array<{ functionDeclarations: unknown[] }> }).tools[0]?.functionDeclarations[0];
    assert.deepEqual(declaration, { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } });

    // the next turn: the fake refuses it (like Gemini 3) unless the functionCall part carries the signature again
    messages.push({ role: 'assistant', content: text, tool_calls: calls } as OpenAI.ChatCompletionAssistantMessageParam);
    for (const [index, call] of calls.entries()) messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ temperature: 21 + index }) });
    const answer = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages, tools });
    assert.equal(answer.choices[0]?.message.content, 'It is 21 C in Paris.');
    const contents = (lastRequest().json as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents;
    assert.equal(contents[1]?.parts[1]?.thoughtSignature, SIGNATURE);
    assert.deepEqual(contents[2]?.parts, [
      { functionResponse: { name: 'get_weather', response: { temperature: 21 } } },
      { functionResponse: { name: 'get_weather', response: { temperature: 22 } } },
    ]);
  });

  test('without the signature the provider error comes back with its status and message', async () => {
    const messages = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_0', content: '{"temperature":21}' },
    ] as OpenAI.ChatCompletionMessageParam[];
    await assert.rejects(client.chat.completions.create({ model: 'gemini-3-pro-preview', messages, tools }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 400);
      assert.match(error.message, /missing a thought_signature/);
      return true;
    });
  });

  test('thinking in non-strict mode: thoughtsConfig sent, content_blocks answered', async () => {
    const answer = (await client.chat.completions.create(
      // @ts-expect-error thinking is a gateway extra the OpenAI types do not know
      { model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'enabled', budget_tokens: 512 } },
      { headers: { 'x-gateway-strict-reference-compliance': 'false' } },
    )) as OpenAI.ChatCompletion & { choices: Array<{ message: { content_blocks?: unknown[] } }> };
    assert.deepEqual((lastRequest().json as { generationConfig: unknown }).generationConfig, { thinkingConfig: { thinkingBudget: 512, includeThoughts: true } });
    assert.equal(answer.choices[0]?.message.content, 'Hello from Gemini');
    assert.deepEqual(answer.choices[0]?.message.content_blocks, [
      { type: 'thinking', thinking: 'Thinking about the weather.' },
      { type: 'text', text: 'Hello from Gemini' },
    ]);
  });

  test('provider errors keep the status and message; garbage is a 502; a stream error event ends the stream', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'error-429', messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 429);
      assert.match(error.message, /Resource has been exhausted/);
      assert.equal(error.code, 'RESOURCE_EXHAUSTED');
      return true;
    });
    await assert.rejects(
      client.chat.completions.create({ model: 'garbage', messages: [{ role: 'user', content: 'Hi' }] }),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 502,
    );
    const stream = await client.chat.completions.create({ model: 'stream-error', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
      /overloaded/,
    );
    assert.equal(text, 'Hel');
  });
});

describe('google: embeddings', () => {
  test('batchEmbedContents; the SDK default base64 encoding decodes to the same floats', async () => {
    const result = await client.embeddings.create({ model: 'gemini-embedding-001', input: ['a', 'b'], dimensions: 3 });
    assert.deepEqual(result.data.map((item) => item.embedding), [embeddingValues(0), embeddingValues(1)]);
    const seen = lastRequest();
    assert.equal(seen.url, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
    assert.deepEqual(seen.json, {
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a' }] }, outputDimensionality: 3 },
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'b' }] }, outputDimensionality: 3 },
      ],
    });
    const floats = await client.embeddings.create({ model: 'gemini-embedding-001', input: 'a', encoding_format: 'float' });
    assert.deepEqual(floats.data[0]?.embedding, embeddingValues(0));
  });
});

describe('google: the custom host as the bare origin (the reference API form)', () => {
  // https://generativelanguage.googleapis.com is the form the reference API documents: the gateway adds /v1beta
  const originClient = () =>
    new OpenAI({
      apiKey: GOOGLE_API_KEY,
      baseURL: gateway.baseURL,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'google', 'x-gateway-custom-host': upstream.origin },
    });

  test('chat, stream and embeddings reach /v1beta/models/...', async () => {
    const bare = originClient();
    const answer = await bare.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(answer.choices[0]?.message.content, 'Hello from Gemini');
    assert.equal(lastRequest().url, '/v1beta/models/gemini-2.0-flash:generateContent');

    const stream = await bare.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Hello from Gemini');
    assert.equal(lastRequest().url, '/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');

    const embeddings = await bare.embeddings.create({ model: 'gemini-embedding-001', input: 'a', encoding_format: 'float' });
    assert.deepEqual(embeddings.data[0]?.embedding, embeddingValues(0));
    assert.equal(lastRequest().url, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
  });
});
