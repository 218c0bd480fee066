/** End to end through the real server with the official openai client, against a fake Vertex AI and token endpoint. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
import { SIGNATURE, type FakeServer } from '../fakes/google-upstream.ts';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from '../fakes/google-token-endpoint.ts';
import { PROJECT, REGION, startFakeVertexUpstream } from '../fakes/vertex-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const CLIENT_TOKEN = 'ya29.client-token';
let gateway: TestGateway;
let upstream: FakeServer;
let tokens: FakeTokenEndpoint;
let client: OpenAI;
let headers: Record<string, string>;

before(async () => {
  tokens = await startFakeTokenEndpoint();
  upstream = await startFakeVertexUpstream({ acceptToken: (token) => token === CLIENT_TOKEN || tokens.issued.includes(token) });
  gateway = await startTestGateway();
  headers = {
    'x-gateway-api-key': gateway.adminKey,
    'x-gateway-provider': 'vertex-ai',
    'x-gateway-custom-host': `${upstream.origin}/v1`,
    'x-gateway-vertex-project-id': PROJECT,
    'x-gateway-vertex-region': REGION,
  };
  client = new OpenAI({ apiKey: CLIENT_TOKEN, baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: headers });
});

after(async () => {
  await gateway.close();
  await upstream.close();
  await tokens.close();
});

function lastRequest() {
  const last = upstream.requests.at(-1);
  assert.ok(last, 'the upstream received a request');
  return last;
}

const location = `/v1/projects/${PROJECT}/locations/${REGION}`;
const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];

describe('vertex-ai: Gemini', () => {
  test('chat with a bearer access token: URL under the project and region, Gemini body', async () => {
    const answer = await client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }], seed: 3 });
    assert.equal(answer.choices[0]?.message.content, 'Hello from Gemini');
    assert.equal(answer.usage?.prompt_tokens_details?.cached_tokens, 4);
    const seen = lastRequest();
    assert.equal(seen.url, `${location}/publishers/google/models/gemini-2.0-flash:generateContent`);
    assert.equal(seen.headers.authorization, `Bearer ${CLIENT_TOKEN}`);
    assert.deepEqual(seen.json, { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { seed: 3 } });
  });

  test('streaming chat with tool calls and the thought signature round trip', async () => {
    const stream = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Weather?' }], tools, stream: true, stream_options: { include_usage: true } });
    const calls: Array<Record<string, unknown> & { id: string; function: { name: string; arguments: string } }> = [];
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason;
      if (chunk.usage) usage = chunk.usage;
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) calls[delta.index] = { ...delta, id: delta.id!, function: { name: delta.function!.name!, arguments: delta.function!.arguments! } };
    }
    assert.equal(finish, 'tool_calls');
    assert.equal(usage?.total_tokens, 17);
    assert.equal(calls.length, 2);
    assert.equal(calls[0]?.thought_signature, SIGNATURE);
    assert.equal(lastRequest().url, `${location}/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`);
    const assistant = { role: 'assistant', content: null, tool_calls: calls.map(({ index: _index, ...call }) => ({ ...call, type: 'function' })) };
    const answer = await client.chat.completions.create({
      model: 'gemini-2.5-flash',
      tools,
      messages: [
        { role: 'user', content: 'Weather?' },
        assistant as OpenAI.ChatCompletionAssistantMessageParam,
        { role: 'tool', tool_call_id: calls[0]!.id, content: '{"temperature":19}' },
        { role: 'tool', tool_call_id: calls[1]!.id, content: '{"temperature":12}' },
      ],
    });
    assert.equal(answer.choices[0]?.message.content, 'It is 19 C in Paris.');
  });

  test('embeddings through predict, usage from the token counts', async () => {
    const result = await client.embeddings.create({ model: 'text-embedding-005', input: ['hello', 'hi'], dimensions: 2 });
    assert.deepEqual(result.data.map((item) => item.embedding), [[0, 0.25], [1, 1.25]]);
    assert.deepEqual(result.usage, { prompt_tokens: 7, total_tokens: 7 });
    const seen = lastRequest();
    assert.equal(seen.url, `${location}/publishers/google/models/text-embedding-005:predict`);
    assert.deepEqual(seen.json, { instances: [{ content: 'hello' }, { content: 'hi' }], parameters: { outputDimensionality: 2 } });
  });

  test('rerank through the ranking API: sorted by score with the original indexes', async () => {
    const documents = ['short', 'a much longer document about capitals', 'medium text here'];
    const result = (await client.post('/rerank', { body: { model: 'semantic-ranker-default@latest', query: 'capitals', documents, top_n: 2, return_documents: true } })) as {
      provider: string;
      results: Array<{ index: number; relevance_score: number; document?: { text: string } }>;
    };
    assert.equal(result.provider, 'vertex-ai');
    assert.deepEqual(result.results.map((item) => item.index), [1, 2]);
    assert.equal(result.results[0]?.document?.text, documents[1]);
    const seen = lastRequest();
    assert.equal(seen.url, `/v1/projects/${PROJECT}/locations/global/rankingConfigs/default_ranking_config:rank`);
    assert.deepEqual(seen.json, {
      model: 'semantic-ranker-default@latest',
      query: 'capitals',
      records: documents.map((content, index) => ({ id: String(index), content })),
      ignoreRecordDetailsInResponse: false,
      topN: 2,
    });
  });
});

describe('vertex-ai: Claude', () => {
  test('rawPredict with the Vertex anthropic_version and no model in the body', async () => {
    const answer = await client.chat.completions.create({ model: 'claude-sonnet-4-5@20250929', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100 });
    assert.equal(answer.choices[0]?.message.content, 'Hello from Claude on Vertex');
    assert.equal(answer.choices[0]?.finish_reason, 'stop');
    assert.equal(answer.usage?.prompt_tokens_details?.cached_tokens, 5);
    const seen = lastRequest();
    assert.equal(seen.url, `${location}/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`);
    assert.equal(seen.headers.authorization, `Bearer ${CLIENT_TOKEN}`);
    assert.deepEqual(seen.json, { anthropic_version: 'vertex-2023-10-16', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
  });

  test('streamRawPredict: tool call arguments assembled exactly, usage last', async () => {
    const stream = await client.chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Weather?' }], tools, stream: true, stream_options: { include_usage: true } });
    let args = '';
    let id: string | undefined;
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        id ??= delta.id;
        args += delta.function?.arguments ?? '';
      }
      if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(id, 'toolu_vrtx_01');
    assert.deepEqual(JSON.parse(args), { city: 'Paris' });
    assert.equal(finish, 'tool_calls');
    assert.ok(usage && usage.completion_tokens === 30);
    assert.equal(lastRequest().url, `${location}/publishers/anthropic/models/claude-sonnet-4-5:streamRawPredict`);
  });
});

describe('vertex-ai: credentials and settings', () => {
  const chat = (extra: Record<string, string>) =>
    request(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', ...extra },
      body: JSON.stringify({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] }),
    });

  test('a service account key is exchanged once and the token reused; a token close to expiry is refreshed', async () => {
    tokens.issued.length = 0;
    const key = Buffer.from(JSON.stringify(tokens.serviceAccount)).toString('base64');
    tokens.expiresIn = 30;
    for (const expected of ['ya29.fake-1', 'ya29.fake-2']) {
      const response = await chat({ 'x-gateway-vertex-service-account-json': key });
      assert.equal(response.statusCode, 200, await response.body.text());
      assert.equal(lastRequest().headers.authorization, `Bearer ${expected}`, 'a token with under a minute left is not reused');
    }
    tokens.expiresIn = 3600;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await chat({ 'x-gateway-vertex-service-account-json': JSON.stringify(tokens.serviceAccount) });
      assert.equal(response.statusCode, 200, await response.body.text());
      assert.equal(lastRequest().headers.authorization, 'Bearer ya29.fake-3');
    }
    assert.deepEqual(tokens.issued, ['ya29.fake-1', 'ya29.fake-2', 'ya29.fake-3']);
    assert.equal(tokens.rejected, 0);
  });

  test('a token_uri on a blocked address is refused before any connection', async () => {
    const before = upstream.requests.length;
    const key = JSON.stringify({ ...tokens.serviceAccount, token_uri: 'http://169.254.169.254/token' });
    const response = await chat({ 'x-gateway-vertex-service-account-json': key });
    const body = (await response.body.json()) as { error: { param: string; message: string } };
    assert.equal(response.statusCode, 400);
    assert.equal(body.error.param, 'x-gateway-vertex-service-account-json');
    assert.match(body.error.message, /token_uri is not allowed/);
    assert.equal(upstream.requests.length, before);
  });

  test('a rejected key is a 401 with the token endpoint message', async () => {
    const response = await chat({ 'x-gateway-vertex-service-account-json': JSON.stringify(tokens.otherKey) });
    const body = (await response.body.json()) as { error: { message: string } };
    assert.equal(response.statusCode, 401);
    assert.match(body.error.message, /Invalid JWT Signature/);
  });

  test('a missing project or region is a 400 naming the header', async () => {
    for (const header of ['x-gateway-vertex-project-id', 'x-gateway-vertex-region']) {
      const withoutHeader = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== header));
      const response = await request(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { ...withoutHeader, authorization: `Bearer ${CLIENT_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      const body = (await response.body.json()) as { error: { param: string } };
      assert.equal(response.statusCode, 400);
      assert.equal(body.error.param, header);
    }
  });

  test('a wrong access token: the provider 401 and message come back', async () => {
    const response = await chat({ authorization: 'Bearer ya29.expired' });
    const body = (await response.body.json()) as { error: { message: string; code: string } };
    assert.equal(response.statusCode, 401);
    assert.match(body.error.message, /invalid authentication credentials/);
    assert.equal(body.error.code, 'UNAUTHENTICATED');
  });
});

describe('vertex-ai: the custom host as the bare origin (the reference API form)', () => {
  // https://{region}-aiplatform.googleapis.com is the form the reference API documents: the gateway adds /v1
  const originClient = () =>
    new OpenAI({ apiKey: CLIENT_TOKEN, baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { ...headers, 'x-gateway-custom-host': upstream.origin } });

  test('Gemini chat and stream, Claude, embeddings and rerank reach /v1/projects/...', async () => {
    const bare = originClient();
    const answer = await bare.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(answer.choices[0]?.message.content, 'Hello from Gemini');
    assert.equal(lastRequest().url, `${location}/publishers/google/models/gemini-2.0-flash:generateContent`);

    const stream = await bare.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Hello from Gemini');
    assert.equal(lastRequest().url, `${location}/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse`);

    const claude = await bare.chat.completions.create({ model: 'claude-sonnet-4-5@20250929', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100 });
    assert.equal(claude.choices[0]?.message.content, 'Hello from Claude on Vertex');
    assert.equal(lastRequest().url, `${location}/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`);

    const embeddings = await bare.embeddings.create({ model: 'text-embedding-005', input: 'hello', encoding_format: 'float' });
    assert.equal(embeddings.data.length, 1);
    assert.equal(lastRequest().url, `${location}/publishers/google/models/text-embedding-005:predict`);

    const ranked = (await bare.post('/rerank', { body: { model: 'semantic-ranker-default@latest', query: 'q', documents: ['a', 'bb'] } })) as { results: unknown[] };
    assert.equal(ranked.results.length, 2);
    assert.equal(lastRequest().url, `/v1/projects/${PROJECT}/locations/global/rankingConfigs/default_ranking_config:rank`);
  });
});
