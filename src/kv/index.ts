import { createMemoryStore } from './memory-store.ts';
import { createRedisStore } from './redis-store.ts';
import type { KvStore } from './store.ts';

export type { KvStore } from './store.ts';

export function openKvStore(redisUrl: string | undefined, options: { prefix?: string } = {}): KvStore {
  return redisUrl ? createRedisStore(redisUrl, options) : createMemoryStore();
}
