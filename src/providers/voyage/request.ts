/**
 * Gateway embeddings and rerank -> Voyage AI requests.
 * https://docs.voyageai.com/reference/embeddings-api and https://docs.voyageai.com/reference/reranker-api
 * Voyage's own embedding fields (input_type, truncation, output_dtype) pass through as the client sent them;
 * other settings Voyage cannot honour are dropped with a warning.
 */
import { invalidParam } from '../../core/errors.ts';
import { isSet, numberOf, recordOf, type JsonRecord } from '../shared/json.ts';
import { plainTextDocuments } from '../shared/rerank.ts';
import { droppedParameter, unhandledFields } from '../shared/warnings.ts';

export interface VoyageBody {
  body: JsonRecord;
  warnings: string[];
}

const EMBED_MAPPED = new Set(['model', 'input', 'encoding_format', 'dimensions', 'strict_reference_compliance']);
const EMBED_NATIVE = new Set(['input_type', 'truncation', 'output_dtype']);

export function toVoyageEmbeddings(request: unknown): VoyageBody {
  const input = recordOf(request);
  const texts = input.input;
  if (typeof texts !== 'string' && !(Array.isArray(texts) && texts.every((text) => typeof text === 'string'))) {
    throw invalidParam('input', 'Voyage embeddings take text: a string or an array of strings, not token ids.');
  }
  const warnings: string[] = [];
  const body: JsonRecord = { input: texts, model: input.model };
  const dimensions = numberOf(input.dimensions);
  if (dimensions !== undefined) body.output_dimension = dimensions;
  // Voyage's base64 is the same little-endian float32 encoding as OpenAI's (for the default float dtype)
  if (input.encoding_format === 'base64') body.encoding_format = 'base64';
  for (const [key, value] of Object.entries(input)) {
    if (EMBED_MAPPED.has(key)) continue;
    if (EMBED_NATIVE.has(key)) body[key] = value;
    else if (isSet(value)) warnings.push(droppedParameter('voyage', key));
  }
  return { body, warnings };
}

const RERANK_MAPPED = new Set(['model', 'query', 'documents', 'top_n', 'return_documents', 'truncation', 'strict_reference_compliance']);

export function toVoyageRerank(request: unknown): VoyageBody {
  const input = recordOf(request);
  const { documents, warnings } = plainTextDocuments(input, 'voyage', 'Voyage');
  const body: JsonRecord = { query: input.query, documents, model: input.model };
  const topN = numberOf(input.top_n);
  if (topN !== undefined) body.top_k = topN;
  if (typeof input.return_documents === 'boolean') body.return_documents = input.return_documents;
  if (typeof input.truncation === 'boolean') body.truncation = input.truncation;
  return { body, warnings: [...warnings, ...unhandledFields('voyage', input, RERANK_MAPPED)] };
}
