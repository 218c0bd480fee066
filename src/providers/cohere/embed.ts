/**
 * OpenAI embeddings <-> Cohere v2 embed. https://docs.cohere.com/reference/embed
 * Cohere requires an `input_type`: `search_document` unless the client sends its own `input_type`.
 * Float embeddings are always requested; `encoding_format: base64` is then answered in OpenAI's base64 format
 * (little-endian float32 bytes), which the official OpenAI clients decode by default.
 */
import { invalidParam } from '../../core/errors.ts';
import type { EmbeddingResponse } from '../../core/openai-types.ts';
import { isRecord, isSet, numberOf, recordOf, type JsonRecord } from '../shared/json.ts';
import { droppedParameter } from '../shared/warnings.ts';

const MAPPED = new Set(['model', 'input', 'encoding_format', 'dimensions', 'input_type', 'strict_reference_compliance']);
const COHERE_NATIVE = new Set(['truncate', 'max_tokens', 'priority']);

export function toCohereEmbed(request: unknown): { body: JsonRecord; warnings: string[] } {
  const input = recordOf(request);
  const texts = typeof input.input === 'string' ? [input.input] : input.input;
  if (!Array.isArray(texts) || !texts.every((text) => typeof text === 'string')) {
    throw invalidParam('input', 'Cohere embeddings take text: a string or an array of strings, not token ids.');
  }
  const warnings: string[] = [];
  const body: JsonRecord = {
    model: input.model,
    texts,
    input_type: typeof input.input_type === 'string' ? input.input_type : 'search_document',
    embedding_types: ['float'],
  };
  const dimensions = numberOf(input.dimensions);
  if (dimensions !== undefined) body.output_dimension = dimensions;
  for (const [key, value] of Object.entries(input)) {
    if (MAPPED.has(key)) continue;
    if (!isSet(value)) continue;
    if (COHERE_NATIVE.has(key)) body[key] = value;
    else warnings.push(droppedParameter('cohere', key));
  }
  return { body, warnings };
}

function base64Of(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

export function toEmbeddingList(json: unknown, request: unknown, provider: string): EmbeddingResponse | Omit<EmbeddingResponse, 'usage'> {
  const embeddings = isRecord(json) ? recordOf(json.embeddings).float : undefined;
  if (!isRecord(json) || !Array.isArray(embeddings)) throw new Error('embed answer has no float embeddings');
  const input = recordOf(request);
  const base64 = input.encoding_format === 'base64';
  const tokens = numberOf(recordOf(recordOf(json.meta).billed_units).input_tokens);
  return {
    object: 'list',
    model: String(input.model ?? ''),
    provider,
    data: embeddings.map((vector, index) => {
      if (!Array.isArray(vector)) throw new Error(`embedding ${index} is not an array`);
      const floats = vector.map(Number);
      return { object: 'embedding', index, embedding: base64 ? base64Of(floats) : floats };
    }),
    ...(tokens !== undefined ? { usage: { prompt_tokens: tokens, total_tokens: tokens } } : {}),
  };
}
