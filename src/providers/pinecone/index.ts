/**
 * Pinecone inference rerank (https://docs.pinecone.io/reference/api/2025-01/inference/rerank). Pinecone
 * authenticates with an `Api-Key` header and versions its API by header: every call pins `X-Pinecone-Api-Version`
 * (unpinned calls get the oldest supported version, which changes under the caller). Any other path passes through.
 */
import type { InferenceCall, ProviderAdapter, ProviderTarget, RouteKind, UpstreamRequest } from '../contract.ts';
import { parsePineconeError } from './errors.ts';
import { toPineconeRerank } from './request.ts';
import { toRerankResponse } from './response.ts';

/**
 * The stable version the official TypeScript client (v8.2) pins. Stable versions live at least 12 months
 * (https://docs.pinecone.io/reference/api/versioning), so 2025-01 is past its promise; the rerank shape is unchanged.
 */
export const PINECONE_API_VERSION = '2026-04';

export function createPineconeAdapter(): ProviderAdapter {
  return {
    name: 'pinecone',
    defaultBaseUrl: 'https://api.pinecone.io',
    capabilities: {
      routes: new Set<RouteKind>(['rerank', 'passthrough']),
      streaming: false,
      tools: false,
      images: false,
      reasoning: false,
      promptCaching: false,
      framing: 'sse',
    },
    parseError: parsePineconeError,

    buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
      const headers: Record<string, string> = {
        'x-pinecone-api-version': PINECONE_API_VERSION,
        ...(target.apiKey ? { 'api-key': target.apiKey } : {}),
      };
      if (call.route === 'rerank') {
        const { body, warnings } = toPineconeRerank(call.body);
        headers['content-type'] = 'application/json';
        return { method: 'POST', url: `${target.baseUrl}/rerank`, headers, body: JSON.stringify(body), warnings };
      }
      const query = call.query ? `?${call.query}` : '';
      if (call.rawBody && call.rawBody.length > 0) headers['content-type'] = call.contentType ?? 'application/json';
      return { method: call.method, url: `${target.baseUrl}${call.path}${query}`, headers, body: call.rawBody, warnings: [] };
    },

    responseTransform(route: RouteKind) {
      if (route === 'rerank') return (json, call, target) => toRerankResponse(json, call.body, target.provider);
      return undefined;
    },
  };
}
