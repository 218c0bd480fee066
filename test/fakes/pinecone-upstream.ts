/**
 * A fake Pinecone inference API (https://docs.pinecone.io/reference/api/2025-01/inference/rerank) on 127.0.0.1 that
 * checks the Api-Key and API version headers and the rerank body, and answers in Pinecone's documented format.
 */
import type http from 'node:http';
import { check, isRecord, serveJson, type FakeUpstream } from './json-upstream.ts';

export const PINECONE_TEST_KEY = 'pcsk-pinecone-test-key';

function answer(req: http.IncomingMessage, body: Record<string, unknown>): { status: number; body: unknown } {
  const expect = (condition: unknown, problem: string) => check(condition, `fake pinecone: ${problem}`);
  expect(req.headers['api-key'] === PINECONE_TEST_KEY, 'the Api-Key header is required');
  expect(req.headers.authorization === undefined, 'Pinecone takes no Authorization header');
  expect(/^\d{4}-\d{2}$/.test(String(req.headers['x-pinecone-api-version'])), 'X-Pinecone-Api-Version must pin a version');
  if (`${req.method} ${req.url}` !== 'POST /rerank') return { status: 404, body: { error: { code: 'NOT_FOUND', message: 'Not found' }, status: 404 } };
  expect(typeof body.model === 'string' && typeof body.query === 'string', 'model and query are required');
  expect(Array.isArray(body.documents) && body.documents.every(isRecord), 'documents are objects');
  expect(typeof body.return_documents === 'boolean', 'return_documents is sent explicitly (Pinecone defaults to true)');
  for (const field of ['truncation', 'priority', 'max_tokens_per_doc', 'top_k']) expect(!(field in body), `"${field}" is not a Pinecone rerank field`);
  const fields = Array.isArray(body.rank_fields) ? (body.rank_fields as string[]) : ['text'];
  const documents = body.documents as Array<Record<string, unknown>>;
  for (const document of documents) for (const field of fields) expect(typeof document[field] === 'string', `every document needs the rank field "${field}"`);
  // sorted by Pinecone, scores rise with the index
  const data = documents
    .map((document, index) => ({ index, score: (index + 1) / 10, ...(body.return_documents ? { document } : {}) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, typeof body.top_n === 'number' ? body.top_n : documents.length);
  return { status: 200, body: { model: body.model, data, usage: { rerank_units: 1 } } };
}

export function startFakePinecone(): Promise<FakeUpstream> {
  return serveJson(answer, (message, status) => ({ error: { code: status === 422 ? 'INVALID_ARGUMENT' : 'UNAVAILABLE', message }, status }), '');
}
