/**
 * OpenAI embeddings <-> Vertex AI text embeddings (`publishers/google/models/{model}:predict`).
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api
 * Request: { instances: [{ content }], parameters: { outputDimensionality } }.
 * Answer: { predictions: [{ embeddings: { values, statistics: { token_count, truncated } } }] }; the usage is the
 * sum of the token counts, left out when any prediction lacks one.
 */
import type { EmbeddingRequest } from '../../core/openai-types.ts';
import { encodeEmbedding, textInputs, type EmbeddingList } from '../google/index.ts';
import { isRecord } from '../shared/json.ts';

export function toPredictBody(request: EmbeddingRequest): Record<string, unknown> {
  return {
    instances: textInputs(request).map((content) => ({ content })),
    ...(request.dimensions !== undefined ? { parameters: { outputDimensionality: request.dimensions } } : {}),
  };
}

export function fromPredictAnswer(json: unknown, request: EmbeddingRequest, provider: string): EmbeddingList {
  if (!isRecord(json) || !Array.isArray(json.predictions)) throw new Error('the Vertex AI answer has no predictions array');
  let tokens: number | undefined = 0;
  const data = json.predictions.map((prediction, index) => {
    const embeddings = isRecord(prediction) ? prediction.embeddings : undefined;
    if (!isRecord(embeddings) || !Array.isArray(embeddings.values)) throw new Error(`prediction ${index} has no embedding values`);
    const statistics = embeddings.statistics;
    const count = isRecord(statistics) && typeof statistics.token_count === 'number' ? statistics.token_count : undefined;
    tokens = tokens === undefined || count === undefined ? undefined : tokens + count;
    return { object: 'embedding' as const, index, embedding: encodeEmbedding(embeddings.values as number[], request.encoding_format) };
  });
  return {
    object: 'list',
    model: request.model,
    provider,
    data,
    ...(tokens !== undefined ? { usage: { prompt_tokens: tokens, total_tokens: tokens } } : {}),
  };
}
