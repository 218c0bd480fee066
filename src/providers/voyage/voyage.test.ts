/**
 * The Voyage adapter beyond its fixture pairs (__fixtures__/*.json, replayed by test/providers-contract.test.ts):
 * pass-through bytes, documents only when asked, and answers that are not Voyage answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { fixtureCase } from '../../../test/helpers/provider-fixtures.ts';
import type { RerankResponse } from '../../core/openai-types.ts';
import { createVoyageAdapter } from './index.ts';

const adapter = createVoyageAdapter();
const target = providerTarget('voyage', 'https://api.voyageai.com/v1', { apiKey: 'pa-key' });

test('pass-through keeps method, path, query and the client bytes (the same buffer)', () => {
  const rawBody = Buffer.from('{"inputs":[]}');
  const built = adapter.buildRequest(inferenceCall('passthrough', undefined, { path: '/multimodalembeddings', query: 'x=1', rawBody }), target);
  assert.equal(built.url, 'https://api.voyageai.com/v1/multimodalembeddings?x=1');
  assert.equal(built.body, rawBody);
});

test('an embeddings answer without a data array throws', () => {
  assert.throws(() => adapter.responseTransform('embeddings')!({ detail: 'x' }, inferenceCall('embeddings', { model: 'voyage-3.5', input: 'x' }), target), /no data array/);
});

test('rerank: documents only when asked', () => {
  const pair = fixtureCase('voyage/rerank.json', 'chain: rerank');
  const call = inferenceCall('rerank', { ...(pair.request as object), return_documents: false });
  const bare = adapter.responseTransform('rerank')!(pair.upstreamResponse?.body, call, target) as RerankResponse;
  assert.ok(bare.results.every((result) => !('document' in result)));
});
