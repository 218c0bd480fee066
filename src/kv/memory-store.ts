import { EventEmitter } from 'node:events';
import { boundedLru } from '../core/lru.ts';
import type { KvStore, LocalEntries, Unsubscribe } from './store.ts';

/** In-process store: bounded (LRU) so a busy single node cannot grow without limit. */
export function createMemoryStore(options: { maxEntries?: number; now?: () => number } = {}): KvStore {
  // strings for get/set/incrBy; a script's twin may keep a structure of its own under its keys (never returned by get)
  const entries = boundedLru<string, NonNullable<unknown>>(options.maxEntries ?? 100_000, {
    ttlAutopurge: false,
    // ttlResolution 0: lru-cache otherwise reuses a reading of `now` for 1 ms of real time, ignoring the injected clock
    ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}),
  });
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  const now = options.now ?? Date.now;
  const local: LocalEntries = {
    get: (key) => entries.get(key),
    set: (key, value, ttlMs) => {
      if (value === undefined || value === null) entries.delete(key);
      else entries.set(key, value, ttlMs ? { ttl: ttlMs } : {});
    },
    delete: (key) => entries.delete(key),
  };
  return {
    kind: 'memory',
    async get(key) {
      const value = entries.get(key);
      return typeof value === 'string' ? value : null;
    },
    async set(key, value, ttlMs) {
      entries.set(key, value, ttlMs ? { ttl: ttlMs } : {});
    },
    async del(key) {
      entries.delete(key);
    },
    async incrBy(key, by, ttlMs) {
      const current = entries.get(key);
      if (current === undefined) {
        entries.set(key, String(by), { ttl: ttlMs });
        return by;
      }
      const next = Number(current) + by;
      // keep the original expiry: lru-cache resets ttl on set unless noUpdateTTL
      entries.set(key, String(next), { noUpdateTTL: true });
      return next;
    },
    async runScript(script, keys, args) {
      // synchronous: nothing else runs on this store until the twin returns, as with a Lua script on Redis
      return script.local(local, keys, args.map(String), now());
    },
    async publish(channel, message) {
      // asynchronous like Redis: a publisher never runs its subscribers inline
      queueMicrotask(() => bus.emit(channel, message));
    },
    async subscribe(channel, listener): Promise<Unsubscribe> {
      bus.on(channel, listener);
      return async () => {
        bus.off(channel, listener);
      };
    },
    async ping() {},
    async close() {
      bus.removeAllListeners();
      entries.clear();
    },
  };
}
