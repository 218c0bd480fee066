/**
 * Pinecone rerank answer -> the gateway's rerank result. https://docs.pinecone.io/reference/api/2025-01/inference/rerank
 * { model, data: [{ index, score, document? }], usage: { rerank_units } }: `score` is the relevance score and
 * rerank units are reported as search units. A returned document keeps all its fields (text and the rank fields).
 */
import { byRelevance } from '../shared/rerank.ts';
import type { RerankResponse } from '../../core/openai-types.ts';
import { isRecord, numberOf, recordOf } from '../shared/json.ts';

export function toRerankResponse(json: unknown, request: unknown, provider: string): RerankResponse {
  if (!isRecord(json) || !Array.isArray(json.data)) throw new Error('rerank answer has no data array');
  const input = recordOf(request);
  const documents = Array.isArray(input.documents) ? input.documents : [];
  const results = json.data.filter(isRecord).map((result) => {
    const index = numberOf(result.index);
    const score = numberOf(result.score);
    if (index === undefined || score === undefined) throw new Error('rerank result without index or score');
    if (input.return_documents !== true) return { index, relevance_score: score };
    const sent = documents[index];
    const document = isRecord(result.document) ? result.document : typeof sent === 'string' ? { text: sent } : recordOf(sent);
    return { index, relevance_score: score, document: document as { text: string } };
  });
  byRelevance(results);
  const units = numberOf(recordOf(json.usage).rerank_units);
  return {
    object: 'list',
    model: typeof json.model === 'string' ? json.model : String(input.model ?? ''),
    provider,
    results,
    ...(units !== undefined ? { usage: { search_units: units } } : {}),
  };
}
