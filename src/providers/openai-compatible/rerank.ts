/**
 * The Jina-style rerank answer that OpenAI-compatible servers share (Jina https://jina.ai/reranker/,
 * Together https://docs.together.ai/reference/rerank-1, vLLM /rerank) -> the gateway's rerank result:
 * { model, usage, results: [{ index, relevance_score, document?: { text } | string }] }
 */
import type { RerankResponse } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderTarget } from '../contract.ts';
import { isRecord, recordOf } from '../shared/json.ts';
import { answerModel, byRelevance, rerankList } from '../shared/rerank.ts';

interface UpstreamRerankResult {
  index: number;
  relevance_score: number;
  document?: { text?: string } | string;
}

export function normaliseRerank(json: unknown, call: InferenceCall, target: ProviderTarget): RerankResponse {
  if (!isRecord(json) || !Array.isArray(json.results)) {
    throw new Error('rerank answer has no results array');
  }
  const requested = recordOf(call.body);
  const results = (json.results as UpstreamRerankResult[]).map((result) => {
    const text = typeof result.document === 'string' ? result.document : result.document?.text;
    return {
      index: result.index,
      relevance_score: result.relevance_score,
      ...(requested.return_documents === true && typeof text === 'string' ? { document: { text } } : {}),
    };
  });
  const usage = isRecord(json.usage) && typeof json.usage.total_tokens === 'number' ? { total_tokens: json.usage.total_tokens } : undefined;
  return rerankList({ id: json.id, model: answerModel(json, requested), provider: target.provider, results: byRelevance(results), usage });
}
