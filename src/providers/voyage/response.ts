/**
 * Voyage AI answers -> the gateway's OpenAI shapes.
 * Embeddings (https://docs.voyageai.com/reference/embeddings-api): { object, data[{ object, embedding, index }],
 * model, usage: { total_tokens } }; every token is a prompt token.
 * Rerank (https://docs.voyageai.com/reference/reranker-api): { object, data[{ index, relevance_score, document? }],
 * model, usage: { total_tokens } }, already sorted by Voyage; sorted again so the order never depends on it.
 */
import type { EmbeddingResponse, RerankResponse } from '../../core/openai-types.ts';
import { isRecord, numberOf, recordOf } from '../shared/json.ts';
import { answerModel, documentText, rerankList, rerankResults } from '../shared/rerank.ts';

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
  const input = recordOf(request);
  const { answer, results } = rerankResults(json, input, {
    list: 'data',
    score: 'relevance_score',
    document: (result, sent) => ({ text: typeof result.document === 'string' ? result.document : documentText(sent) }),
  });
  const tokens = numberOf(recordOf(answer.usage).total_tokens);
  return rerankList({ model: answerModel(answer, input), provider, results, usage: tokens !== undefined ? { total_tokens: tokens } : undefined });
}
