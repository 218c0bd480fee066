/**
 * A fake Voyage AI API (https://docs.voyageai.com/reference/embeddings-api, /reranker-api) on 127.0.0.1 that
 * checks the Bearer key, the paths and the body fields it receives and answers in Voyage's documented format.
 */
import type http from 'node:http';
import { check, serveJson, type FakeUpstream } from './json-upstream.ts';

export const VOYAGE_TEST_KEY = 'pa-voyage-test-key';

const base64Of = (vector: number[]) => Buffer.from(new Float32Array(vector).buffer).toString('base64');

function answer(req: http.IncomingMessage, body: Record<string, unknown>): { status: number; body: unknown } {
  const expect = (condition: unknown, problem: string) => check(condition, `fake voyage: ${problem}`);
  expect(req.headers.authorization === `Bearer ${VOYAGE_TEST_KEY}`, 'Authorization: Bearer <key> is required');
  expect(typeof body.model === 'string', 'a model is required');
  const route = `${req.method} ${req.url}`;
  if (route === 'POST /v1/embeddings') {
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    expect(Array.isArray(inputs) && inputs.every((input) => typeof input === 'string'), 'input is a string or string[]');
    expect(!('dimensions' in body) && !('user' in body), 'OpenAI-only fields are not Voyage\'s');
    if ('encoding_format' in body) expect(body.encoding_format === 'base64', 'encoding_format is null or base64');
    if ('input_type' in body) expect(body.input_type === 'query' || body.input_type === 'document' || body.input_type === null, 'input_type is query or document');
    const vectors = (inputs as string[]).map((_input, index) => [0.25 * (index + 1), -0.5, 1]);
    return {
      status: 200,
      body: {
        object: 'list',
        data: vectors.map((vector, index) => ({ object: 'embedding', embedding: body.encoding_format === 'base64' ? base64Of(vector) : vector, index })),
        model: body.model,
        usage: { total_tokens: 4 * vectors.length },
      },
    };
  }
  if (route === 'POST /v1/rerank') {
    expect(typeof body.query === 'string', 'a query is required');
    expect(Array.isArray(body.documents) && body.documents.every((document) => typeof document === 'string'), 'documents are strings');
    for (const field of ['top_n', 'rank_fields', 'priority', 'max_tokens_per_doc']) expect(!(field in body), `"${field}" is not a Voyage rerank field`);
    const documents = body.documents as string[];
    // Voyage sorts by relevance itself; the scores rise with the index
    const ranked = documents
      .map((document, index) => ({ relevance_score: (index + 1) / (documents.length + 1), index, ...(body.return_documents === true ? { document } : {}) }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, typeof body.top_k === 'number' ? body.top_k : documents.length);
    return { status: 200, body: { object: 'list', data: ranked, model: body.model, usage: { total_tokens: 37 } } };
  }
  return { status: 404, body: { detail: 'Not Found' } };
}

export function startFakeVoyage(): Promise<FakeUpstream> {
  return serveJson(answer, (message) => ({ detail: message }), '/v1');
}
