import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { createProviderRegistry } from '../registry.ts';
import { authHeaders } from '../shared/auth-headers.ts';
import { normaliseRerank } from './rerank.ts';

const registry = createProviderRegistry();

function call(route: RouteKind, extra: Partial<InferenceCall> = {}): InferenceCall {
  const rawBody = Buffer.from('{"model":"m","messages":[{"role":"user","content":"hi"}],"x_extra":1}');
  return { route, method: 'POST', path: '', query: '', body: JSON.parse(rawBody.toString()), strictReferenceCompliance: true, rawBody, contentType: 'application/json', params: {}, ...extra };
}

function target(provider: string, baseUrl: string): ProviderTarget {
  return { provider, baseUrl, customHost: false, apiKey: 'sk-test', cloud: {} };
}

describe('OpenAI-compatible base adapter: request in -> provider request', () => {
  const cases: Array<[string, InferenceCall, string, string]> = [
    ['groq', call('chat'), 'https://api.groq.com/openai/v1', 'POST https://api.groq.com/openai/v1/chat/completions'],
    ['openai', call('completions'), 'https://api.openai.com/v1', 'POST https://api.openai.com/v1/completions'],
    ['mistral-ai', call('embeddings'), 'https://api.mistral.ai/v1', 'POST https://api.mistral.ai/v1/embeddings'],
    ['jina', call('rerank'), 'https://api.jina.ai/v1', 'POST https://api.jina.ai/v1/rerank'],
    ['openai', call('models', { method: 'GET', rawBody: undefined }), 'https://api.openai.com/v1', 'GET https://api.openai.com/v1/models'],
    ['openai', call('responses.input_items', { method: 'GET', rawBody: undefined, query: 'limit=5&order=desc', params: { response_id: 'resp/1' } }), 'https://api.openai.com/v1', 'GET https://api.openai.com/v1/responses/resp%2F1/input_items?limit=5&order=desc'],
    ['openai', call('passthrough', { method: 'PUT', path: '/files/f-1', query: 'a=1' }), 'https://api.openai.com/v1', 'PUT https://api.openai.com/v1/files/f-1?a=1'],
  ];
  for (const [provider, input, baseUrl, expected] of cases) {
    test(`${provider} ${input.route} -> ${expected}`, () => {
      const adapter = registry.get(provider)!;
      const built = adapter.buildRequest(input, target(provider, baseUrl));
      assert.equal(`${built.method} ${built.url}`, expected);
      assert.equal(built.headers.authorization, 'Bearer sk-test');
      if (input.rawBody) {
        assert.equal(built.body, input.rawBody, 'the client bytes are forwarded as the same buffer, not re-serialised');
        assert.equal(built.headers['content-type'], 'application/json');
      } else {
        assert.equal(built.body, undefined);
        assert.equal(built.headers['content-type'], undefined);
      }
      assert.deepEqual(built.warnings, []);
    });
  }

  test('the gateway flag strict_reference_compliance is removed from the body, and only it', () => {
    const rawBody = Buffer.from('{"model":"m","messages":[],"strict_reference_compliance":false,"x":1}');
    const built = registry.get('openai')!.buildRequest(call('chat', { rawBody, body: JSON.parse(rawBody.toString()) }), target('openai', 'https://a'));
    assert.deepEqual(JSON.parse(String(built.body)), { model: 'm', messages: [], x: 1 });
  });

  test('vendor deviations are data: unsupported parameters dropped with a warning, renamed ones renamed', () => {
    const groqBody = { model: 'm', messages: [], logprobs: true, top_logprobs: 2, temperature: 1 };
    const groq = registry.get('groq')!.buildRequest(call('chat', { body: groqBody, rawBody: Buffer.from(JSON.stringify(groqBody)) }), target('groq', 'https://g'));
    assert.deepEqual(JSON.parse(String(groq.body)), { model: 'm', messages: [], temperature: 1 });
    assert.deepEqual(groq.warnings, ['groq does not support logprobs: dropped', 'groq does not support top_logprobs: dropped']);
    const mistralBody = { model: 'm', messages: [], seed: 7 };
    const mistral = registry.get('mistral-ai')!.buildRequest(call('chat', { body: mistralBody, rawBody: Buffer.from(JSON.stringify(mistralBody)) }), target('mistral-ai', 'https://m'));
    assert.deepEqual(JSON.parse(String(mistral.body)), { model: 'm', messages: [], random_seed: 7 });
    const plain = call('chat');
    assert.equal(registry.get('groq')!.buildRequest(plain, target('groq', 'https://g')).body, plain.rawBody, 'nothing to change: the same bytes');
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

describe('provider response -> response out', () => {
  test('Jina-style rerank answer is normalised and sorted (fixture pair)', () => {
    const fixture = JSON.parse(readFileSync(new URL('./__fixtures__/rerank-jina.json', import.meta.url), 'utf8'));
    const input = call('rerank', { body: fixture.call, rawBody: Buffer.from(JSON.stringify(fixture.call)) });
    assert.deepEqual(normaliseRerank(fixture.providerResponse, input, target('jina', 'https://api.jina.ai/v1')), fixture.expected);
  });

  test('documents are left out unless return_documents is true; a bad answer throws', () => {
    const fixture = JSON.parse(readFileSync(new URL('./__fixtures__/rerank-jina.json', import.meta.url), 'utf8'));
    const body = { ...fixture.call, return_documents: false };
    const out = normaliseRerank(fixture.providerResponse, call('rerank', { body }), target('jina', 'x')) as { results: Array<Record<string, unknown>> };
    assert.ok(out.results.every((result) => !('document' in result)));
    assert.throws(() => normaliseRerank({ nope: true }, call('rerank'), target('jina', 'x')), /no results array/);
  });
});
