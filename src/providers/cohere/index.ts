/**
 * Cohere (https://docs.cohere.com/reference/about): chat (v2, streamed as typed SSE events), embeddings and
 * rerank, each translated from and to the gateway's OpenAI shapes; any other path passes through to
 * https://api.cohere.com with the key as a Bearer token.
 * The base URL is the origin (Cohere's SDKs take https://api.cohere.com): every route names its version (/v2/chat)
 * and pass-through paths carry theirs (/v1/tokenize). A custom host that ends in a version, the reference API's
 * form (https://api.cohere.ai/v1), has that segment dropped rather than producing /v1/v2/chat.
 */
import type { InferenceCall, ProviderAdapter, ProviderTarget } from '../contract.ts';
import { withoutVersion } from '../shared/api-version.ts';
import { authHeaders } from '../shared/auth-headers.ts';
import { systemClock, unixSeconds, type AdapterOptions } from '../shared/clock.ts';
import { defineAdapter } from '../shared/define-adapter.ts';
import { recordOf } from '../shared/json.ts';
import { toCohereEmbed, toEmbeddingList } from './embed.ts';
import { parseCohereError } from './errors.ts';
import { toCohereRerank, toRerankResponse } from './rerank.ts';
import { toCohereChat } from './request.ts';
import { toChatCompletion, type ChatContext } from './response.ts';
import { createCohereStreamDecoder } from './stream.ts';

function origin(target: ProviderTarget): string {
  return target.customHost ? withoutVersion(target.baseUrl) : target.baseUrl;
}

export function createCohereAdapter(options: AdapterOptions = {}): ProviderAdapter {
  const clock = options.clock ?? systemClock;
  // Cohere's answers carry no timestamp
  const chatContext = (call: InferenceCall, target: ProviderTarget): ChatContext => ({
    model: String(recordOf(call.body).model ?? ''),
    provider: target.provider,
    created: unixSeconds(clock),
    strict: call.strictReferenceCompliance,
  });

  return defineAdapter({
    name: 'cohere',
    defaultBaseUrl: 'https://api.cohere.com',
    capabilities: { streaming: true, tools: true, framing: 'sse' },
    headers: (target) => authHeaders('bearer', target.apiKey),
    passthroughRoot: origin,
    parseError: parseCohereError,
    routes: {
      chat: {
        request: (call, target) => ({ url: `${origin(target)}/v2/chat`, ...toCohereChat(call.body) }),
        response: (json, call, target) => toChatCompletion(json, chatContext(call, target)),
        stream(call, target) {
          const body = recordOf(call.body);
          if (body.stream !== true) return undefined;
          return createCohereStreamDecoder({ ...chatContext(call, target), includeUsage: recordOf(body.stream_options).include_usage === true });
        },
      },
      embeddings: {
        request: (call, target) => ({ url: `${origin(target)}/v2/embed`, ...toCohereEmbed(call.body) }),
        response: (json, call, target) => toEmbeddingList(json, call.body, target.provider),
      },
      rerank: {
        request: (call, target) => ({ url: `${origin(target)}/v2/rerank`, ...toCohereRerank(call.body) }),
        response: (json, call, target) => toRerankResponse(json, call.body, target.provider),
      },
    },
  });
}
