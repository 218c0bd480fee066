/**
 * Pinecone rerank answer -> the gateway's rerank result. https://docs.pinecone.io/reference/api/2025-01/inference/rerank
 * { model, data: [{ index, score, document? }], usage: { rerank_units } }: `score` is the relevance score and
 * rerank units are reported as search units. A returned document keeps all its fields (text and the rank fields).
 */
import type { RerankResponse } from '../../core/openai-types.ts';
import { isRecord, numberOf, recordOf } from '../shared/json.ts';
import { answerModel, rerankList, rerankResults } from '../shared/rerank.ts';

export function toRerankResponse(json: unknown, request: unknown, provider: string): RerankResponse {
  const input = recordOf(request);
  const { answer, results } = rerankResults(json, input, {
    list: 'data',
    score: 'score',
    // Pinecone's own copy keeps every field; else the one sent (a string as { text })
    document: (result, sent) => (isRecord(result.document) ? result.document : typeof sent === 'string' ? { text: sent } : recordOf(sent)) as { text: string },
  });
  const units = numberOf(recordOf(answer.usage).rerank_units);
  return rerankList({ model: answerModel(answer, input), provider, results, usage: units !== undefined ? { search_units: units } : undefined });
}
