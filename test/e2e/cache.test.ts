/** The response cache end to end: hits, namespaces, force refresh, streams served from and stored into the cache. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

function client(extra: Record<string, string> = {}, config: unknown = { provider: 'openai', custom_host: upstream.baseUrl, cache: { mode: 'simple', max_age: 60 } }) {
  return new OpenAI({
    apiKey: 'sk-x',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': JSON.stringify(config), ...extra },
  });
}

const ask = (content: string, extra: Record<string, string> = {}) =>
  client(extra).chat.completions.create({ model: 'cached-model', messages: [{ role: 'user', content }] }).withResponse();

test('the same request twice: the second is a HIT and reaches no provider', async () => {
  const since = upstream.requests.length;
  const first = await ask('cache me');
  assert.equal(first.response.headers.get('x-gateway-cache-status'), 'MISS');
  const second = await ask('cache me');
  assert.equal(second.response.headers.get('x-gateway-cache-status'), 'HIT');
  assert.deepEqual(second.data, first.data);
  assert.equal(upstream.requests.length - since, 1);
});

test('namespaces partition the cache; force refresh calls the provider and stores the new answer', async () => {
  await ask('namespaced');
  const since = upstream.requests.length;
  const other = await ask('namespaced', { 'x-gateway-cache-namespace': 'team-b' });
  assert.equal(other.response.headers.get('x-gateway-cache-status'), 'MISS');
  const refreshed = await ask('namespaced', { 'x-gateway-cache-force-refresh': 'true' });
  assert.equal(refreshed.response.headers.get('x-gateway-cache-status'), 'REFRESH');
  assert.equal(upstream.requests.length - since, 2);
  assert.equal((await ask('namespaced')).response.headers.get('x-gateway-cache-status'), 'HIT');
});

test('a streaming request is served from a stored answer as a replayed stream', async () => {
  await ask('stream me later');
  const since = upstream.requests.length;
  const stream = await client().chat.completions.create({ model: 'cached-model', messages: [{ role: 'user', content: 'stream me later' }], stream: true, stream_options: { include_usage: true } });
  let text = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const part of stream) {
    text += part.choices[0]?.delta.content ?? '';
    if (part.usage) usage = part.usage;
  }
  assert.equal(text, 'Hello world');
  assert.equal(usage?.total_tokens, 7);
  assert.equal(upstream.requests.length, since, 'no provider call');
});

test('a streamed answer is stored and then serves a non-streaming request', async () => {
  const stream = await client().chat.completions.create({ model: 'cached-model', messages: [{ role: 'user', content: 'first as a stream' }], stream: true });
  for await (const _part of stream) {
    // drain
  }
  const since = upstream.requests.length;
  const { data, response } = await ask('first as a stream');
  assert.equal(response.headers.get('x-gateway-cache-status'), 'HIT');
  assert.equal(data.choices[0]?.message.content, 'Hello world');
  assert.equal(upstream.requests.length, since);
});

test('errors are never cached', async () => {
  const config = { provider: 'openai', custom_host: upstream.baseUrl, cache: { mode: 'simple' }, override_params: { model: 'error-503' } };
  const since = upstream.requests.length;
  for (let i = 0; i < 2; i += 1) {
    await assert.rejects(client({}, config).chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'fail' }] }));
  }
  assert.equal(upstream.requests.length - since, 2);
});

test('without a cache setting the status is DISABLED', async () => {
  const plain = client({}, { provider: 'openai', custom_host: upstream.baseUrl });
  const { response } = await plain.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  assert.equal(response.headers.get('x-gateway-cache-status'), 'DISABLED');
});
