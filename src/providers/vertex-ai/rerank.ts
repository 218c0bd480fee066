/**
 * OpenAI-style rerank <-> the Vertex AI ranking API (Discovery Engine `rankingConfigs.rank`).
 * https://cloud.google.com/generative-ai-app-builder/docs/ranking
 * https://cloud.google.com/generative-ai-app-builder/docs/reference/rest/v1/projects.locations.rankingConfigs/rank
 * Each document becomes a record whose id is its position, so the answer maps back to the original index.
 * The answer is sorted by score already; it is sorted again so the order never depends on that.
 */
import { invalidParam } from '../../core/errors.ts';
import type { RerankRequest, RerankResponse } from '../../core/openai-types.ts';
import { isRecord } from '../shared/json.ts';
import { byRelevance, rerankList } from '../shared/rerank.ts';
import { unhandledFields } from '../shared/warnings.ts';

const HANDLED = new Set(['model', 'query', 'documents', 'top_n', 'return_documents', 'strict_reference_compliance']);

export function toRankBody(request: RerankRequest, model: string | undefined): { body: Record<string, unknown>; warnings: string[] } {
  const records = request.documents.map((document, index) => {
    if (typeof document === 'string') return { id: String(index), content: document };
    if (isRecord(document) && typeof document.text === 'string') {
      return { id: String(index), ...(typeof document.title === 'string' ? { title: document.title } : {}), content: document.text };
    }
    throw invalidParam(`documents[${index}]`, 'A document must be a string or an object with a text field.', 'invalid_document');
  });
  const body: Record<string, unknown> = {
    ...(model !== undefined ? { model } : {}),
    query: request.query,
    records,
    ignoreRecordDetailsInResponse: request.return_documents !== true,
  };
  if (request.top_n !== undefined) body.topN = request.top_n;
  return { body, warnings: unhandledFields('vertex-ai', request, HANDLED) };
}

export function fromRankAnswer(json: unknown, request: RerankRequest, provider: string): RerankResponse {
  if (!isRecord(json) || !Array.isArray(json.records)) throw new Error('the ranking answer has no records array');
  const results = json.records.map((record, position) => {
    if (!isRecord(record) || typeof record.id !== 'string' || !/^\d+$/.test(record.id)) {
      throw new Error(`ranking record ${position} has no id of a sent document`);
    }
    const text = typeof record.content === 'string' ? record.content : undefined;
    return {
      index: Number(record.id),
      // proto3 JSON leaves a 0 score out
      relevance_score: typeof record.score === 'number' ? record.score : 0,
      ...(request.return_documents === true && text !== undefined ? { document: { text } } : {}),
    };
  });
  return rerankList({ model: request.model, provider, results: byRelevance(results) });
}
