/**
 * Voyage AI answers -> the gateway's OpenAI shapes.
 * Embeddings (https://docs.voyageai.com/reference/embeddings-api): { object, data[{ object, embedding, index }],
 * model, usage: { total_tokens } }; every token is a prompt token.
 * Rerank (https://docs.voyageai.com/reference/reranker-api): { object, data[{ index, relevance_score, document? }],
 * model, usage: { total_tokens } }, already sorted by Voyage; sorted again so the order never depends on it.
 */
import type { EmbeddingResponse, RerankResponse } from '../../core/openai-types.ts';
import { byRelevance, documentText } from '../shared/rerank.ts';
import { isRecord, numberOf, recordOf } from '../shared/json.ts';

export function toEmbeddingList(json: unknown, request: unknown, provider: string): EmbeddingResponse | Omit<EmbeddingResponse, 'usage'> {
  if (!isRecord(json) || !Array.isArray(json.data)) throw new Error('embeddings answer has no data array');
  const tokens = numberOf(recordOf(json.usage).total_tokens);
  return {
    object: 'list',
    model: typeof json.model === 'string' ? json.model : String(recordOf(request).model ?? ''),
    provider,
    data: json.data.map((item, position) => {
      const record = recordOf(item);
      const embedding = record.embedding;
      if (typeof embedding !== 'string' && !Array.isArray(embedding)) throw new Error(`embedding ${position} is missing`);
      return { object: 'embedding', index: numberOf(record.index) ?? position, embedding: typeof embedding === 'string' ? embedding : embedding.map(Number) };
    }),
    ...(tokens !== undefined ? { usage: { prompt_tokens: tokens, total_tokens: tokens } } : {}),
  };
}

export function toRerankResponse(json: unknown, request: unknown, provider: string): RerankResponse {
  if (!isRecord(json) || !Array.isArray(json.data)) throw new Error('rerank answer has no data array');
  const input = recordOf(request);
  const documents = Array.isArray(input.documents) ? input.documents : [];
  const results = json.data.filter(isRecord).map((result) => {
    const index = numberOf(result.index);
    const score = numberOf(result.relevance_score);
    if (index === undefined || score === undefined) throw new Error('rerank result without index or relevance_score');
    const text = typeof result.document === 'string' ? result.document : documentText(documents[index]);
    return { index, relevance_score: score, ...(input.return_documents === true ? { document: { text } } : {}) };
  });
  byRelevance(results);
  const tokens = numberOf(recordOf(json.usage).total_tokens);
  return {
    object: 'list',
    model: typeof json.model === 'string' ? json.model : String(input.model ?? ''),
    provider,
    results,
    ...(tokens !== undefined ? { usage: { total_tokens: tokens } } : {}),
  };
}
