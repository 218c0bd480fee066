/**
 * "Held in process, invalidated over pub/sub": what the hot path needs for control-plane records it reads on
 * every request (saved guardrails, saved configs). A value is loaded from the database once, then served from an
 * LRU; a change drops this node's copies at once and every other node's as soon as the message on the key-value
 * store's channel arrives (Redis pub/sub with REDIS_URL). The TTL only bounds how long a lost message could matter.
 *
 * Invariants: concurrent misses of one key share one load; a load that started before an invalidation is never
 * cached (it may have read the row before the change); `undefined` (not found) is cached like any value, so an
 * unknown id costs one query per TTL, not one per request, and a create must invalidate too.
 */
import { boundedLru } from '../core/lru.ts';
import type { KvStore } from './store.ts';

const ALL = '*';

export interface InvalidatedCache<V> {
  /** The value held for `key`, or `load()`'s result, kept until the TTL or an invalidation. */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Drops every copy on this node now, and tells the other nodes (the caller's change is committed). */
  invalidate(): Promise<void>;
  close(): Promise<void>;
}

export interface InvalidatedCacheOptions {
  ttlMs?: number;
  max?: number;
}

/** Tells every node listening on `channel` to drop its copies; for callers that do not hold the cache itself. */
export async function announceInvalidation(kv: KvStore, channel: string): Promise<void> {
  await kv.publish(channel, ALL);
}

export async function createInvalidatedCache<V>(
  kv: KvStore,
  channel: string,
  options: InvalidatedCacheOptions = {},
): Promise<InvalidatedCache<V>> {
  // values are boxed: lru-cache cannot hold `undefined`, and "not found" is worth caching
  const cache = boundedLru<string, { value: V }>(options.max ?? 10_000, { ttl: options.ttlMs ?? 30_000 });
  const inflight = new Map<string, Promise<V>>();
  let generation = 0;
  const drop = () => {
    generation += 1;
    cache.clear();
    inflight.clear();
  };
  const unsubscribe = await kv.subscribe(channel, drop);

  return {
    async get(key, load) {
      const cached = cache.get(key);
      if (cached) return cached.value;
      const pending = inflight.get(key);
      if (pending) return pending;
      const startedAt = generation;
      const loading = load().finally(() => {
        if (inflight.get(key) === loading) inflight.delete(key);
      });
      inflight.set(key, loading);
      const value = await loading;
      if (startedAt === generation) cache.set(key, { value });
      return value;
    },
    async invalidate() {
      // locally first: the publisher's own message may come back after its client's next request
      drop();
      await announceInvalidation(kv, channel);
    },
    close: unsubscribe,
  };
}
