/**
 * Voyage AI (https://docs.voyageai.com/reference/embeddings-api): embeddings and rerank translated from and to
 * the gateway's shapes; any other path passes through to https://api.voyageai.com/v1 with the key as a Bearer token.
 */
import type { InferenceCall, ProviderAdapter, ProviderTarget, RouteKind, UpstreamRequest } from '../contract.ts';
import { parseVoyageError } from './errors.ts';
import { toVoyageEmbeddings, toVoyageRerank } from './request.ts';
import { toEmbeddingList, toRerankResponse } from './response.ts';

export function createVoyageAdapter(): ProviderAdapter {
  return {
    name: 'voyage',
    defaultBaseUrl: 'https://api.voyageai.com/v1',
    capabilities: {
      routes: new Set<RouteKind>(['embeddings', 'rerank', 'passthrough']),
      streaming: false,
      tools: false,
      images: false,
      reasoning: false,
      promptCaching: false,
      framing: 'sse',
    },
    parseError: parseVoyageError,

    buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
      const headers: Record<string, string> = target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
      if (call.route === 'embeddings' || call.route === 'rerank') {
        const { body, warnings } = call.route === 'embeddings' ? toVoyageEmbeddings(call.body) : toVoyageRerank(call.body);
        headers['content-type'] = 'application/json';
        return { method: 'POST', url: `${target.baseUrl}/${call.route}`, headers, body: JSON.stringify(body), warnings };
      }
      const query = call.query ? `?${call.query}` : '';
      if (call.rawBody && call.rawBody.length > 0) headers['content-type'] = call.contentType ?? 'application/json';
      return { method: call.method, url: `${target.baseUrl}${call.path}${query}`, headers, body: call.rawBody, warnings: [] };
    },

    responseTransform(route: RouteKind) {
      if (route === 'embeddings') return (json, call, target) => toEmbeddingList(json, call.body, target.provider);
      if (route === 'rerank') return (json, call, target) => toRerankResponse(json, call.body, target.provider);
      return undefined;
    },
  };
}
