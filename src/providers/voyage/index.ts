/**
 * Voyage AI (https://docs.voyageai.com/reference/embeddings-api): embeddings and rerank translated from and to
 * the gateway's shapes; any other path passes through to https://api.voyageai.com/v1 with the key as a Bearer token.
 */
import type { ProviderAdapter } from '../contract.ts';
import { authHeaders } from '../shared/auth-headers.ts';
import { defineAdapter } from '../shared/define-adapter.ts';
import { parseVoyageError } from './errors.ts';
import { toVoyageEmbeddings, toVoyageRerank } from './request.ts';
import { toEmbeddingList, toRerankResponse } from './response.ts';

export function createVoyageAdapter(): ProviderAdapter {
  return defineAdapter({
    name: 'voyage',
    defaultBaseUrl: 'https://api.voyageai.com/v1',
    capabilities: { streaming: false, tools: false, framing: 'sse' },
    headers: (target) => authHeaders('bearer', target.apiKey),
    parseError: parseVoyageError,
    routes: {
      embeddings: {
        request: (call, target) => ({ url: `${target.baseUrl}/embeddings`, ...toVoyageEmbeddings(call.body) }),
        response: (json, call, target) => toEmbeddingList(json, call.body, target.provider),
      },
      rerank: {
        request: (call, target) => ({ url: `${target.baseUrl}/rerank`, ...toVoyageRerank(call.body) }),
        response: (json, call, target) => toRerankResponse(json, call.body, target.provider),
      },
    },
  });
}
