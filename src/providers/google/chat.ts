/**
 * The Gemini chat pieces both Google adapters share (Gemini API and Vertex AI differ only in URL and auth):
 * the request body from the client call, the answer transform and the stream decoder.
 * https://ai.google.dev/api/generate-content
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
 */
import { badRequest } from '../../core/errors.ts';
import type { ChatRequest } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderTarget, ResponseTransform, StreamDecoder } from '../contract.ts';
import { unixSeconds, type Clock } from '../shared/clock.ts';
import { isRecord } from '../shared/json.ts';
import { toGeminiBody } from './request.ts';
import { fromGeminiResponse } from './response.ts';
import { createGeminiStreamDecoder } from './stream.ts';

export function chatRequestOf(call: InferenceCall): ChatRequest {
  const body = call.body;
  if (!isRecord(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    throw badRequest('A chat request needs a model and messages.', 'invalid_request');
  }
  return body as unknown as ChatRequest;
}

export interface GeminiChatCall {
  model: string;
  stream: boolean;
  body: string;
  warnings: string[];
}

export function geminiChatCall(call: InferenceCall, target: ProviderTarget): GeminiChatCall {
  const request = chatRequestOf(call);
  const { body, warnings } = toGeminiBody(request, { strictReferenceCompliance: call.strictReferenceCompliance, provider: target.provider });
  return { model: request.model, stream: request.stream === true, body: JSON.stringify(body), warnings };
}

export function geminiChatTransform(clock: Clock): ResponseTransform {
  return (json, call, target) =>
    fromGeminiResponse(json, {
      model: chatRequestOf(call).model,
      provider: target.provider,
      strictReferenceCompliance: call.strictReferenceCompliance,
      now: unixSeconds(clock),
      fallbackId: `chatcmpl-${clock.newId()}`,
    });
}

export function geminiStreamDecoder(call: InferenceCall, target: ProviderTarget, clock: Clock): StreamDecoder | undefined {
  if (call.route !== 'chat') return undefined;
  const request = chatRequestOf(call);
  if (request.stream !== true) return undefined;
  return createGeminiStreamDecoder({
    model: request.model,
    provider: target.provider,
    strictReferenceCompliance: call.strictReferenceCompliance,
    includeUsage: request.stream_options?.include_usage === true,
    now: unixSeconds(clock),
    fallbackId: `chatcmpl-${clock.newId()}`,
  });
}
