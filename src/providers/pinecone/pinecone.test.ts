/**
 * The Pinecone adapter beyond its fixture pairs (__fixtures__/rerank.json, replayed by
 * test/providers-contract.test.ts): documents only when asked, and answers that are not Pinecone answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { fixtureCase } from '../../../test/helpers/provider-fixtures.ts';
import { createPineconeAdapter } from './index.ts';

const adapter = createPineconeAdapter();
const target = providerTarget('pinecone', 'https://api.pinecone.io', { apiKey: 'pc-key' });

test('rerank: no documents unless asked; an answer without data throws', () => {
  const pair = fixtureCase('pinecone/rerank.json', 'chain: rerank');
  const transform = adapter.responseTransform('rerank')!;
  const bare = transform(pair.upstreamResponse?.body, inferenceCall('rerank', { ...(pair.request as object), return_documents: false }), target) as { results: object[] };
  assert.ok(bare.results.every((result) => !('document' in result)));
  assert.throws(() => transform({ results: [] }, inferenceCall('rerank', pair.request), target), /no data array/);
});
