/**
 * Cohere (https://docs.cohere.com/reference/about): chat (v2, streamed as typed SSE events), embeddings and
 * rerank, each translated from and to the gateway's OpenAI shapes; any other path passes through to
 * https://api.cohere.com with the key as a Bearer token.
 * The base URL is the origin (Cohere's SDKs take https://api.cohere.com): every route names its version (/v2/chat)
 * and pass-through paths carry theirs (/v1/tokenize). A custom host that ends in a version, the reference API's
 * form (https://api.cohere.ai/v1), has that segment dropped rather than producing /v1/v2/chat.
 */
import type { InferenceCall, ProviderAdapter, ProviderTarget, RouteKind, UpstreamRequest } from '../contract.ts';
import { toCohereEmbed, toEmbeddingList } from './embed.ts';
import { parseCohereError } from './errors.ts';
import { toCohereRerank, toRerankResponse } from './rerank.ts';
import { toCohereChat } from './request.ts';
import { toChatCompletion } from './response.ts';
import { withoutVersion } from '../shared/api-version.ts';
import { recordOf } from '../shared/json.ts';
import { createCohereStreamDecoder } from './stream.ts';

export interface CohereAdapterOptions {
  /** seconds since the epoch for `created` (Cohere's answers carry no timestamp) */
  now?: () => number;
}

const PATHS: Partial<Record<RouteKind, string>> = { chat: '/v2/chat', embeddings: '/v2/embed', rerank: '/v2/rerank' };

function bodyFor(call: InferenceCall): { body: unknown; warnings: string[] } {
  switch (call.route) {
    case 'chat':
      return toCohereChat(call.body);
    case 'embeddings':
      return toCohereEmbed(call.body);
    default:
      return toCohereRerank(call.body);
  }
}

export function createCohereAdapter(options: CohereAdapterOptions = {}): ProviderAdapter {
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const chatContext = (call: InferenceCall, target: ProviderTarget) => ({
    model: String(recordOf(call.body).model ?? ''),
    provider: target.provider,
    created: now(),
    strict: call.strictReferenceCompliance,
  });

  return {
    name: 'cohere',
    defaultBaseUrl: 'https://api.cohere.com',
    capabilities: {
      routes: new Set<RouteKind>(['chat', 'embeddings', 'rerank', 'passthrough']),
      streaming: true,
      tools: true,
      images: true,
      reasoning: true,
      promptCaching: false,
      framing: 'sse',
    },
    parseError: parseCohereError,

    buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
      const headers: Record<string, string> = target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
      const origin = target.customHost ? withoutVersion(target.baseUrl) : target.baseUrl;
      const path = PATHS[call.route];
      if (!path) {
        const query = call.query ? `?${call.query}` : '';
        if (call.rawBody && call.rawBody.length > 0) headers['content-type'] = call.contentType ?? 'application/json';
        return { method: call.method, url: `${origin}${call.path}${query}`, headers, body: call.rawBody, warnings: [] };
      }
      const { body, warnings } = bodyFor(call);
      headers['content-type'] = 'application/json';
      return { method: 'POST', url: `${origin}${path}`, headers, body: JSON.stringify(body), warnings };
    },

    responseTransform(route: RouteKind) {
      switch (route) {
        case 'chat':
          return (json, call, target) => toChatCompletion(json, chatContext(call, target));
        case 'embeddings':
          return (json, call, target) => toEmbeddingList(json, call.body, target.provider);
        case 'rerank':
          return (json, call, target) => toRerankResponse(json, call.body, target.provider);
        default:
          return undefined;
      }
    },

    streamDecoder(call: InferenceCall, target: ProviderTarget) {
      const body = recordOf(call.body);
      if (call.route !== 'chat' || body.stream !== true) return undefined;
      return createCohereStreamDecoder({ ...chatContext(call, target), includeUsage: recordOf(body.stream_options).include_usage === true });
    },
  };
}
