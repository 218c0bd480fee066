import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import type { EmbeddingResponse, RerankResponse } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { createVoyageAdapter } from './index.ts';

const adapter = createVoyageAdapter();
const target: ProviderTarget = { provider: 'voyage', baseUrl: 'https://api.voyageai.com/v1', customHost: false, apiKey: 'pa-key', cloud: {} };

interface Fixture {
  request: Record<string, unknown>;
  providerRequest: unknown;
  warnings: string[];
  providerResponse: Record<string, unknown>;
  expected: unknown;
}
const fixture = (name: string): Fixture => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as Fixture;

function call(route: RouteKind, body: unknown, extra: Partial<InferenceCall> = {}): InferenceCall {
  const rawBody = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody, contentType: 'application/json', params: {}, ...extra };
}

describe('voyage: request in -> provider request', () => {
  test('embeddings: output_dimension from dimensions, Voyage fields passed, user warned (fixture)', () => {
    const { request, providerRequest, warnings } = fixture('embeddings.json');
    const built = adapter.buildRequest(call('embeddings', request), target);
    assert.equal(`${built.method} ${built.url}`, 'POST https://api.voyageai.com/v1/embeddings');
    assert.equal(built.headers.authorization, 'Bearer pa-key');
    assert.deepEqual(JSON.parse(String(built.body)), providerRequest);
    assert.deepEqual(built.warnings, warnings);
  });

  test('embeddings: base64 asked of Voyage; token ids are a 400', () => {
    const built = adapter.buildRequest(call('embeddings', { model: 'voyage-3.5', input: 'x', encoding_format: 'base64' }), target);
    assert.deepEqual(JSON.parse(String(built.body)), { input: 'x', model: 'voyage-3.5', encoding_format: 'base64' });
    assert.throws(
      () => adapter.buildRequest(call('embeddings', { model: 'm', input: [[1, 2]] }), target),
      (error: unknown) => error instanceof GatewayError && error.status === 400 && error.param === 'input',
    );
  });

  test('rerank: top_k from top_n, documents as strings, unsupported fields warned (fixture)', () => {
    const { request, providerRequest, warnings } = fixture('rerank.json');
    const built = adapter.buildRequest(call('rerank', request), target);
    assert.equal(built.url, 'https://api.voyageai.com/v1/rerank');
    assert.deepEqual(JSON.parse(String(built.body)), providerRequest);
    assert.deepEqual(built.warnings, warnings);
  });

  test('pass-through keeps method, path, query and the client bytes', () => {
    const rawBody = Buffer.from('{"inputs":[]}');
    const built = adapter.buildRequest(call('passthrough', undefined, { path: '/multimodalembeddings', query: 'x=1', rawBody }), target);
    assert.equal(built.url, 'https://api.voyageai.com/v1/multimodalembeddings?x=1');
    assert.equal(built.body, rawBody);
  });
});

describe('voyage: provider response -> response out', () => {
  test('embeddings (fixture); base64 strings pass as they are', () => {
    const { request, providerResponse, expected } = fixture('embeddings.json');
    const transform = adapter.responseTransform('embeddings')!;
    assert.deepEqual(transform(providerResponse, call('embeddings', request), target), expected);
    const base64 = transform({ ...providerResponse, data: [{ object: 'embedding', embedding: 'AAAAPw==', index: 0 }] }, call('embeddings', request), target) as EmbeddingResponse;
    assert.equal(base64.data[0]?.embedding, 'AAAAPw==');
    assert.throws(() => transform({ detail: 'x' }, call('embeddings', request), target), /no data array/);
  });

  test('rerank: sorted by relevance, documents only when asked (fixture)', () => {
    const { request, providerResponse, expected } = fixture('rerank.json');
    const transform = adapter.responseTransform('rerank')!;
    assert.deepEqual(transform(providerResponse, call('rerank', request), target), expected);
    const bare = transform(providerResponse, call('rerank', { ...request, return_documents: false }), target) as RerankResponse;
    assert.ok(bare.results.every((result) => !('document' in result)));
  });

  test('errors keep Voyage\'s detail', () => {
    assert.deepEqual(adapter.parseError!(401, { detail: 'Provided API key is invalid.' }), { message: 'Provided API key is invalid.' });
    assert.deepEqual(adapter.parseError!(422, { detail: [{ loc: ['body', 'model'], msg: 'field required', type: 'missing' }] }), { message: 'body.model: field required' });
  });
});
