/**
 * Pinecone inference rerank (https://docs.pinecone.io/reference/api/2025-01/inference/rerank). Pinecone
 * authenticates with an `Api-Key` header and versions its API by header: every call pins `X-Pinecone-Api-Version`
 * (unpinned calls get the oldest supported version, which changes under the caller). Any other path passes through.
 */
import type { ProviderAdapter } from '../contract.ts';
import { authHeaders } from '../shared/auth-headers.ts';
import { defineAdapter } from '../shared/define-adapter.ts';
import { parsePineconeError } from './errors.ts';
import { toPineconeRerank } from './request.ts';
import { toRerankResponse } from './response.ts';

/**
 * The stable version the official TypeScript client (v8.2) pins. Stable versions live at least 12 months
 * (https://docs.pinecone.io/reference/api/versioning), so 2025-01 is past its promise; the rerank shape is unchanged.
 */
export const PINECONE_API_VERSION = '2026-04';

export function createPineconeAdapter(): ProviderAdapter {
  return defineAdapter({
    name: 'pinecone',
    defaultBaseUrl: 'https://api.pinecone.io',
    capabilities: { streaming: false, tools: false, framing: 'sse' },
    headers: (target) => ({ 'x-pinecone-api-version': PINECONE_API_VERSION, ...authHeaders('api-key', target.apiKey) }),
    parseError: parsePineconeError,
    routes: {
      rerank: {
        request: (call, target) => ({ url: `${target.baseUrl}/rerank`, ...toPineconeRerank(call.body) }),
        response: (json, call, target) => toRerankResponse(json, call.body, target.provider),
      },
    },
  });
}
