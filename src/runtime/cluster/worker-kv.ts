/**
 * A cluster worker's key-value store when no Redis is configured: the primary's in-process store, reached over IPC
 * (kv-host.ts), so counters, cache entries and invalidations agree across the workers of one node. A script is
 * named by a digest of its Lua: the primary runs its registered twin (kv-scripts.ts).
 */
import type { KvScript, KvStore, Unsubscribe } from '../../kv/store.ts';
import { scriptId } from './kv-scripts.ts';
import type { KvOperation } from './protocol.ts';
import type { WorkerChannel } from './worker-channel.ts';

export function createWorkerKvStore(channel: WorkerChannel): KvStore {
  const call = (op: KvOperation, ...args: unknown[]) => channel.request({ gw: 'kv', op, args });
  const listeners = new Map<string, Set<(message: string) => void>>();
  channel.events.on('kv-message', (name, message) => {
    for (const listener of listeners.get(name) ?? []) listener(message);
  });
  return {
    kind: 'cluster',
    get: async (key) => (await call('get', key)) as string | null,
    set: async (key, value, ttlMs) => {
      await call('set', key, value, ttlMs);
    },
    del: async (key) => {
      await call('del', key);
    },
    incrBy: async (key, by, ttlMs) => (await call('incrBy', key, by, ttlMs)) as number,
    runScript: async (script: KvScript, keys, args) => (await call('script', scriptId(script), keys, args)) as Awaited<ReturnType<KvStore['runScript']>>,
    publish: async (name, message) => {
      await call('publish', name, message);
    },
    async subscribe(name, listener): Promise<Unsubscribe> {
      let set = listeners.get(name);
      if (!set) {
        set = new Set();
        listeners.set(name, set);
        await call('subscribe', name);
      }
      set.add(listener);
      return async () => {
        set.delete(listener);
        if (set.size > 0 || listeners.get(name) !== set) return;
        listeners.delete(name);
        await call('unsubscribe', name);
      };
    },
    ping: async () => {
      await call('ping');
    },
    // the primary owns the store and closes it once every worker has gone
    async close() {
      listeners.clear();
    },
  };
}
