/**
 * Pieces every rerank adapter shares: the request's documents, and the answer in the shape and order the gateway
 * promises (results sorted by relevance, each with the index of the document sent, the document only when the
 * client asked with `return_documents: true`).
 */
import type { RerankResponse } from '../../core/openai-types.ts';
import { isRecord, numberOf, recordOf, type JsonRecord } from './json.ts';
import { droppedParameter } from './warnings.ts';

export type RerankResult = RerankResponse['results'][number];

/** The request's documents ([] when it has none). */
export function requestDocuments(request: JsonRecord): unknown[] {
  return Array.isArray(request.documents) ? request.documents : [];
}

/** A rerank document's text: the string itself, or an object's `text` ('' when it has none). */
export function documentText(document: unknown): string {
  if (typeof document === 'string') return document;
  return isRecord(document) && typeof document.text === 'string' ? document.text : '';
}

/**
 * The documents as plain text, for providers that rank strings only; an object's other fields cannot be sent, and
 * the client is told (`ranker` names the provider in the reason, e.g. "Cohere").
 */
export function plainTextDocuments(request: JsonRecord, provider: string, ranker: string): { documents: string[]; warnings: string[] } {
  const documents = requestDocuments(request);
  const hasOtherFields = documents.some((document) => isRecord(document) && Object.keys(document).some((key) => key !== 'text'));
  const warnings = hasOtherFields ? [droppedParameter(provider, 'document fields other than text', `not supported (${ranker} ranks plain text)`)] : [];
  return { documents: documents.map(documentText), warnings };
}

/** Results sorted by relevance_score, highest first, whatever order the provider answered in. */
export function byRelevance<T extends { relevance_score: number }>(results: T[]): T[] {
  return results.sort((a, b) => b.relevance_score - a.relevance_score);
}

/** Where a provider's answer keeps its results, and how one result is read. */
export interface RerankAnswerShape {
  /** the answer's array of results: `results` (Cohere, Bedrock) or `data` (Voyage, Pinecone) */
  list: string;
  /** the field holding the score: `relevance_score`, `score` (Pinecone), `relevanceScore` (Bedrock) */
  score: string;
  /** the document returned when the client asked: the provider's copy, or built from the one sent */
  document(result: JsonRecord, sent: unknown): { text: string };
}

/**
 * The provider's results, read and sorted. A result without a numeric index or score is a malformed answer:
 * it throws, and the core answers 502 naming it.
 */
export function rerankResults(json: unknown, request: JsonRecord, shape: RerankAnswerShape): { answer: JsonRecord; results: RerankResult[] } {
  const list = isRecord(json) ? json[shape.list] : undefined;
  if (!isRecord(json) || !Array.isArray(list)) throw new Error(`rerank answer has no ${shape.list} array`);
  const documents = requestDocuments(request);
  const results = list.map((item): RerankResult => {
    const result = recordOf(item);
    const index = numberOf(result.index);
    const score = numberOf(result[shape.score]);
    if (index === undefined || score === undefined) throw new Error(`rerank result without index or ${shape.score}`);
    return { index, relevance_score: score, ...(request.return_documents === true ? { document: shape.document(result, documents[index]) } : {}) };
  });
  return { answer: json, results: byRelevance(results) };
}

/** The model the answer names, else the one the client asked for. */
export function answerModel(answer: JsonRecord, request: JsonRecord): string {
  return typeof answer.model === 'string' ? answer.model : String(request.model ?? '');
}

/** The gateway's rerank list; an `id` or `usage` the provider did not give is left out. */
export function rerankList(parts: { id?: unknown; model: string; provider: string; results: RerankResult[]; usage?: RerankResponse['usage'] | undefined }): RerankResponse {
  return {
    object: 'list',
    ...(typeof parts.id === 'string' ? { id: parts.id } : {}),
    model: parts.model,
    provider: parts.provider,
    results: parts.results,
    ...(parts.usage ? { usage: parts.usage } : {}),
  };
}
