/**
 * The cache step of one attempt, before any provider call: the exact match first (cache-key.ts), then, for a
 * target with `cache.mode: "semantic"` on chat, completions, Messages and Responses, the semantic cache.
 *
 * On an exact miss the final user turn is embedded once (semantic/embed-call.ts) and looked up within the same
 * namespace, model (after override_params) and variant (semantic/prompt.ts). A match names the exact key of an
 * earlier request, whose answer is read from the response cache: `SEMANTIC HIT`. An entry whose answer has
 * expired there is forgotten and the request goes on as a miss. On a miss the plan carries `onStored`, which
 * records the same embedding against this request's key once its answer is stored: one embedding call per miss.
 * `x-gateway-cache-force-refresh` skips both lookups, and the new answer is still recorded.
 *
 * The embedding never fails the request: an error, a timeout or an unusable vector is logged and the request is
 * served as a miss, with a note in x-gateway-warnings.
 */
import type { AbortLink } from '../core/abort-link.ts';
import type { GatewayHeaders } from '../core/context.ts';
import type { InferenceCall, RouteKind } from '../providers/contract.ts';
import type { PlannedCache, PlannedEmbedding } from '../routing/target-settings.ts';
import { cachePlan, type CachePlan, type CacheStatus } from './pipeline.ts';
import type { CachedAnswer, ResponseCache } from './response-cache.ts';
import { semanticInput } from './semantic/prompt.ts';
import type { SemanticCaches } from './semantic/semantic-caches.ts';

const SEMANTIC_ROUTES: ReadonlySet<RouteKind> = new Set<RouteKind>(['chat', 'completions', 'messages', 'responses.create']);
const NO_WARNINGS: readonly string[] = [];
export const NO_EMBEDDING_WARNING = 'cache.mode semantic has no cache.embedding target: exact match only';

export interface Embedding {
  /** the embedding space: vectors are only compared within one (same provider, endpoint and model) */
  space: string;
  vector: Float32Array;
}

/** Embeds one text with the configured embedding target (the pipeline's call: src/pipeline/steps/semantic-embedding.ts). */
export type EmbedText = (text: string, embedding: PlannedEmbedding, attempt: GatewayHeaders, clientGone: AbortLink) => Promise<Embedding>;

export interface CacheStepDeps {
  embed: EmbedText;
  semantic?: SemanticCaches | undefined;
}

export interface CacheStepInput {
  /** the attempt's cache settings */
  settings: PlannedCache;
  responses: ResponseCache;
  /** the call as this attempt sends it (override_params applied) */
  call: InferenceCall;
  /** the adapter answering the attempt */
  provider: string;
  /** the attempt's headers: its destination (the embedding may share its credentials), namespace, trace id */
  headers: GatewayHeaders;
  clientGone: AbortLink;
}

export interface CacheStep {
  status: CacheStatus;
  /** the answer to serve: HIT or SEMANTIC HIT */
  cached?: CachedAnswer;
  /** how to store the upstream answer: MISS or REFRESH */
  plan: CachePlan;
  /** notes for x-gateway-warnings */
  warnings: readonly string[];
}

const CACHE_UNAVAILABLE_WARNING = 'response cache skipped: its store is unavailable';

/** Header values are Latin-1 without control characters; a provider's error text may be anything. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 200);
}

/** The cache step of an attempt whose target caches; undefined when its route is not cached. */
export async function lookupCache(input: CacheStepInput, deps: CacheStepDeps): Promise<CacheStep | undefined> {
  const { settings: cache, responses, call, headers } = input;
  const plan = cachePlan(cache, call, input.provider, headers);
  if (!plan) return undefined;
  const { semantic } = deps;
  const semantically = cache.mode === 'semantic' && semantic !== undefined && SEMANTIC_ROUTES.has(call.route);
  // said on every answer, hits included, so the setting that does nothing is noticed
  const warnings = semantically && !cache.embedding ? [NO_EMBEDDING_WARNING] : NO_WARNINGS;
  if (plan.status === 'MISS') {
    let exact: CachedAnswer | undefined;
    try {
      exact = await responses.get(plan.key);
    } catch (error) {
      // the cache's store is away (Redis down): the request goes on as a miss, never fails for it
      semantic?.log.warn({ err: error, traceId: headers.trace.traceId }, 'response cache: the lookup failed; served as a miss');
      return { status: plan.status, plan, warnings: [CACHE_UNAVAILABLE_WARNING] };
    }
    if (exact) return { status: 'HIT', cached: exact, plan, warnings };
  }
  const miss: CacheStep = { status: plan.status, plan, warnings };
  if (!semantically || !cache.embedding) return miss;
  const prompt = semanticInput({ provider: input.provider, route: call.route, body: call.body });
  if (!prompt) return miss;

  let embedding: Embedding;
  try {
    embedding = await deps.embed(prompt.text, cache.embedding, headers, input.clientGone);
  } catch (error) {
    semantic.log.warn({ err: error, traceId: headers.trace.traceId }, 'semantic cache: the embedding call failed; served as a miss');
    const reason = error instanceof Error ? error.message : String(error);
    return { ...miss, warnings: [headerSafe(`semantic cache skipped, the embedding call failed: ${reason}`)] };
  }
  const { space, vector } = embedding;
  const model = (call.body as { model?: unknown }).model;
  const scope = { namespace: headers.cacheNamespace, model: typeof model === 'string' ? model : '', variant: prompt.variant };
  if (plan.status === 'MISS') {
    const match = semantic.lookup(space, { ...scope, embedding: vector, threshold: cache.similarityThreshold });
    const earlier = match && (await responses.get(match.key));
    if (earlier) return { status: 'SEMANTIC HIT', cached: earlier, plan, warnings: NO_WARNINGS };
    // the answer expired (or was evicted) from the response cache: the index entry points at nothing
    if (match) semantic.forget(space, vector.length, match.key);
  }
  const onStored = () => semantic.store(space, { ...scope, embedding: vector, key: plan.key, maxAgeSeconds: plan.maxAgeSeconds });
  return { ...miss, plan: { ...plan, onStored } };
}
