/**
 * OpenAI embeddings <-> Bedrock InvokeModel for the two embedding families:
 * - Titan Text Embeddings (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html):
 *   one text per call, {inputText, dimensions, normalize} (v2; v1 takes inputText only) -> {embedding, inputTextTokenCount}
 * - Cohere Embed (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html):
 *   {texts, input_type} -> {embeddings: number[][] | {float: number[][]}}
 */
import { invalidParam } from '../../core/errors.ts';
import type { EmbeddingResponse } from '../../core/openai-types.ts';
import { isRecord, type JsonRecord } from '../shared/json.ts';
import { droppedParameter } from '../shared/warnings.ts';

type Family = 'titan' | 'titan-v2' | 'cohere';

export function embeddingFamily(model: string): Family {
  if (model.includes('titan-embed-text-v2')) return 'titan-v2';
  if (model.includes('titan-embed')) return 'titan';
  if (model.includes('cohere.embed')) return 'cohere';
  throw invalidParam(
    'model',
    `Bedrock embeddings are served for Titan (amazon.titan-embed-*) and Cohere (cohere.embed-*) models, not "${model}".`,
    'unsupported_model',
  );
}

function texts(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((item) => typeof item === 'string')) return input as string[];
  throw invalidParam('input', 'Bedrock embedding models take text: input must be a string or an array of strings.');
}

export interface EmbeddingRequestBody {
  body: JsonRecord;
  warnings: string[];
}

export function buildEmbeddingBody(input: unknown): EmbeddingRequestBody {
  const request = isRecord(input) ? input : {};
  const family = embeddingFamily(String(request.model ?? ''));
  const inputs = texts(request.input);
  const warnings: string[] = [];
  const dimensions = typeof request.dimensions === 'number' ? request.dimensions : undefined;
  if (family === 'cohere') {
    if (dimensions !== undefined) warnings.push(droppedParameter('bedrock', 'dimensions', 'not supported by Cohere embeddings on Bedrock'));
    // Cohere v3 requires input_type; an OpenAI client sends none, and documents are the common case
    const inputType = typeof request.input_type === 'string' ? request.input_type : 'search_document';
    return { body: { texts: inputs, input_type: inputType }, warnings };
  }
  if (inputs.length !== 1) {
    throw invalidParam('input', 'Titan embedding models take one text per call: send input as a single string.', 'too_many_inputs');
  }
  if (family === 'titan') {
    if (dimensions !== undefined) warnings.push(droppedParameter('bedrock', 'dimensions', 'not supported by this Titan embedding model'));
    return { body: { inputText: inputs[0] }, warnings };
  }
  // OpenAI embeddings are unit length; Titan v2 normalises by default too, and a client may turn it off
  const normalize = typeof request.normalize === 'boolean' ? request.normalize : true;
  return { body: { inputText: inputs[0], ...(dimensions !== undefined ? { dimensions } : {}), normalize }, warnings };
}

function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'number');
}

/** base64 of little-endian float32 values, as OpenAI answers for encoding_format "base64" */
function encode(vector: number[], format: unknown): number[] | string {
  if (format !== 'base64') return vector;
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

type Embeddings = Omit<EmbeddingResponse, 'usage'> & { usage?: EmbeddingResponse['usage'] };

export function toEmbeddingResponse(json: unknown, request: unknown, provider: string): Embeddings {
  const call = isRecord(request) ? request : {};
  const model = String(call.model ?? '');
  if (!isRecord(json)) throw new Error('the embedding answer is not a JSON object');
  let vectors: number[][];
  let tokens: number | undefined;
  if (embeddingFamily(model) === 'cohere') {
    const raw = isRecord(json.embeddings) ? json.embeddings.float : json.embeddings;
    if (!Array.isArray(raw) || !raw.every(isVector)) throw new Error('the Cohere answer has no float embeddings');
    vectors = raw;
    const billed = isRecord(json.meta) && isRecord(json.meta.billed_units) ? json.meta.billed_units.input_tokens : undefined;
    tokens = typeof billed === 'number' ? billed : undefined;
  } else {
    if (!isVector(json.embedding)) throw new Error('the Titan answer has no embedding');
    vectors = [json.embedding];
    tokens = typeof json.inputTextTokenCount === 'number' ? json.inputTextTokenCount : undefined;
  }
  return {
    object: 'list',
    model,
    provider,
    data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: encode(vector, call.encoding_format) })),
    ...(tokens !== undefined ? { usage: { prompt_tokens: tokens, total_tokens: tokens } } : {}),
  };
}
