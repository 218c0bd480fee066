/**
 * The Azure AI model inference adapter beyond its fixture pairs (__fixtures__/*.json, replayed by
 * test/providers-contract.test.ts): chat bytes kept (the same buffer), documents only when asked, rerank answers
 * that are not rerank answers, and the capabilities.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { fixtureCase } from '../../../test/helpers/provider-fixtures.ts';
import { azureAiInferenceAdapter as adapter } from './index.ts';

const target = providerTarget('azure-ai-inference', 'https://contoso.services.ai.azure.com/models', { apiKey: 'foundry-key' });

test('chat bodies pass untouched', () => {
  const input = inferenceCall('chat', { model: 'mistral-large-2407', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(adapter.buildRequest(input, target).body, input.rawBody);
});

test('rerank: documents are left out unless asked for; a garbage answer throws', () => {
  const pair = fixtureCase('azure-ai-inference/rerank.json', 'chain: rerank on the Cohere provider route');
  const plain = inferenceCall('rerank', { ...(pair.request as object), return_documents: false });
  const out = adapter.responseTransform('rerank')!(pair.upstreamResponse?.body, plain, target) as { results: object[] };
  assert.ok(out.results.every((result) => !('document' in result)));
  assert.throws(() => adapter.responseTransform('rerank')!({ ranking: [] }, inferenceCall('rerank', pair.request), target));
});

test('capabilities: chat, embeddings, rerank and pass-through; no text completions', () => {
  assert.deepEqual([...adapter.capabilities.routes].sort(), ['chat', 'embeddings', 'passthrough', 'rerank']);
  assert.equal(adapter.defaultBaseUrl, undefined);
});
