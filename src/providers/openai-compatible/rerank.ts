/**
 * The Jina-style rerank answer that OpenAI-compatible servers share (Jina https://jina.ai/reranker/,
 * Together https://docs.together.ai/reference/rerank-1, vLLM /rerank) -> the gateway's rerank result:
 * { model, usage, results: [{ index, relevance_score, document?: { text } | string }] }
 */
import { byRelevance } from '../shared/rerank.ts';
import type { RerankResponse } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderTarget } from '../contract.ts';

interface UpstreamRerankResult {
  index: number;
  relevance_score: number;
  document?: { text?: string } | string;
}


function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function normaliseRerank(json: unknown, call: InferenceCall, target: ProviderTarget): RerankResponse {
  if (!isRecord(json) || !Array.isArray(json.results)) {
    throw new Error('rerank answer has no results array');
  }
  const requested = isRecord(call.body) ? call.body : {};
  const results = (json.results as UpstreamRerankResult[]).map((result) => {
    const text = typeof result.document === 'string' ? result.document : result.document?.text;
    return {
      index: result.index,
      relevance_score: result.relevance_score,
      ...(requested.return_documents === true && typeof text === 'string' ? { document: { text } } : {}),
    };
  });
  byRelevance(results);
  const usage = isRecord(json.usage) && typeof json.usage.total_tokens === 'number' ? { total_tokens: json.usage.total_tokens } : undefined;
  return {
    object: 'list',
    ...(typeof json.id === 'string' ? { id: json.id } : {}),
    model: typeof json.model === 'string' ? json.model : String(requested.model ?? ''),
    provider: target.provider,
    results,
    ...(usage ? { usage } : {}),
  };
}
