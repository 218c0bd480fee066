/**
 * The key-value store behind counters, cache entries and cross-node invalidation. Redis when REDIS_URL is set
 * (every node sees the same state), an in-process store otherwise (a single node).
 */
export type Unsubscribe = () => Promise<void>;

export interface KvStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  /** ttlMs: expiry in milliseconds; omitted means no expiry */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  del(key: string): Promise<void>;
  /** Adds `by` to the counter and returns the new value; the expiry is set when the counter is created. */
  incrBy(key: string, by: number, ttlMs: number): Promise<number>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, listener: (message: string) => void): Promise<Unsubscribe>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
