import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { createPineconeAdapter, PINECONE_API_VERSION } from './index.ts';

const adapter = createPineconeAdapter();
const target: ProviderTarget = { provider: 'pinecone', baseUrl: 'https://api.pinecone.io', customHost: false, apiKey: 'pc-key', cloud: {} };

interface RerankFixture {
  request: Record<string, unknown>;
  providerRequest: unknown;
  warnings: string[];
  providerResponse: Record<string, unknown>;
  expected: unknown;
}
const fixture = JSON.parse(readFileSync(new URL('./__fixtures__/rerank.json', import.meta.url), 'utf8')) as RerankFixture;

function call(route: RouteKind, body: unknown, extra: Partial<InferenceCall> = {}): InferenceCall {
  const rawBody = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody, contentType: 'application/json', params: {}, ...extra };
}

describe('pinecone: request in -> provider request', () => {
  test('rerank: Api-Key and version headers, documents as objects, truncate parameter, unsupported fields warned (fixture)', () => {
    const built = adapter.buildRequest(call('rerank', fixture.request), target);
    assert.equal(`${built.method} ${built.url}`, 'POST https://api.pinecone.io/rerank');
    assert.equal(built.headers['api-key'], 'pc-key');
    assert.equal(built.headers['x-pinecone-api-version'], PINECONE_API_VERSION);
    assert.equal(built.headers.authorization, undefined, 'Pinecone does not read a Bearer token');
    assert.deepEqual(JSON.parse(String(built.body)), fixture.providerRequest);
    assert.deepEqual(built.warnings, fixture.warnings);
  });

  test('rerank: documents are not asked for unless wanted; truncation false is NONE; an explicit truncate wins', () => {
    const plain = JSON.parse(String(adapter.buildRequest(call('rerank', { model: 'm', query: 'q', documents: ['a'], truncation: false }), target).body));
    assert.deepEqual(plain, { model: 'm', query: 'q', documents: [{ text: 'a' }], return_documents: false, parameters: { truncate: 'NONE' } });
    const explicit = JSON.parse(String(adapter.buildRequest(call('rerank', { model: 'm', query: 'q', documents: ['a'], truncation: true, parameters: { truncate: 'NONE' } }), target).body));
    assert.deepEqual(explicit.parameters, { truncate: 'NONE' });
  });

  test('pass-through keeps the Pinecone headers', () => {
    const built = adapter.buildRequest(call('passthrough', undefined, { method: 'GET', path: '/models', query: 'type=rerank' }), target);
    assert.equal(built.url, 'https://api.pinecone.io/models?type=rerank');
    assert.equal(built.headers['api-key'], 'pc-key');
    assert.equal(built.headers['x-pinecone-api-version'], PINECONE_API_VERSION);
    assert.equal(built.body, undefined);
  });
});

describe('pinecone: provider response -> response out', () => {
  test('rerank: score -> relevance_score, sorted, rerank units as search units (fixture)', () => {
    const transform = adapter.responseTransform('rerank')!;
    assert.deepEqual(transform(fixture.providerResponse, call('rerank', fixture.request), target), fixture.expected);
  });

  test('rerank: no documents unless asked; an answer without data throws', () => {
    const transform = adapter.responseTransform('rerank')!;
    const bare = transform(fixture.providerResponse, call('rerank', { ...fixture.request, return_documents: false }), target) as { results: object[] };
    assert.ok(bare.results.every((result) => !('document' in result)));
    assert.throws(() => transform({ results: [] }, call('rerank', fixture.request), target), /no data array/);
  });

  test('errors keep Pinecone\'s message and code', () => {
    assert.deepEqual(adapter.parseError!(400, { error: { code: 'INVALID_ARGUMENT', message: 'Model "x" not found.' }, status: 400 }), {
      message: 'Model "x" not found.',
      code: 'INVALID_ARGUMENT',
    });
  });
});
