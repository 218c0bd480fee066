/**
 * A Vertex AI custom host in either form: the bare origin (as the reference API takes it,
 * https://{region}-aiplatform.googleapis.com: the gateway adds /v1) or a service root that names a version
 * (/v1, /v1beta1: kept as given). Any other path is a prefix (a proxy) and gets /v1 after it. The project and
 * region still come from the x-gateway-vertex-* headers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inferenceCall } from '../../../test/helpers/provider-cases.ts';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { createVertexAdapter } from './index.ts';

const adapter = createVertexAdapter();
const cloud = { 'vertex-project-id': 'my-project', 'vertex-region': 'us-central1' };
const location = '/projects/my-project/locations/us-central1';
const messages = [{ role: 'user', content: 'Hi' }];

function custom(baseUrl: string): ProviderTarget {
  return { provider: 'vertex-ai', baseUrl, customHost: true, apiKey: 'ya29.token', cloud };
}

function call(route: RouteKind, body: unknown, path = ''): InferenceCall {
  return inferenceCall(route, body, { path });
}

const rankingConfig = 'projects/other-project/locations/global/rankingConfigs/my_config';

function urls(baseUrl: string): string[] {
  const target = custom(baseUrl);
  return [
    adapter.buildRequest(call('chat', { model: 'gemini-2.0-flash', messages }), target).url,
    adapter.buildRequest(call('chat', { model: 'gemini-2.0-flash', messages, stream: true }), target).url,
    adapter.buildRequest(call('chat', { model: 'claude-sonnet-4-5@20250929', messages, max_tokens: 8 }), target).url,
    adapter.buildRequest(call('chat', { model: 'claude-sonnet-4-5@20250929', messages, max_tokens: 8, stream: true }), target).url,
    adapter.buildRequest(call('embeddings', { model: 'text-embedding-005', input: 'a' }), target).url,
    adapter.buildRequest(call('rerank', { model: 'semantic-ranker-default@latest', query: 'q', documents: ['a'] }), target).url,
    adapter.buildRequest(call('rerank', { model: rankingConfig, query: 'q', documents: ['a'] }), target).url,
    adapter.buildRequest(call('passthrough', {}, '/publishers/google/models/gemini-2.0-flash:countTokens'), target).url,
  ];
}

const expected = (root: string) => [
  `${root}${location}/publishers/google/models/gemini-2.0-flash:generateContent`,
  `${root}${location}/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse`,
  `${root}${location}/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`,
  `${root}${location}/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict`,
  `${root}${location}/publishers/google/models/text-embedding-005:predict`,
  `${root}/projects/my-project/locations/global/rankingConfigs/default_ranking_config:rank`,
  `${root}/${rankingConfig}:rank`,
  `${root}${location}/publishers/google/models/gemini-2.0-flash:countTokens`,
];

describe('vertex-ai: custom host forms', () => {
  test('the bare origin gets /v1 (Gemini chat and stream, Claude, embeddings, rerank, pass-through)', () => {
    assert.deepEqual(urls('https://us-central1-aiplatform.googleapis.com'), expected('https://us-central1-aiplatform.googleapis.com/v1'));
    assert.deepEqual(urls('http://127.0.0.1:8080'), expected('http://127.0.0.1:8080/v1'));
  });

  test('a service root that names a version is kept as given', () => {
    for (const root of ['https://us-central1-aiplatform.googleapis.com/v1', 'https://us-central1-aiplatform.googleapis.com/v1beta1', 'https://proxy.example/vertex/v1']) {
      assert.deepEqual(urls(root), expected(root));
    }
  });

  test('any other path is a prefix: the version goes after it', () => {
    assert.deepEqual(urls('https://proxy.example/vertex'), expected('https://proxy.example/vertex/v1'));
  });

  test('without a custom host the URLs come from the cloud headers, as before', () => {
    const target: ProviderTarget = { ...custom(adapter.baseUrlFor!(cloud)), customHost: false };
    assert.equal(
      adapter.buildRequest(call('chat', { model: 'gemini-2.0-flash', messages }), target).url,
      `https://us-central1-aiplatform.googleapis.com/v1${location}/publishers/google/models/gemini-2.0-flash:generateContent`,
    );
    assert.equal(
      adapter.buildRequest(call('rerank', { model: 'semantic-ranker-default@latest', query: 'q', documents: ['a'] }), target).url,
      'https://discoveryengine.googleapis.com/v1/projects/my-project/locations/global/rankingConfigs/default_ranking_config:rank',
    );
  });
});
