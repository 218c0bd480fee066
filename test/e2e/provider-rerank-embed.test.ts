/**
 * Voyage AI (embeddings, rerank) and Pinecone (rerank) end to end: the real gateway and the official openai client
 * against fake provider APIs that check what they receive.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { FakeUpstream } from '../fakes/json-upstream.ts';
import { PINECONE_TEST_KEY, startFakePinecone } from '../fakes/pinecone-upstream.ts';
import { VOYAGE_TEST_KEY, startFakeVoyage } from '../fakes/voyage-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

interface Rerank {
  object: string;
  provider: string;
  model: string;
  results: Array<{ index: number; relevance_score: number; document?: Record<string, unknown> }>;
  usage?: { search_units?: number; total_tokens?: number };
}

let gateway: TestGateway;
let voyageUpstream: FakeUpstream;
let pineconeUpstream: FakeUpstream;
let voyage: OpenAI;
let pinecone: OpenAI;

function clientFor(provider: string, apiKey: string, upstream: FakeUpstream): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': provider, 'x-gateway-custom-host': upstream.baseUrl },
  });
}

before(async () => {
  voyageUpstream = await startFakeVoyage();
  pineconeUpstream = await startFakePinecone();
  gateway = await startTestGateway();
  voyage = clientFor('voyage', VOYAGE_TEST_KEY, voyageUpstream);
  pinecone = clientFor('pinecone', PINECONE_TEST_KEY, pineconeUpstream);
});

after(async () => {
  await gateway.close();
  await voyageUpstream.close();
  await pineconeUpstream.close();
});

function lastRequest(upstream: FakeUpstream) {
  const last = upstream.requests.at(-1);
  assert.ok(last, 'the fake provider received a request');
  return last;
}

const DOCUMENTS = ['Paris is in France.', { text: 'Rome is the capital of Italy.', lang: 'en' }, 'Italy borders France.'];

describe('voyage', () => {
  test('embeddings: the openai client\'s default base64 round-trips Voyage\'s base64; dimensions -> output_dimension; usage', async () => {
    const { data, response } = await voyage.embeddings.create({ model: 'voyage-3.5', input: ['alpha', 'beta'], dimensions: 512, user: 'u-1' }).withResponse();
    assert.deepEqual(data.data.map((item) => item.embedding), [[0.25, -0.5, 1], [0.5, -0.5, 1]]);
    assert.deepEqual(data.usage, { prompt_tokens: 8, total_tokens: 8 });
    assert.equal(data.model, 'voyage-3.5');
    assert.equal(response.headers.get('x-gateway-provider'), 'voyage');
    assert.equal(response.headers.get('x-gateway-warnings'), 'voyage: user not supported; dropped');
    const seen = lastRequest(voyageUpstream);
    assert.equal(seen.url, '/v1/embeddings');
    assert.deepEqual(seen.json, { input: ['alpha', 'beta'], model: 'voyage-3.5', output_dimension: 512, encoding_format: 'base64' });
  });

  test('embeddings: float format and Voyage\'s input_type', async () => {
    const result = await voyage.embeddings.create({
      model: 'voyage-3.5',
      input: 'alpha',
      encoding_format: 'float',
      // @ts-expect-error Voyage's input_type is not an OpenAI field
      input_type: 'query',
    });
    assert.deepEqual(result.data[0]?.embedding, [0.25, -0.5, 1]);
    assert.deepEqual(lastRequest(voyageUpstream).json, { input: 'alpha', model: 'voyage-3.5', input_type: 'query' });
  });

  test('rerank: top_k from top_n, documents as strings and returned, sorted, unsupported fields warned', async () => {
    const { data, response } = await voyage
      .post<Rerank>('/rerank', { body: { model: 'rerank-2.5', query: 'capital of Italy', documents: DOCUMENTS, top_n: 2, return_documents: true, truncation: true, priority: 1 } })
      .withResponse();
    assert.equal(data.object, 'list');
    assert.equal(data.provider, 'voyage');
    assert.deepEqual(data.results, [
      { index: 2, relevance_score: 0.75, document: { text: 'Italy borders France.' } },
      { index: 1, relevance_score: 0.5, document: { text: 'Rome is the capital of Italy.' } },
    ]);
    assert.deepEqual(data.usage, { total_tokens: 37 });
    assert.equal(
      response.headers.get('x-gateway-warnings'),
      'voyage: document fields other than text not supported (Voyage ranks plain text); dropped; voyage: priority not supported; dropped',
    );
    assert.deepEqual(lastRequest(voyageUpstream).json, {
      query: 'capital of Italy',
      documents: ['Paris is in France.', 'Rome is the capital of Italy.', 'Italy borders France.'],
      model: 'rerank-2.5',
      top_k: 2,
      return_documents: true,
      truncation: true,
    });
  });

  test('errors keep Voyage\'s detail and status', async () => {
    await assert.rejects(voyage.embeddings.create({ model: 'error-401', input: 'x' }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 401);
      assert.match(error.message, /fake error 401/);
      return true;
    });
  });
});

describe('pinecone', () => {
  test('rerank: Api-Key and version headers, documents as objects, truncate parameter, score -> relevance_score, rerank units', async () => {
    const { data, response } = await pinecone
      .post<Rerank>('/rerank', { body: { model: 'bge-reranker-v2-m3', query: 'capital of Italy', documents: DOCUMENTS, top_n: 2, return_documents: true, truncation: false } })
      .withResponse();
    assert.equal(data.provider, 'pinecone');
    assert.equal(data.model, 'bge-reranker-v2-m3');
    assert.deepEqual(data.results, [
      { index: 2, relevance_score: 0.3, document: { text: 'Italy borders France.' } },
      { index: 1, relevance_score: 0.2, document: { text: 'Rome is the capital of Italy.', lang: 'en' } },
    ]);
    assert.deepEqual(data.usage, { search_units: 1 });
    assert.equal(response.headers.get('x-gateway-warnings'), null);
    const seen = lastRequest(pineconeUpstream);
    assert.equal(seen.url, '/rerank');
    assert.deepEqual(seen.json, {
      model: 'bge-reranker-v2-m3',
      query: 'capital of Italy',
      documents: [{ text: 'Paris is in France.' }, { text: 'Rome is the capital of Italy.', lang: 'en' }, { text: 'Italy borders France.' }],
      return_documents: true,
      top_n: 2,
      parameters: { truncate: 'NONE' },
    });
  });

  test('rerank: rank_fields reach Pinecone, documents stay out unless asked, priority warned', async () => {
    const documents = [{ text: 'a', title: 'Rome' }, { text: 'b', title: 'Paris' }];
    const { data, response } = await pinecone
      .post<Rerank>('/rerank', { body: { model: 'bge-reranker-v2-m3', query: 'Italy', documents, rank_fields: ['title'], priority: 2 } })
      .withResponse();
    assert.deepEqual(data.results, [{ index: 1, relevance_score: 0.2 }, { index: 0, relevance_score: 0.1 }]);
    assert.equal(response.headers.get('x-gateway-warnings'), 'pinecone: priority not supported; dropped');
    const seen = lastRequest(pineconeUpstream).json;
    assert.deepEqual(seen.rank_fields, ['title']);
    assert.equal(seen.return_documents, false);
  });

  test('errors keep Pinecone\'s message, code and status', async () => {
    await assert.rejects(pinecone.post('/rerank', { body: { model: 'error-503', query: 'q', documents: ['a'] } }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 503);
      assert.match(error.message, /fake error 503/);
      assert.equal(error.code, 'UNAVAILABLE');
      return true;
    });
  });
});
