/**
 * Local OpenAI-compatible servers end to end: the custom host given as the bare origin, the form the reference API
 * documents for Ollama (http://localhost:11434), reaches the server's /v1 paths; a base ending in /v1 still works.
 */
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

function client(provider: string, customHost: string): OpenAI {
  return new OpenAI({
    apiKey: 'unused',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': provider, 'x-gateway-custom-host': customHost },
  });
}

test('ollama, lm-studio and vllm: the bare origin reaches /v1/chat/completions, plain and streamed', async () => {
  for (const provider of ['ollama', 'lm-studio', 'vllm']) {
    const local = client(provider, upstream.origin);
    const answer = await local.chat.completions.create({ model: 'llama3', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(answer.object, 'chat.completion');
    assert.equal(upstream.requests.at(-1)?.url, '/v1/chat/completions', provider);
    const stream = await local.chat.completions.create({ model: 'llama3', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let chunks = 0;
    for await (const _chunk of stream) chunks += 1;
    assert.ok(chunks > 0);
    assert.equal(upstream.requests.at(-1)?.url, '/v1/chat/completions', provider);
  }
});

test('ollama: a custom host ending in /v1 is kept as given', async () => {
  await client('ollama', upstream.baseUrl).chat.completions.create({ model: 'llama3', messages: [{ role: 'user', content: 'Hi' }] });
  assert.equal(upstream.requests.at(-1)?.url, '/v1/chat/completions');
});
