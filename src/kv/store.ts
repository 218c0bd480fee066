/**
 * The key-value store behind counters, cache entries and cross-node invalidation. Redis when REDIS_URL is set
 * (every node sees the same state), an in-process store otherwise (a single node).
 */
export type Unsubscribe = () => Promise<void>;

/** What a script answers: Redis turns a Lua number into an integer (truncated), a table into an array. */
export type KvScriptReply = number | string | null | KvScriptReply[];

/**
 * The in-process store's entries as a script's twin sees them: any value (a twin keeps its own structures, which
 * `get` of the store never returns), with an optional expiry in milliseconds.
 */
export interface LocalEntries {
  get(key: string): unknown;
  set(key: string, value: unknown, ttlMs?: number): void;
  delete(key: string): void;
}

/**
 * A command that runs atomically against the store: a Lua script on Redis (one round trip, nothing interleaves),
 * and its twin, a synchronous function over the in-process entries (nothing interleaves either). The two must
 * answer alike; test/limits/rate-limit-scripts.test.ts runs the same cases against both.
 */
export interface KvScript {
  /** Lua; KEYS are the keys as given (the store adds its prefix), ARGV the arguments as strings */
  readonly lua: string;
  /** the twin; `nowMs` is the store's clock (the Lua reads the Redis server's TIME) */
  local(entries: LocalEntries, keys: readonly string[], args: readonly string[], nowMs: number): KvScriptReply;
}

export interface KvStore {
  /** cluster: the cluster primary's in-process store, over IPC (runtime/cluster/worker-kv.ts) */
  readonly kind: 'memory' | 'redis' | 'cluster';
  get(key: string): Promise<string | null>;
  /** ttlMs: expiry in milliseconds; omitted means no expiry */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  del(key: string): Promise<void>;
  /** Adds `by` to the counter and returns the new value; the expiry is set when the counter is created. */
  incrBy(key: string, by: number, ttlMs: number): Promise<number>;
  /** Runs a script atomically over `keys` (see KvScript). */
  runScript(script: KvScript, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<KvScriptReply>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, listener: (message: string) => void): Promise<Unsubscribe>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
