/**
 * The gateway's rerank <-> Bedrock Agent Runtime Rerank
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_agent-runtime_Rerank.html).
 * Documents go inline as text (strings, or the `text` of an object); the answer is sorted by relevance, with each
 * result's original index and, when asked, the text of the document sent (Bedrock may leave documents out).
 */
import { invalidParam } from '../../core/errors.ts';
import type { RerankResponse } from '../../core/openai-types.ts';
import { isRecord, recordOf, type JsonRecord } from '../shared/json.ts';
import { documentText, requestDocuments, rerankList, rerankResults } from '../shared/rerank.ts';
import { droppedParameter } from '../shared/warnings.ts';
import { modelArn } from './endpoints.ts';

const IGNORED = ['max_tokens_per_doc', 'max_chunks_per_doc', 'rank_fields', 'priority', 'truncation'];

function source(document: unknown, index: number): JsonRecord {
  if (typeof document === 'string') return { type: 'INLINE', inlineDocumentSource: { type: 'TEXT', textDocument: { text: document } } };
  if (isRecord(document) && typeof document.text === 'string') {
    return { type: 'INLINE', inlineDocumentSource: { type: 'TEXT', textDocument: { text: document.text } } };
  }
  throw invalidParam(`documents[${index}]`, 'A document must be a string or an object with a text field.');
}

export function buildRerankBody(input: unknown, region: string): { body: JsonRecord; warnings: string[] } {
  const request = recordOf(input);
  if (typeof request.model !== 'string' || !request.model) throw invalidParam('model', 'model is required.');
  if (typeof request.query !== 'string') throw invalidParam('query', 'query must be a string.');
  const documents = requestDocuments(request);
  const warnings = IGNORED.filter((name) => request[name] !== undefined).map((name) => droppedParameter('bedrock', name));
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
  const input = recordOf(request);
  const { results } = rerankResults(json, input, {
    list: 'results',
    score: 'relevanceScore',
    // Bedrock may leave the documents out of its answer: the text comes from the request
    document: (_result, sent) => ({ text: documentText(sent) }),
  });
  return rerankList({ model: String(input.model ?? ''), provider, results });
}
