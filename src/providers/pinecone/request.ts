/**
 * Gateway rerank -> Pinecone inference rerank. https://docs.pinecone.io/reference/api/2025-01/inference/rerank
 * Documents are objects ({ text } for a plain string; the client's objects keep every field, so `rank_fields`
 * can name them). `truncation` becomes the model parameter `truncate` (END or NONE).
 */
import { isRecord, isSet, numberOf, recordOf, type JsonRecord } from '../shared/json.ts';
import { requestDocuments } from '../shared/rerank.ts';
import { unhandledFields } from '../shared/warnings.ts';

const MAPPED = new Set([
  'model', 'query', 'documents', 'top_n', 'return_documents', 'rank_fields', 'parameters', 'truncation', 'strict_reference_compliance',
]);

export function toPineconeRerank(request: unknown): { body: JsonRecord; warnings: string[] } {
  const input = recordOf(request);
  const documents = requestDocuments(input);
  const body: JsonRecord = {
    model: input.model,
    query: input.query,
    documents: documents.map((document) => (typeof document === 'string' ? { text: document } : document)),
    // Pinecone returns documents unless told not to; the gateway's default is not to
    return_documents: input.return_documents === true,
  };
  const topN = numberOf(input.top_n);
  if (topN !== undefined) body.top_n = topN;
  if (Array.isArray(input.rank_fields)) body.rank_fields = input.rank_fields;
  const parameters: JsonRecord = isRecord(input.parameters) ? { ...input.parameters } : {};
  if (typeof input.truncation === 'boolean' && !isSet(parameters.truncate)) parameters.truncate = input.truncation ? 'END' : 'NONE';
  if (Object.keys(parameters).length > 0) body.parameters = parameters;
  return { body, warnings: unhandledFields('pinecone', input, MAPPED) };
}
