/**
 * Cross-node invalidation of cached credentials: a revoked, rotated or re-scoped key (or a role change) is
 * dropped from this node's cache at once and from every other node's as soon as the message arrives
 * (Redis pub/sub with REDIS_URL; in-process otherwise).
 */
import type { KvStore, Unsubscribe } from '../kv/store.ts';
/** Anything that caches credentials by the hash of the presented secret. */
export interface CredentialCache {
  invalidate(hash?: string): void;
}

const CHANNEL = 'auth.invalidate';
const ALL = '*';

export interface AuthInvalidation {
  /** one key by its secret's hash(es), or every cached credential when called without one */
  invalidate(keyHashes?: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export async function createAuthInvalidation(kv: KvStore, caches: readonly CredentialCache[]): Promise<AuthInvalidation> {
  const keys = { invalidate: (hash?: string) => caches.forEach((cache) => cache.invalidate(hash)) };
  const unsubscribe: Unsubscribe = await kv.subscribe(CHANNEL, (message) => {
    if (message === ALL) keys.invalidate();
    else for (const hash of message.split(',')) keys.invalidate(hash);
  });
  return {
    async invalidate(keyHashes) {
      const message = keyHashes && keyHashes.length > 0 ? keyHashes.join(',') : ALL;
      if (message === ALL) keys.invalidate();
      else for (const hash of keyHashes ?? []) keys.invalidate(hash);
      await kv.publish(CHANNEL, message);
    },
    close: unsubscribe,
  };
}
