/**
 * OpenAI embeddings <-> Gemini `models/{model}:batchEmbedContents`.
 * https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
 * https://ai.google.dev/api/embeddings#EmbedContentRequest (model, content, outputDimensionality)
 *
 * Gemini reports no token counts for embeddings. OpenAI's shape has a `usage` object, but the gateway never makes
 * up a count: the answer leaves `usage` out rather than reporting zeros.
 */
import { invalidParam } from '../../core/errors.ts';
import type { EmbeddingRequest, EmbeddingResponse } from '../../core/openai-types.ts';
import { isRecord } from '../shared/json.ts';
import { unhandledFields } from '../shared/warnings.ts';

const HANDLED = new Set(['model', 'input', 'encoding_format', 'dimensions', 'strict_reference_compliance']);

/** The text inputs of an embeddings request; token-id inputs cannot be sent to Google's text embedders. */
export function textInputs(request: EmbeddingRequest): string[] {
  const { input } = request;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((item) => typeof item === 'string')) return input as string[];
  throw invalidParam('input', 'Google embedding models take text: send a string or an array of strings, not token ids.', 'unsupported_input');
}

/** Fields other than the ones read here are reported and not sent (`provider`: Gemini API or Vertex AI). */
export function embeddingWarnings(request: EmbeddingRequest, provider: string): string[] {
  return unhandledFields(provider, request, HANDLED);
}

/** A bare model name -> `models/<name>`; a name that already has the prefix is kept. */
export function geminiModelName(model: string): string {
  return model.startsWith('models/') ? model : `models/${model}`;
}

export function toGeminiEmbeddingsBody(request: EmbeddingRequest): Record<string, unknown> {
  const model = geminiModelName(request.model);
  return {
    requests: textInputs(request).map((text) => ({
      model,
      content: { parts: [{ text }] },
      ...(request.dimensions !== undefined ? { outputDimensionality: request.dimensions } : {}),
    })),
  };
}

/** OpenAI's base64 format: the float32 little-endian bytes of the vector. */
export function encodeEmbedding(values: number[], format: unknown): number[] | string {
  if (format !== 'base64') return values;
  const floats = new Float32Array(values);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

export type EmbeddingList = Omit<EmbeddingResponse, 'usage'> & { usage?: EmbeddingResponse['usage'] };

export function fromGeminiEmbeddings(json: unknown, request: EmbeddingRequest, provider: string): EmbeddingList {
  if (!isRecord(json) || !Array.isArray(json.embeddings)) throw new Error('the Gemini answer has no embeddings array');
  const data = json.embeddings.map((item, index) => {
    if (!isRecord(item) || !Array.isArray(item.values)) throw new Error(`embedding ${index} has no values`);
    return { object: 'embedding' as const, index, embedding: encodeEmbedding(item.values as number[], request.encoding_format) };
  });
  return { object: 'list', model: request.model, provider, data };
}
