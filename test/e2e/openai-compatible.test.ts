/** End to end through the real server with the official openai client, against a fake OpenAI-compatible upstream. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;
let client: OpenAI;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  client = new OpenAI({
    apiKey: 'sk-provider-token',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: {
      'x-gateway-api-key': gateway.adminKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': upstream.baseUrl,
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

describe('chat completions', () => {
  test('non-streaming: answer, headers, body forwarded byte for byte, provider auth converted', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.5 })
      .withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.choices[0]?.message.content, 'Hello world');
    assert.equal(data.usage?.total_tokens, 7);
    assert.equal(response.headers.get('x-gateway-provider'), 'openai');
    assert.match(response.headers.get('x-gateway-trace-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(response.headers.get('x-gateway-cache-status'), 'DISABLED');
    assert.equal(response.headers.get('x-gateway-retry-attempt-count'), '0');
    assert.equal(response.headers.get('x-request-id'), 'req_fake', 'safe upstream headers pass');
    assert.equal(response.headers.get('set-cookie'), null, 'upstream cookies are dropped');
    const seen = lastRequest();
    assert.equal(seen.url, '/v1/chat/completions');
    assert.equal(seen.headers.authorization, 'Bearer sk-provider-token');
    assert.equal(seen.headers['x-gateway-api-key'], undefined, 'the gateway key never reaches the provider');
    assert.deepEqual(seen.json, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.5 });
  });

  test('unknown extra fields reach the provider untouched', async () => {
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      // @ts-expect-error a provider-specific field the OpenAI types do not know
      vendor_option: { nested: [1, 2, 3] },
    });
    assert.deepEqual((lastRequest().json as Record<string, unknown>).vendor_option, { nested: [1, 2, 3] });
  });

  test('streaming: chunks relayed in order, usage in the last chunk, ends with [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const part of stream) {
      text += part.choices[0]?.delta.content ?? '';
      if (part.usage) usage = part.usage;
    }
    assert.equal(text, 'Hello world');
    assert.equal(usage?.total_tokens, 7);
  });

  test('a stream without [DONE] from the provider still ends with [DONE]', async () => {
    const response = await request(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': gateway.adminKey,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': upstream.baseUrl,
      },
      body: JSON.stringify({ model: 'nodone', messages: [{ role: 'user', content: 'Hi' }], stream: true }),
    });
    const text = await response.body.text();
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /text\/event-stream/);
    assert.ok(text.trimEnd().endsWith('data: [DONE]'), text);
    assert.equal(text.match(/\[DONE\]/g)?.length, 1);
  });

  test('a stream that breaks mid-way ends with an error event', async () => {
    const response = await request(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': gateway.adminKey,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': upstream.baseUrl,
      },
      body: JSON.stringify({ model: 'break', messages: [{ role: 'user', content: 'Hi' }], stream: true }),
    });
    const text = await response.body.text();
    assert.match(text, /"Hel"/);
    assert.match(text, /data: \{"error":\{"message":"The stream from \\"openai\\" broke/);
  });

  test('provider errors keep the provider status and message', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'error-429', messages: [{ role: 'user', content: 'Hi' }] }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError);
        assert.equal(error.status, 429);
        assert.match(error.message, /fake upstream error 429/);
        return true;
      },
    );
  });

  test('a provider answering garbage is a 502', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'garbage', messages: [{ role: 'user', content: 'Hi' }] }),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 502,
    );
  });
});

describe('other built-in routes', () => {
  test('text completions, plain and streamed', async () => {
    const completion = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' });
    assert.equal(completion.object, 'text_completion');
    assert.equal(completion.choices[0]?.text, 'Hello world');
    const stream = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi', stream: true });
    let text = '';
    for await (const part of stream) text += part.choices[0]?.text ?? '';
    assert.equal(text, 'Hello world');
  });

  test('embeddings', async () => {
    const result = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float' });
    assert.equal(result.data.length, 2);
    assert.deepEqual(result.data[1]?.embedding, [0.2, 0.2, 0.3]);
    assert.equal(lastRequest().url, '/v1/embeddings');
  });

  test('models: the integrated catalog without a provider signal', async () => {
    const catalog = new OpenAI({ apiKey: 'unused', baseURL: gateway.baseURL, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey } });
    const before = upstream.requests.length;
    const page = await catalog.models.list();
    assert.ok(page.data.length >= 50);
    assert.ok(page.data.some((model) => model.id === 'gpt-4o-mini'));
    assert.equal(upstream.requests.length, before, 'the catalog does not call any provider');
  });

  test('models: proxied upstream with a provider signal, catalog again when forced', async () => {
    const page = await client.models.list();
    assert.deepEqual(page.data.map((model) => model.id), ['upstream-model-1']);
    assert.equal(lastRequest().url, '/v1/models');
    const forced = await client.models.list({ headers: { 'x-gateway-fetch-integrated-models': 'true' } });
    assert.ok(forced.data.length >= 50);
  });

  test('rerank: the provider answer normalised, sorted by relevance, documents returned', async () => {
    const jina = new OpenAI({
      apiKey: 'jina-token',
      baseURL: gateway.baseURL,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'jina', 'x-gateway-custom-host': upstream.baseUrl },
    });
    const result = (await jina.post('/rerank', {
      body: { model: 'jina-reranker-v2-base-multilingual', query: 'q', documents: ['a', { text: 'b' }, 'c'], top_n: 3, return_documents: true },
    })) as { object: string; provider: string; model: string; results: Array<{ index: number; relevance_score: number; document?: { text: string } }> };
    assert.equal(result.object, 'list');
    assert.equal(result.provider, 'jina');
    assert.deepEqual(result.results.map((item) => item.index), [2, 1, 0]);
    assert.equal(result.results[0]?.document?.text, 'c');
    assert.equal(lastRequest().headers.authorization, 'Bearer jina-token');
  });

  test('responses: create, retrieve, delete, list input items with the query forwarded', async () => {
    const created = await client.responses.create({ model: 'gpt-4o-mini', input: 'Hi' });
    assert.equal(created.id, 'resp_fake');
    const fetched = await client.responses.retrieve('resp_fake');
    assert.equal(fetched.id, 'resp_fake');
    assert.equal(lastRequest().url, '/v1/responses/resp_fake');
    await client.responses.delete('resp_fake');
    assert.equal(lastRequest().method, 'DELETE');
    const items = await client.responses.inputItems.list('resp_fake', { limit: 5, order: 'desc' });
    assert.equal(items.data[0]?.id, 'msg_in_1');
    assert.equal(lastRequest().url, '/v1/responses/resp_fake/input_items?limit=5&order=desc');
  });

  test('input items: limit outside 1..100 and a bad order are 400s naming the parameter', async () => {
    for (const [query, param] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['order=sideways', 'order']] as const) {
      const response = await request(`${gateway.baseURL}/responses/resp_fake/input_items?${query}`, {
        headers: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl },
      });
      const body = (await response.body.json()) as { error: { param: string } };
      assert.equal(response.statusCode, 400);
      assert.equal(body.error.param, param);
    }
  });
});

describe('pass-through', () => {
  const headers = () => ({
    'x-gateway-api-key': gateway.adminKey,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': upstream.baseUrl,
    authorization: 'Bearer sk-provider-token',
  });

  test('any other /v1 path is forwarded with method, query and body, and answered exactly as received', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{"purpose":"batch"}';
      // /v1/files is a built-in route (files-batches); /v1/assistants is still a pass-through path
      const response = await request(`${gateway.baseURL}/assistants/asst-123?x=1&y=two`, {
        method,
        headers: { ...headers(), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body } : {}),
      });
      const echoed = (await response.body.json()) as Record<string, unknown>;
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-upstream-echo'], '1');
      assert.deepEqual(echoed, { echo: true, method, path: '/v1/assistants/asst-123', query: '?x=1&y=two', body: body ?? '' });
    }
  });

  test('a non-JSON body passes through byte for byte', async () => {
    const payload = Buffer.from('--boundary\r\ncontent-disposition: form-data; name="file"\r\n\r\n\x00\x01binary\r\n--boundary--');
    const response = await request(`${gateway.baseURL}/audio/transcriptions`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'multipart/form-data; boundary=boundary' },
      body: payload,
    });
    await response.body.json();
    const seen = lastRequest();
    assert.equal(seen.headers['content-type'], 'multipart/form-data; boundary=boundary');
    assert.equal(Buffer.from(seen.body, 'utf8').equals(Buffer.from(payload.toString('utf8'), 'utf8')), true);
  });

  test('/v1/proxy/ sends a built-in route through untouched, without validation', async () => {
    const invalid = '{"model":"m","messages":[],"temperature":9}';
    const response = await request(`${gateway.baseURL}/proxy/chat/completions`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/json' },
      body: invalid,
    });
    assert.equal(response.statusCode, 200);
    await response.body.json();
    assert.equal(lastRequest().url, '/v1/chat/completions');
    assert.equal(lastRequest().body, invalid);
  });

  test('no provider selected is a 400 naming x-gateway-provider', async () => {
    const response = await request(`${gateway.baseURL}/files`, { headers: { 'x-gateway-api-key': gateway.adminKey } });
    const body = (await response.body.json()) as { error: { param: string } };
    assert.equal(response.statusCode, 400);
    assert.equal(body.error.param, 'x-gateway-provider');
  });
});
