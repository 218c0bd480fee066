/**
 * The gateway's rerank <-> Bedrock Agent Runtime Rerank
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_agent-runtime_Rerank.html).
 * Documents go inline as text (strings, or the `text` of an object); the answer is sorted by relevance, with each
 * result's original index and, when asked, the text of the document sent (Bedrock may leave documents out).
 */
import { byRelevance, documentText } from '../shared/rerank.ts';
import { invalidParam } from '../../core/errors.ts';
import type { RerankResponse } from '../../core/openai-types.ts';
import { modelArn } from './endpoints.ts';
import { isRecord, type Json } from './messages.ts';

const IGNORED = ['max_tokens_per_doc', 'max_chunks_per_doc', 'rank_fields', 'priority', 'truncation'];

function source(document: unknown, index: number): Json {
  if (typeof document === 'string') return { type: 'INLINE', inlineDocumentSource: { type: 'TEXT', textDocument: { text: document } } };
  if (isRecord(document) && typeof document.text === 'string') {
    return { type: 'INLINE', inlineDocumentSource: { type: 'TEXT', textDocument: { text: document.text } } };
  }
  throw invalidParam(`documents[${index}]`, 'A document must be a string or an object with a text field.');
}

export function buildRerankBody(input: unknown, region: string): { body: Json; warnings: string[] } {
  const request = isRecord(input) ? input : {};
  if (typeof request.model !== 'string' || !request.model) throw invalidParam('model', 'model is required.');
  if (typeof request.query !== 'string') throw invalidParam('query', 'query must be a string.');
  const documents = Array.isArray(request.documents) ? request.documents : [];
  const warnings = IGNORED.filter((name) => request[name] !== undefined).map((name) => `${name} is not supported by Bedrock rerank and was ignored`);
  const parameters = isRecord(request.parameters) ? request.parameters : undefined;
  const numberOfResults = typeof request.top_n === 'number' ? Math.min(request.top_n, documents.length) : documents.length;
  return {
    body: {
      queries: [{ type: 'TEXT', textQuery: { text: request.query } }],
      sources: documents.map(source),
      rerankingConfiguration: {
        type: 'BEDROCK_RERANKING_MODEL',
        bedrockRerankingConfiguration: {
          numberOfResults,
          modelConfiguration: {
            modelArn: modelArn(request.model, region),
            ...(parameters ? { additionalModelRequestFields: parameters } : {}),
          },
        },
      },
    },
    warnings,
  };
}

export function toRerankResponse(json: unknown, request: unknown, provider: string): RerankResponse {
  if (!isRecord(json) || !Array.isArray(json.results)) throw new Error('the rerank answer has no results array');
  const call = isRecord(request) ? request : {};
  const documents = Array.isArray(call.documents) ? call.documents : [];
  const results = (json.results as unknown[]).map((result) => {
    if (!isRecord(result) || typeof result.index !== 'number' || typeof result.relevanceScore !== 'number') {
      throw new Error('a rerank result lacks its index or relevanceScore');
    }
    const text = call.return_documents === true ? documentText(documents[result.index]) : undefined;
    return { index: result.index, relevance_score: result.relevanceScore, ...(text !== undefined ? { document: { text } } : {}) };
  });
  byRelevance(results);
  return { object: 'list', model: String(call.model ?? ''), provider, results };
}
