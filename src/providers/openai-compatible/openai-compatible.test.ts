/**
 * The OpenAI-compatible base beyond its fixture pairs (__fixtures__/*.json, replayed by
 * test/providers-contract.test.ts): the client's bytes forwarded as the same buffer when nothing changes, the auth
 * header styles, local servers without a default endpoint, and rerank answers that are not rerank answers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { fixtureCase } from '../../../test/helpers/provider-fixtures.ts';
import { createProviderRegistry } from '../registry.ts';
import { authHeaders } from '../shared/auth-headers.ts';
import { normaliseRerank } from './rerank.ts';

const registry = createProviderRegistry();
const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }], x_extra: 1 };

describe('OpenAI-compatible base adapter', () => {
  test('the client bytes are forwarded as the same buffer, not re-serialised, when nothing changes', () => {
    for (const provider of ['openai', 'groq', 'mistral-ai']) {
      const input = inferenceCall('chat', chat);
      const built = registry.get(provider)!.buildRequest(input, providerTarget(provider, 'https://example.test/v1', { apiKey: 'sk-test' }));
      assert.equal(built.body, input.rawBody, provider);
    }
  });

  test('auth styles', () => {
    assert.deepEqual(authHeaders('bearer', 't'), { authorization: 'Bearer t' });
    assert.deepEqual(authHeaders('api-key', 't'), { 'api-key': 't' });
    assert.deepEqual(authHeaders('x-api-key', 't'), { 'x-api-key': 't' });
    assert.deepEqual(authHeaders('bearer', undefined), {});
  });

  test('local servers declare no default base URL', () => {
    for (const name of ['ollama', 'lm-studio', 'vllm']) assert.equal(registry.get(name)?.defaultBaseUrl, undefined);
  });
});

test('rerank: documents are left out unless return_documents is true; a bad answer throws', () => {
  const pair = fixtureCase('openai-compatible/rerank-jina.json', 'answer: jina rerank normalised and sorted');
  const target = providerTarget('jina', 'https://api.jina.ai/v1');
  const out = normaliseRerank(pair.upstreamResponse?.body, inferenceCall('rerank', { ...(pair.request as object), return_documents: false }), target) as {
    results: Array<Record<string, unknown>>;
  };
  assert.ok(out.results.every((result) => !('document' in result)));
  assert.throws(() => normaliseRerank({ nope: true }, inferenceCall('rerank', chat), target), /no results array/);
});
