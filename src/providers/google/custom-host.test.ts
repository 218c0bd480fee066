/**
 * A Gemini custom host in either form: the bare origin (as the reference API takes it,
 * https://generativelanguage.googleapis.com: the gateway adds /v1beta) or a base that already names a version
 * (/v1beta, /v1, /v1alpha: kept as given). Any other path is a prefix (a proxy) and gets /v1beta after it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inferenceCall } from '../../../test/helpers/provider-cases.ts';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { createGoogleAdapter } from './index.ts';

const adapter = createGoogleAdapter();
const chat = { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] };

function custom(baseUrl: string): ProviderTarget {
  return { provider: 'google', baseUrl, customHost: true, apiKey: 'AIza-test', cloud: {} };
}

function call(route: RouteKind, body: unknown, path = ''): InferenceCall {
  return inferenceCall(route, body, { path });
}

function urls(baseUrl: string): string[] {
  const target = custom(baseUrl);
  return [
    adapter.buildRequest(call('chat', chat), target).url,
    adapter.buildRequest(call('chat', { ...chat, stream: true }), target).url,
    adapter.buildRequest(call('embeddings', { model: 'gemini-embedding-001', input: 'a' }), target).url,
    adapter.buildRequest(call('passthrough', {}, '/models/gemini-2.0-flash:countTokens'), target).url,
  ];
}

const expected = (base: string) => [
  `${base}/models/gemini-2.0-flash:generateContent`,
  `${base}/models/gemini-2.0-flash:streamGenerateContent?alt=sse`,
  `${base}/models/gemini-embedding-001:batchEmbedContents`,
  `${base}/models/gemini-2.0-flash:countTokens`,
];

describe('google: custom host forms', () => {
  test('the bare origin gets /v1beta (chat, stream, embeddings, pass-through)', () => {
    assert.deepEqual(urls('https://generativelanguage.googleapis.com'), expected('https://generativelanguage.googleapis.com/v1beta'));
    assert.deepEqual(urls('http://127.0.0.1:8080'), expected('http://127.0.0.1:8080/v1beta'));
  });

  test('a base that names a version is kept as given', () => {
    for (const base of ['https://generativelanguage.googleapis.com/v1beta', 'https://generativelanguage.googleapis.com/v1', 'https://proxy.example/google/v1alpha']) {
      assert.deepEqual(urls(base), expected(base));
    }
  });

  test('any other path is a prefix: the version goes after it', () => {
    assert.deepEqual(urls('https://proxy.example/google'), expected('https://proxy.example/google/v1beta'));
    // a segment that only looks like a version (v1beta-proxy, version1) is a prefix too
    assert.deepEqual(urls('https://proxy.example/v1beta-proxy'), expected('https://proxy.example/v1beta-proxy/v1beta'));
  });

  test('without a custom host the default base URL is used as it is', () => {
    const target: ProviderTarget = { ...custom(adapter.defaultBaseUrl!), customHost: false };
    assert.equal(adapter.buildRequest(call('chat', chat), target).url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent');
  });
});
