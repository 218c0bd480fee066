/**
 * The response cache in the request pipeline. A target whose config sets `cache` is looked up by the exact
 * normalised request before any provider call (`x-gateway-cache-force-refresh: true` skips the lookup and stores
 * the new answer); a 2xx answer is stored for `max_age` seconds (default one day). Streaming and non-streaming
 * requests share entries: a stored answer is replayed as a stream when the request streams. Errors are never
 * stored. The Messages and Responses routes store what their clients get (cache-form.ts). `semantic` mode adds
 * a lookup by meaning after an exact miss (semantic-pipeline.ts).
 */
import type { GatewayHeaders } from '../core/context.ts';
import type { InferenceCall, RouteKind } from '../providers/contract.ts';
import type { PlannedCache } from '../routing/target-settings.ts';
import { cacheKey } from './cache-key.ts';

export const DEFAULT_CACHE_MAX_AGE_SECONDS = 86_400;
// the route is part of the key: a chat answer is never served to /v1/messages or /v1/responses, nor the reverse
const CACHEABLE: ReadonlySet<RouteKind> = new Set<RouteKind>(['chat', 'completions', 'embeddings', 'messages', 'responses.create']);

export type CacheStatus = 'HIT' | 'SEMANTIC HIT' | 'MISS' | 'REFRESH' | 'DISABLED';

export interface CachePlan {
  key: string;
  maxAgeSeconds: number;
  status: 'MISS' | 'REFRESH';
  /** called once the answer is stored under `key`: the semantic cache then records the prompt against it */
  onStored?: () => void;
}

export function cachePlan(cache: PlannedCache | undefined, call: InferenceCall, provider: string, headers: GatewayHeaders): CachePlan | undefined {
  if (!cache || !CACHEABLE.has(call.route)) return undefined;
  return {
    key: cacheKey({ provider, route: call.route, body: call.body, namespace: headers.cacheNamespace }),
    maxAgeSeconds: cache.maxAgeSeconds ?? DEFAULT_CACHE_MAX_AGE_SECONDS,
    status: headers.cacheForceRefresh ? 'REFRESH' : 'MISS',
  };
}

export function isStreaming(call: InferenceCall): boolean {
  return typeof call.body === 'object' && call.body !== null && (call.body as { stream?: unknown }).stream === true;
}
