/**
 * The cache lookup step of one attempt whose target caches: the exact match, then the semantic cache
 * (cache/semantic-pipeline.ts), which embeds the prompt with the pipeline's own embedding call. Undefined when the
 * target does not cache or its route is not cached.
 */
import type { AbortLink } from '../../core/abort-link.ts';
import type { GatewayHeaders } from '../../core/context.ts';
import type { ResponseCache } from '../../cache/response-cache.ts';
import { lookupCache, type CacheStep } from '../../cache/semantic-pipeline.ts';
import type { SemanticCaches } from '../../cache/semantic/semantic-caches.ts';
import type { InferenceCall } from '../../providers/contract.ts';
import type { PlannedCache } from '../../routing/target-settings.ts';
import { embedText, type EmbedDeps, type EmbeddingSpend } from './semantic-embedding.ts';

export interface CacheLookupDeps extends EmbedDeps {
  responses: ResponseCache;
  semantic: SemanticCaches;
}

export interface AttemptCacheInput {
  call: InferenceCall;
  provider: string;
  headers: GatewayHeaders;
  clientGone: AbortLink;
}

/** `onEmbedded`: told what a semantic lookup's embedding call used (the cost step prices it), hit or miss. */
export async function lookupAttemptCache(
  settings: PlannedCache | undefined,
  input: AttemptCacheInput,
  deps: CacheLookupDeps,
  onEmbedded?: (spend: EmbeddingSpend) => Promise<void>,
): Promise<CacheStep | undefined> {
  if (!settings) return undefined;
  const embed = async (text: string, embedding: Parameters<typeof embedText>[1], headers: GatewayHeaders, clientGone: AbortLink) => {
    const embedded = await embedText(text, embedding, headers, clientGone, deps);
    await onEmbedded?.(embedded.spend);
    return embedded;
  };
  return lookupCache({ settings, responses: deps.responses, ...input }, { semantic: deps.semantic, embed });
}
