/**
 * The semantic cache: a request whose prompt means nearly the same as an earlier one gets that one's answer.
 *
 * Order in the pipeline: the exact-match cache (cache-key.ts + response-cache.ts) is asked first; only on its miss
 * is the prompt embedded and looked up here. A semantic hit names the exact cache key of the earlier request, whose
 * answer is then read from the response cache, so answers are stored once and expire there by their max age.
 * After an upstream answer is stored under its exact key, `store` records the prompt's embedding against that key
 * (reusing the embedding computed for the lookup: one embedding call per miss).
 *
 * A match must share the namespace and the model (an answer from another model, or another tenant's namespace, is
 * never served) and the `variant`: a fingerprint of every param other than the conversation (see prompt.ts), so a
 * similar prompt asked with other tools, response format or temperature does not match.
 */
import type { VectorIndex } from './vector-index.ts';

/**
 * The default similarity floor. Cosine 0.95 between sentence embeddings means a near paraphrase (a changed word,
 * punctuation, case); at 0.9 and below different questions on one topic start to match, and a wrong answer served
 * fast is worse than a miss. Lower it per deployment only with measurements on its own traffic.
 */
export const DEFAULT_SEMANTIC_THRESHOLD = 0.95;
export const DEFAULT_SEMANTIC_MAX_ENTRIES = 10_000;

export interface SemanticEntryMeta {
  /** the entry's id in the index: the exact cache key */
  key: string;
  namespace: string;
  model: string;
  variant: string;
  /** epoch ms after which the entry is ignored (and dropped when met) */
  expiresAt: number;
}

export interface SemanticScope {
  /** `x-gateway-cache-namespace`; absent and empty are the same namespace */
  namespace?: string | undefined;
  model: string;
  /** the fingerprint of the non-conversation params; requests without one share the empty variant */
  variant?: string | undefined;
}

export interface SemanticMatch {
  /** the exact cache key of the earlier request, to read its answer from the response cache */
  key: string;
  score: number;
}

export interface SemanticCache {
  readonly threshold: number;
  readonly size: number;
  /**
   * The best entry of the scope scoring at least `threshold` (default: the cache's). Throws a RangeError for an
   * embedding of another dimension count than the index's: vectors of two models are never compared.
   */
  lookup(request: SemanticScope & { embedding: Float32Array; threshold?: number | undefined }): SemanticMatch | undefined;
  /** Records `key` (the exact cache key its answer is stored under) for this prompt for `maxAgeSeconds`. */
  store(entry: SemanticScope & { embedding: Float32Array; key: string; maxAgeSeconds: number }): void;
  /** Drops an entry whose answer is gone (the response cache missed on a semantic hit). */
  forget(key: string): void;
}

export interface SemanticCacheOptions {
  /** give it a capacity of at least maxEntries, so the cache (not the index) decides what is evicted */
  index: VectorIndex<SemanticEntryMeta>;
  /** cosine similarity a match needs; default 0.95 (DEFAULT_SEMANTIC_THRESHOLD, reasons there) */
  threshold?: number;
  /** entries kept before the least recently used is dropped; default 10,000 */
  maxEntries?: number;
  now?: () => number;
}

export function createSemanticCache(options: SemanticCacheOptions): SemanticCache {
  const { index } = options;
  const threshold = options.threshold ?? DEFAULT_SEMANTIC_THRESHOLD;
  if (!(threshold > 0 && threshold <= 1)) throw new RangeError('threshold must be in (0, 1]');
  const maxEntries = options.maxEntries ?? DEFAULT_SEMANTIC_MAX_ENTRIES;
  const now = options.now ?? Date.now;
  // the keys this cache added, least recently stored or matched first: bounds the entries even when the index
  // is shared or larger
  const order = new Set<string>();
  function forget(key: string): void {
    order.delete(key);
    index.delete(key);
  }

  return {
    threshold,
    get size() {
      return order.size;
    },
    lookup({ namespace = '', model, variant = '', embedding, threshold: floor = threshold }) {
      const at = now();
      const expired: string[] = [];
      const accept = (meta: SemanticEntryMeta): boolean => {
        if (meta.namespace !== namespace || meta.model !== model || meta.variant !== variant) return false;
        if (meta.expiresAt > at) return true;
        expired.push(meta.key);
        return false;
      };
      const [best] = index.search(embedding, 1, floor, accept);
      // swept after the scan, never during it: expired entries of this scope that scored above the threshold
      // go as they are met; the others leave through maxEntries
      for (const key of expired) forget(key);
      if (!best) return undefined;
      // a hit counts as a use: maxEntries evicts the least recently used entry
      order.delete(best.id);
      order.add(best.id);
      return { key: best.id, score: best.score };
    },
    store({ namespace = '', model, variant = '', embedding, key, maxAgeSeconds }) {
      if (!Number.isFinite(maxAgeSeconds) || maxAgeSeconds <= 0) return;
      index.add(key, embedding, { key, namespace, model, variant, expiresAt: now() + Math.ceil(maxAgeSeconds * 1000) });
      order.delete(key);
      order.add(key);
      for (const oldest of order) {
        if (order.size <= maxEntries) break;
        forget(oldest);
      }
    },
    forget,
  };
}
