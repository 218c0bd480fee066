/**
 * LRU caches bounded by their number of entries, whose memory grows with what they hold.
 *
 * Given `max`, lru-cache allocates its index arrays for `max` entries when it is made (keys, values, the two links,
 * the free list, and the TTL arrays once a TTL is used): 28-44 bytes an entry, 2.8-4.4 MB for a 100,000-entry cache
 * that may never hold more than a few keys. The gateway's caches at their defaults held ~10 MB of such arrays at
 * boot (a heap snapshot; docs/performance.md, "Two modes of V8's collector"). Bounded by `maxSize` with every entry
 * counting 1 instead, the bound is the same and the arrays grow as entries come.
 */
import { LRUCache } from 'lru-cache';

const one = (): number => 1;

export type BoundedLruOptions<K extends {}, V extends {}> = Omit<LRUCache.Options<K, V, unknown>, 'max' | 'maxSize' | 'sizeCalculation' | 'maxEntrySize'>;

/** An LRU cache of at most `max` entries (the least recently used is evicted first), sized by what it holds. */
export function boundedLru<K extends {}, V extends {}>(max: number, options: BoundedLruOptions<K, V> = {}): LRUCache<K, V> {
  return new LRUCache<K, V>({ ...options, maxSize: max, sizeCalculation: one } as LRUCache.Options<K, V, unknown>);
}
