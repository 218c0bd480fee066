/** The primary's side of the workers' key-value store: their calls run on its in-process store. */
import type { KvStore, Unsubscribe } from '../../kv/store.ts';
import type { ClusterEvent, KvRequest } from './protocol.ts';
import { scriptRegistry } from './kv-scripts.ts';

export interface KvHost {
  handle(worker: number, request: KvRequest, send: (event: ClusterEvent) => void): Promise<unknown>;
  /** drops the worker's subscriptions (it exited) */
  forget(worker: number): Promise<void>;
}

export function createKvHost(store: KvStore, scripts = scriptRegistry()): KvHost {
  const subscriptions = new Map<string, Unsubscribe>();

  return {
    async handle(worker, { op, args }, send) {
      switch (op) {
        case 'get':
          return store.get(args[0] as string);
        case 'set':
          return store.set(args[0] as string, args[1] as string, args[2] as number | undefined);
        case 'del':
          return store.del(args[0] as string);
        case 'incrBy':
          return store.incrBy(args[0] as string, args[1] as number, args[2] as number);
        case 'script': {
          const script = scripts.get(args[0] as string);
          if (!script) throw new Error(`kv script ${String(args[0])} is not registered with the cluster primary (runtime/cluster/kv-scripts.ts)`);
          return store.runScript(script, args[1] as string[], args[2] as Array<string | number>);
        }
        case 'publish':
          return store.publish(args[0] as string, args[1] as string);
        case 'subscribe': {
          const channel = args[0] as string;
          const key = `${worker}\u0000${channel}`;
          if (subscriptions.has(key)) return;
          subscriptions.set(key, await store.subscribe(channel, (message) => send({ gw: 'kv-message', channel, message })));
          return;
        }
        case 'unsubscribe': {
          const key = `${worker}\u0000${args[0] as string}`;
          const unsubscribe = subscriptions.get(key);
          subscriptions.delete(key);
          return unsubscribe?.();
        }
        case 'ping':
          return store.ping();
      }
    },
    async forget(worker) {
      for (const [key, unsubscribe] of subscriptions) {
        if (!key.startsWith(`${worker}\u0000`)) continue;
        subscriptions.delete(key);
        await unsubscribe();
      }
    },
  };
}
