/**
 * A node's semantic caches: one index per embedding space (provider, endpoint and model) and dimension count,
 * since vectors of two models are never comparable, kept in step across nodes through the key-value store's
 * pub/sub. The answers themselves live in the response cache (Redis with several nodes); what travels here is the
 * index entry pointing at one: the exact cache key, its scope, its expiry and the vector.
 *
 * Each entry reaches each node's index exactly once: the storing node adds it at once (so its next request can
 * match it without waiting for a round trip) and skips its own message; every other node adds it when the message
 * arrives. A message lost while a node was down only costs that node some misses: the entry's answer is still
 * shared. Memory is bounded: `maxEntries` per space, and `maxSpaces` spaces (the least recently used one is
 * dropped whole when a new one is needed).
 */
import type { KvStore, Unsubscribe } from '../../kv/store.ts';
import { createSemanticCache, DEFAULT_SEMANTIC_MAX_ENTRIES, type SemanticCache, type SemanticEntryMeta, type SemanticMatch, type SemanticScope } from './semantic-cache.ts';
import { createFlatIndex } from './vector-index.ts';
import { decodeEntry, encodeEntry } from './replication.ts';

export const SEMANTIC_CHANNEL = 'cache.semantic';
export const DEFAULT_SEMANTIC_MAX_SPACES = 4;

/** What the caches report: pino's `warn(object, message)`. */
export interface WarningLog {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface SemanticCaches {
  /** the best match of this scope in `space`; none when this node holds no index for the space yet */
  lookup(space: string, request: SemanticScope & { embedding: Float32Array; threshold?: number | undefined }): SemanticMatch | undefined;
  /** Adds the entry here and sends it to every other node. */
  store(space: string, entry: SemanticScope & { embedding: Float32Array; key: string; maxAgeSeconds: number }): void;
  /** Drops an entry whose answer is gone, on this node (others drop it when they meet the same miss). */
  forget(space: string, dimensions: number, key: string): void;
  readonly log: WarningLog;
  /** entries held on this node, over every space */
  readonly size: number;
  close(): Promise<void>;
}

export interface SemanticCachesOptions {
  kv: KvStore;
  /** this node's id (unique per process): a node skips the messages it sent */
  nodeId: string;
  log: WarningLog;
  now?: () => number;
  /** entries per space; default 10,000 */
  maxEntries?: number;
  /** spaces held at once; default 4 */
  maxSpaces?: number;
}

export async function createSemanticCaches(options: SemanticCachesOptions): Promise<SemanticCaches> {
  const { kv, nodeId, log } = options;
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? DEFAULT_SEMANTIC_MAX_ENTRIES;
  const maxSpaces = options.maxSpaces ?? DEFAULT_SEMANTIC_MAX_SPACES;
  // insertion order is use order: a used space is moved to the end, the first is the least recently used
  const spaces = new Map<string, SemanticCache>();
  const indexKey = (space: string, dimensions: number) => `${space}#${dimensions}`;

  function used(id: string): SemanticCache | undefined {
    const cache = spaces.get(id);
    if (cache) {
      spaces.delete(id);
      spaces.set(id, cache);
    }
    return cache;
  }
  function open(id: string, dimensions: number): SemanticCache {
    const existing = used(id);
    if (existing) return existing;
    for (const oldest of spaces.keys()) {
      if (spaces.size < maxSpaces) break;
      spaces.delete(oldest);
    }
    const index = createFlatIndex<SemanticEntryMeta>({ dimensions, capacity: maxEntries });
    const cache = createSemanticCache({ index, maxEntries, now });
    spaces.set(id, cache);
    return cache;
  }

  const unsubscribe: Unsubscribe = await kv.subscribe(SEMANTIC_CHANNEL, (message) => {
    const entry = decodeEntry(message);
    if (typeof entry === 'string') {
      log.warn({ reason: entry }, 'semantic cache: ignored a replicated entry');
      return;
    }
    const maxAgeSeconds = (entry.expiresAt - now()) / 1000;
    if (entry.node === nodeId || maxAgeSeconds <= 0) return;
    try {
      open(indexKey(entry.space, entry.embedding.length), entry.embedding.length).store({ ...entry, maxAgeSeconds });
    } catch (error) {
      // a zero vector: nothing to compare with, so nothing to keep
      log.warn({ err: error }, 'semantic cache: could not add a replicated entry');
    }
  });

  return {
    log,
    get size() {
      let total = 0;
      for (const cache of spaces.values()) total += cache.size;
      return total;
    },
    lookup(space, request) {
      return used(indexKey(space, request.embedding.length))?.lookup(request);
    },
    store(space, entry) {
      const { embedding, maxAgeSeconds } = entry;
      open(indexKey(space, embedding.length), embedding.length).store(entry);
      const expiresAt = now() + Math.ceil(maxAgeSeconds * 1000);
      const message = encodeEntry({ node: nodeId, space, key: entry.key, namespace: entry.namespace ?? '', model: entry.model, variant: entry.variant ?? '', expiresAt, embedding });
      kv.publish(SEMANTIC_CHANNEL, message).catch((error: unknown) => log.warn({ err: error }, 'semantic cache: publishing an entry failed'));
    },
    forget(space, dimensions, key) {
      spaces.get(indexKey(space, dimensions))?.forget(key);
    },
    async close() {
      await unsubscribe();
      spaces.clear();
    },
  };
}
