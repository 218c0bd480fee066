import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { KvScript, KvScriptReply, KvStore, Unsubscribe } from './store.ts';

const INCR_WITH_TTL = `
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if tonumber(value) == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value`;

/** Redis store. `prefix` namespaces every key and channel (tests use a random one). */
export function createRedisStore(url: string, options: { prefix?: string } = {}): KvStore {
  const prefix = options.prefix ?? 'gw:';
  const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  // Errors surface on the command that hit them; the connection retries in the background.
  client.on('error', () => {});
  let subscriber: Redis | undefined;
  const listeners = new Map<string, Set<(message: string) => void>>();
  const digests = new WeakMap<KvScript, string>();

  /** EVALSHA, so the script's text crosses the wire once; EVAL when this server has not seen it yet. */
  async function runScript(script: KvScript, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<KvScriptReply> {
    let sha = digests.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script.lua).digest('hex');
      digests.set(script, sha);
    }
    const prefixed = keys.map((key) => prefix + key);
    try {
      return (await client.evalsha(sha, prefixed.length, ...prefixed, ...args)) as KvScriptReply;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await client.eval(script.lua, prefixed.length, ...prefixed, ...args)) as KvScriptReply;
    }
  }

  async function subscriberClient(): Promise<Redis> {
    if (subscriber) return subscriber;
    subscriber = client.duplicate();
    subscriber.on('error', () => {});
    subscriber.on('message', (channel: string, message: string) => {
      for (const listener of listeners.get(channel) ?? []) listener(message);
    });
    return subscriber;
  }

  return {
    kind: 'redis',
    async get(key) {
      return client.get(prefix + key);
    },
    async set(key, value, ttlMs) {
      if (ttlMs) await client.set(prefix + key, value, 'PX', ttlMs);
      else await client.set(prefix + key, value);
    },
    async del(key) {
      await client.del(prefix + key);
    },
    async incrBy(key, by, ttlMs) {
      const value = await client.eval(INCR_WITH_TTL, 1, prefix + key, by, ttlMs);
      return Number(value);
    },
    runScript,
    async publish(channel, message) {
      await client.publish(prefix + channel, message);
    },
    async subscribe(channel, listener): Promise<Unsubscribe> {
      const full = prefix + channel;
      const sub = await subscriberClient();
      let set = listeners.get(full);
      if (!set) {
        set = new Set();
        listeners.set(full, set);
        await sub.subscribe(full);
      }
      set.add(listener);
      return async () => {
        const current = listeners.get(full);
        current?.delete(listener);
        if (current && current.size === 0) {
          listeners.delete(full);
          await sub.unsubscribe(full);
        }
      };
    },
    async ping() {
      await client.ping();
    },
    async close() {
      subscriber?.disconnect();
      client.disconnect();
    },
  };
}
