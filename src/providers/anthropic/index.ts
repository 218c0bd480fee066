/**
 * The Anthropic adapter: OpenAI chat and text completions over the Messages API, the model list, and
 * pass-through of any other /v1 path (e.g. /v1/messages, /v1/messages/count_tokens) with Anthropic's auth.
 * https://docs.anthropic.com/en/api/overview: `x-api-key` and `anthropic-version: 2023-06-01` on every call;
 * a client-forwarded `anthropic-beta` header reaches Anthropic through x-gateway-forward-headers.
 *
 * The mappers are exported for Claude on other clouds (Vertex AI), which speak the same body and stream.
 */
import type { ChatRequest } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget } from '../contract.ts';
import { authHeaders } from '../shared/auth-headers.ts';
import { systemClock, unixSeconds, type AdapterOptions } from '../shared/clock.ts';
import { defineAdapter, queryOf } from '../shared/define-adapter.ts';
import { recordOf } from '../shared/json.ts';
import { createAnthropicTextStreamDecoder, fromAnthropicMessageAsText, toAnthropicCompletionBody } from './completions.ts';
import { parseAnthropicError } from './errors.ts';
import { fromAnthropicModels } from './models.ts';
import { toAnthropicMessagesBody } from './request.ts';
import { fromAnthropicMessage } from './response.ts';
import { createAnthropicStreamDecoder, type StreamOptions } from './stream.ts';
import { nativeMessagesRoutes } from './inbound/native.ts';

export { createAnthropicTextStreamDecoder, fromAnthropicMessageAsText, toAnthropicCompletionBody } from './completions.ts';
export { parseAnthropicError, streamError } from './errors.ts';
export { fromAnthropicModels } from './models.ts';
export { DEFAULT_MAX_TOKENS, toAnthropicMessagesBody, type AnthropicBody, type MessagesBodyOptions } from './request.ts';
export { finishReasonOf, fromAnthropicMessage, usageOf, type ResponseOptions } from './response.ts';
export { createAnthropicStreamDecoder, type StreamOptions } from './stream.ts';

export const ANTHROPIC_VERSION = '2023-06-01';
const PROVIDER = 'anthropic';

export function createAnthropicAdapter(options: AdapterOptions = {}): ProviderAdapter {
  const clock = options.clock ?? systemClock;
  // Anthropic answers carry no timestamp
  const answerOptions = (call: InferenceCall) => ({ strictReferenceCompliance: call.strictReferenceCompliance, provider: PROVIDER, created: unixSeconds(clock) });
  const streamOptions = (call: InferenceCall): StreamOptions | undefined => {
    const body = recordOf(call.body);
    if (body.stream !== true) return undefined;
    return { ...answerOptions(call), includeUsage: recordOf(body.stream_options).include_usage === true };
  };
  const messages = (target: ProviderTarget) => `${target.baseUrl}/messages`;
  const bodyOptions = (call: InferenceCall) => ({ strictReferenceCompliance: call.strictReferenceCompliance });

  return defineAdapter({
    name: PROVIDER,
    defaultBaseUrl: 'https://api.anthropic.com/v1',
    capabilities: { streaming: true, tools: true, framing: 'sse' },
    headers: (target) => ({ 'anthropic-version': ANTHROPIC_VERSION, ...authHeaders('x-api-key', target.apiKey) }),
    parseError: parseAnthropicError,
    routes: {
      chat: {
        request: (call, target) => ({ url: messages(target), ...toAnthropicMessagesBody(recordOf(call.body) as ChatRequest, bodyOptions(call)) }),
        response: (json, call) => fromAnthropicMessage(json, answerOptions(call)),
        stream: (call) => {
          const stream = streamOptions(call);
          return stream && createAnthropicStreamDecoder(stream);
        },
      },
      completions: {
        request: (call, target) => ({ url: messages(target), ...toAnthropicCompletionBody(recordOf(call.body), bodyOptions(call)) }),
        response: (json, call) => fromAnthropicMessageAsText(json, answerOptions(call)),
        stream: (call) => {
          const stream = streamOptions(call);
          return stream && createAnthropicTextStreamDecoder(stream);
        },
      },
      // the Messages API itself (the gateway's /v1/messages): the client's body as sent
      ...nativeMessagesRoutes((baseUrl) => `${baseUrl}/messages`),
      models: {
        request: (call, target) => ({ method: 'GET', url: `${target.baseUrl}/models${queryOf(call)}`, body: undefined, warnings: [] }),
        response: (json) => fromAnthropicModels(json),
      },
    },
  });
}

export const anthropicAdapter = createAnthropicAdapter();
