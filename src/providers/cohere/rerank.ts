/**
 * Gateway rerank <-> Cohere v2 rerank. https://docs.cohere.com/reference/rerank
 * Cohere v2 takes documents as strings and never returns them: `return_documents` is answered from the request.
 */
import type { RerankResponse } from '../../core/openai-types.ts';
import { byRelevance, documentText } from '../shared/rerank.ts';
import { dropped, isRecord, isSet, numberOf, recordOf, type JsonRecord } from '../shared/json.ts';

const MAPPED = new Set(['model', 'query', 'documents', 'top_n', 'return_documents', 'strict_reference_compliance']);
/** max_chunks_per_doc was a v2 field before max_tokens_per_doc; sent only when the client gives it */
const COHERE_NATIVE = new Set(['max_tokens_per_doc', 'max_chunks_per_doc', 'priority']);

export function toCohereRerank(request: unknown): { body: JsonRecord; warnings: string[] } {
  const input = recordOf(request);
  const documents = Array.isArray(input.documents) ? input.documents : [];
  const warnings: string[] = [];
  if (documents.some((document) => isRecord(document) && Object.keys(document).some((key) => key !== 'text'))) {
    warnings.push(dropped('cohere', 'document fields other than text', 'not supported (Cohere ranks plain text)'));
  }
  const body: JsonRecord = { model: input.model, query: input.query, documents: documents.map(documentText) };
  const topN = numberOf(input.top_n);
  if (topN !== undefined) body.top_n = topN;
  for (const [key, value] of Object.entries(input)) {
    if (MAPPED.has(key)) continue;
    if (COHERE_NATIVE.has(key)) {
      if (isSet(value)) body[key] = value;
    } else if (isSet(value)) warnings.push(dropped('cohere', key));
  }
  return { body, warnings };
}

export function toRerankResponse(json: unknown, request: unknown, provider: string): RerankResponse {
  if (!isRecord(json) || !Array.isArray(json.results)) throw new Error('rerank answer has no results array');
  const input = recordOf(request);
  const documents = Array.isArray(input.documents) ? input.documents : [];
  const results = json.results.filter(isRecord).map((result) => {
    const index = numberOf(result.index);
    const score = numberOf(result.relevance_score);
    if (index === undefined || score === undefined) throw new Error('rerank result without index or relevance_score');
    return {
      index,
      relevance_score: score,
      ...(input.return_documents === true ? { document: { text: documentText(documents[index]) } } : {}),
    };
  });
  byRelevance(results);
  const searchUnits = numberOf(recordOf(recordOf(json.meta).billed_units).search_units);
  return {
    object: 'list',
    ...(typeof json.id === 'string' ? { id: json.id } : {}),
    model: String(input.model ?? ''),
    provider,
    results,
    ...(searchUnits !== undefined ? { usage: { search_units: searchUnits } } : {}),
  };
}
