/**
 * A Cohere custom host is the origin (as Cohere's own SDKs take it: https://api.cohere.com), optionally with a proxy
 * prefix: each route names its version (/v2/chat) and pass-through paths carry theirs (/v1/tokenize). A base that
 * ends in a version, the form the reference API documents (https://api.cohere.ai/v1), has that segment dropped
 * instead of producing /v1/v2/chat.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inferenceCall } from '../../../test/helpers/provider-cases.ts';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { createCohereAdapter } from './index.ts';

const adapter = createCohereAdapter();

function call(route: RouteKind, body: unknown, path = ''): InferenceCall {
  return inferenceCall(route, body, { path });
}

function urls(baseUrl: string): string[] {
  const target: ProviderTarget = { provider: 'cohere', baseUrl, customHost: true, apiKey: 'co-key', cloud: {} };
  return [
    adapter.buildRequest(call('chat', { model: 'command-a-03-2025', messages: [{ role: 'user', content: 'Hi' }] }), target).url,
    adapter.buildRequest(call('embeddings', { model: 'embed-v4.0', input: 'a' }), target).url,
    adapter.buildRequest(call('rerank', { model: 'rerank-v3.5', query: 'q', documents: ['a'] }), target).url,
    adapter.buildRequest(call('passthrough', {}, '/v1/tokenize'), target).url,
  ];
}

const expected = (origin: string) => [`${origin}/v2/chat`, `${origin}/v2/embed`, `${origin}/v2/rerank`, `${origin}/v1/tokenize`];

test('cohere: the origin or a prefix is used as given', () => {
  assert.deepEqual(urls('https://api.cohere.com'), expected('https://api.cohere.com'));
  assert.deepEqual(urls('https://proxy.example/cohere'), expected('https://proxy.example/cohere'));
});

test('cohere: a trailing version segment (/v1, /v2) is dropped: the routes name their own', () => {
  assert.deepEqual(urls('https://api.cohere.ai/v1'), expected('https://api.cohere.ai'));
  assert.deepEqual(urls('https://proxy.example/cohere/v2'), expected('https://proxy.example/cohere'));
});
