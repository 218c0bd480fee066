/**
 * Gateway rerank <-> Cohere v2 rerank. https://docs.cohere.com/reference/rerank
 * Cohere v2 takes documents as strings and never returns them: `return_documents` is answered from the request.
 */
import type { RerankResponse } from '../../core/openai-types.ts';
import { isSet, numberOf, recordOf, type JsonRecord } from '../shared/json.ts';
import { documentText, plainTextDocuments, rerankList, rerankResults } from '../shared/rerank.ts';
import { droppedParameter } from '../shared/warnings.ts';

const MAPPED = new Set(['model', 'query', 'documents', 'top_n', 'return_documents', 'strict_reference_compliance']);
/** max_chunks_per_doc was a v2 field before max_tokens_per_doc; sent only when the client gives it */
const COHERE_NATIVE = new Set(['max_tokens_per_doc', 'max_chunks_per_doc', 'priority']);

export function toCohereRerank(request: unknown): { body: JsonRecord; warnings: string[] } {
  const input = recordOf(request);
  const { documents, warnings } = plainTextDocuments(input, 'cohere', 'Cohere');
  const body: JsonRecord = { model: input.model, query: input.query, documents };
  const topN = numberOf(input.top_n);
  if (topN !== undefined) body.top_n = topN;
  for (const [key, value] of Object.entries(input)) {
    if (MAPPED.has(key)) continue;
    if (COHERE_NATIVE.has(key)) {
      if (isSet(value)) body[key] = value;
    } else if (isSet(value)) warnings.push(droppedParameter('cohere', key));
  }
  return { body, warnings };
}

export function toRerankResponse(json: unknown, request: unknown, provider: string): RerankResponse {
  const input = recordOf(request);
  const { answer, results } = rerankResults(json, input, {
    list: 'results',
    score: 'relevance_score',
    document: (_result, sent) => ({ text: documentText(sent) }),
  });
  const searchUnits = numberOf(recordOf(recordOf(answer.meta).billed_units).search_units);
  return rerankList({
    id: answer.id,
    model: String(input.model ?? ''),
    provider,
    results,
    usage: searchUnits !== undefined ? { search_units: searchUnits } : undefined,
  });
}
