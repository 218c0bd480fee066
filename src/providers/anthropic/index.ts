/**
 * The Anthropic adapter: OpenAI chat and text completions over the Messages API, the model list, and
 * pass-through of any other /v1 path (e.g. /v1/messages, /v1/messages/count_tokens) with Anthropic's auth.
 * https://docs.anthropic.com/en/api/overview: `x-api-key` and `anthropic-version: 2023-06-01` on every call;
 * a client-forwarded `anthropic-beta` header reaches Anthropic through x-gateway-forward-headers.
 *
 * The mappers are exported for Claude on other clouds (Vertex AI), which speak the same body and stream.
 */
import type { ChatRequest } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget, ResponseTransform, RouteKind, UpstreamRequest } from '../contract.ts';
import { createAnthropicTextStreamDecoder, fromAnthropicMessageAsText, toAnthropicCompletionBody } from './completions.ts';
import { parseAnthropicError } from './errors.ts';
import { fromAnthropicModels } from './models.ts';
import { toAnthropicMessagesBody } from './request.ts';
import { fromAnthropicMessage, isRecord } from './response.ts';
import { createAnthropicStreamDecoder } from './stream.ts';

export { createAnthropicTextStreamDecoder, fromAnthropicMessageAsText, toAnthropicCompletionBody } from './completions.ts';
export { parseAnthropicError, streamError } from './errors.ts';
export { fromAnthropicModels } from './models.ts';
export { DEFAULT_MAX_TOKENS, toAnthropicMessagesBody, type AnthropicBody, type MessagesBodyOptions } from './request.ts';
export { finishReasonOf, fromAnthropicMessage, usageOf, type ResponseOptions } from './response.ts';
export { createAnthropicStreamDecoder, type StreamOptions } from './stream.ts';

export const ANTHROPIC_VERSION = '2023-06-01';
const PROVIDER = 'anthropic';

function headersFor(target: ProviderTarget, contentType: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
  if (target.apiKey) headers['x-api-key'] = target.apiKey;
  if (contentType) headers['content-type'] = contentType;
  return headers;
}

function bodyOf(call: InferenceCall): Record<string, unknown> {
  return isRecord(call.body) ? call.body : {};
}

function isStream(call: InferenceCall): boolean {
  return (call.route === 'chat' || call.route === 'completions') && bodyOf(call).stream === true;
}

const transforms: Partial<Record<RouteKind, ResponseTransform>> = {
  chat: (json, call) => fromAnthropicMessage(json, { strictReferenceCompliance: call.strictReferenceCompliance, provider: PROVIDER }),
  completions: (json, call) => fromAnthropicMessageAsText(json, { strictReferenceCompliance: call.strictReferenceCompliance, provider: PROVIDER }),
  models: (json) => fromAnthropicModels(json),
};

export const anthropicAdapter: ProviderAdapter = {
  name: PROVIDER,
  capabilities: {
    routes: new Set<RouteKind>(['chat', 'completions', 'models', 'passthrough']),
    streaming: true,
    tools: true,
    images: true,
    reasoning: true,
    promptCaching: true,
    framing: 'sse',
  },
  defaultBaseUrl: 'https://api.anthropic.com/v1',

  buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
    const query = call.query ? `?${call.query}` : '';
    const options = { strictReferenceCompliance: call.strictReferenceCompliance };
    switch (call.route) {
      case 'chat':
      case 'completions': {
        const { body, warnings } =
          call.route === 'chat'
            ? toAnthropicMessagesBody(bodyOf(call) as ChatRequest, options)
            : toAnthropicCompletionBody(bodyOf(call), options);
        const headers = headersFor(target, 'application/json');
        return { method: 'POST', url: `${target.baseUrl}/messages`, headers, body: JSON.stringify(body), warnings };
      }
      case 'models':
        return { method: 'GET', url: `${target.baseUrl}/models${query}`, headers: headersFor(target, undefined), body: undefined, warnings: [] };
      default: {
        const body = call.rawBody && call.rawBody.length > 0 ? call.rawBody : undefined;
        const headers = headersFor(target, body ? (call.contentType ?? 'application/json') : undefined);
        return { method: call.method, url: `${target.baseUrl}${call.path}${query}`, headers, body, warnings: [] };
      }
    }
  },

  responseTransform(route: RouteKind) {
    return transforms[route];
  },

  streamDecoder(call: InferenceCall) {
    if (!isStream(call)) return undefined;
    const streamOptions = bodyOf(call).stream_options;
    const options = {
      strictReferenceCompliance: call.strictReferenceCompliance,
      includeUsage: isRecord(streamOptions) && streamOptions.include_usage === true,
      provider: PROVIDER,
    };
    return call.route === 'chat' ? createAnthropicStreamDecoder(options) : createAnthropicTextStreamDecoder(options);
  },

  parseError: parseAnthropicError,
};
