/**
 * Claude on Vertex AI: the Anthropic Messages body and answers (the pure mappers of ../anthropic), sent to
 * `publishers/anthropic/models/{model}:rawPredict` (`:streamRawPredict` for streams) with
 * `anthropic_version: vertex-2023-10-16` in the body and the model only in the URL.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude
 */
import type { ChatRequest } from '../../core/openai-types.ts';
import type { ErrorParser, InferenceCall, ProviderTarget, StreamDecoder } from '../contract.ts';
import { createAnthropicStreamDecoder, fromAnthropicMessage, parseAnthropicError, toAnthropicMessagesBody } from '../anthropic/index.ts';
import { parseGoogleError } from '../google/index.ts';
import { unixSeconds, type Clock } from '../shared/clock.ts';
import { isRecord } from '../shared/json.ts';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

export function claudeRequest(chat: ChatRequest, call: InferenceCall, target: ProviderTarget): { body: string; warnings: string[]; method: string } {
  const { body, warnings } = toAnthropicMessagesBody(chat, {
    provider: target.provider,
    strictReferenceCompliance: call.strictReferenceCompliance,
    anthropicVersion: VERTEX_ANTHROPIC_VERSION,
    includeModel: false,
  });
  return { body: JSON.stringify(body), warnings, method: chat.stream === true ? 'streamRawPredict' : 'rawPredict' };
}

export function claudeAnswer(json: unknown, call: InferenceCall, target: ProviderTarget, clock: Clock): unknown {
  return fromAnthropicMessage(json, {
    strictReferenceCompliance: call.strictReferenceCompliance,
    provider: target.provider,
    created: unixSeconds(clock),
  });
}

export function claudeStreamDecoder(chat: ChatRequest, call: InferenceCall, target: ProviderTarget, clock: Clock): StreamDecoder {
  return createAnthropicStreamDecoder({
    strictReferenceCompliance: call.strictReferenceCompliance,
    includeUsage: chat.stream_options?.include_usage === true,
    provider: target.provider,
    created: unixSeconds(clock),
  });
}

/** Vertex answers in Google's error shape, except errors Claude itself raises (`{ type: 'error', error }`). */
export const parseVertexError: ErrorParser = (status, body) => {
  const anthropic = isRecord(body) && body.type === 'error';
  return anthropic ? parseAnthropicError(status, body) : parseGoogleError(status, body);
};
