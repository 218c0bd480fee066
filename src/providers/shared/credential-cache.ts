/**
 * Short-lived credentials an adapter obtains for a stored one (an Entra access token for a client secret, STS
 * temporary keys for an assumed role), held in memory until shortly before they expire.
 *
 * Invariants:
 * - keyed by a hash of everything that obtained the value: a changed credential is a new key, and the map never
 *   holds the long-lived credential itself;
 * - concurrent callers with the same key share one fetch; a failed fetch is not kept, the next call tries again;
 * - a value is used only while `now < expiresAt - marginMs`, so it is never sent as it expires;
 * - the number of keys is bounded (the oldest goes first): a stream of distinct credentials cannot grow it;
 * - a value the provider refused is dropped only while it is still the one held: a refresh another request already
 *   made is kept.
 * One cache per adapter instance (created by the adapter factory), never a module singleton.
 */
import { createHash } from 'node:crypto';

export interface Expiring<T> {
  value: T;
  /** ms since the epoch */
  expiresAt: number;
}

export interface CredentialCache<T> {
  /** the held value for `parts`, or the one `obtain` gets (one call shared by concurrent callers) */
  get(parts: readonly string[], obtain: () => Promise<Expiring<T>>, signal?: AbortSignal): Promise<T>;
  /**
   * Forgets a value the provider refused (revoked before it expired), when `refused` is still the one held; true
   * when it was (the next `get` obtains a fresh one).
   */
  drop(parts: readonly string[], refused: (value: T) => boolean): boolean;
}

export interface CredentialCacheOptions {
  now: () => number;
  /** default 60 s */
  marginMs?: number;
  /** default 1000 */
  maxEntries?: number;
}

function keyOf(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

/** Resolves with `promise`, or rejects as soon as `signal` aborts (the shared fetch goes on for the others). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function createCredentialCache<T>(options: CredentialCacheOptions): CredentialCache<T> {
  const marginMs = options.marginMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 1000;
  const held = new Map<string, Expiring<T>>();
  const pending = new Map<string, Promise<Expiring<T>>>();
  return {
    async get(parts, obtain, signal) {
      const key = keyOf(parts);
      const hit = held.get(key);
      if (hit && options.now() < hit.expiresAt - marginMs) return hit.value;
      held.delete(key);
      let fetching = pending.get(key);
      if (!fetching) {
        fetching = obtain();
        pending.set(key, fetching);
        fetching
          .then((fresh) => {
            if (held.size >= maxEntries) held.delete(held.keys().next().value!);
            held.set(key, fresh);
          })
          .catch(() => undefined)
          .finally(() => pending.delete(key));
      }
      return (await untilAborted(fetching, signal)).value;
    },
    drop(parts, refused) {
      const key = keyOf(parts);
      const hit = held.get(key);
      if (!hit || !refused(hit.value)) return false;
      held.delete(key);
      return true;
    },
  };
}
