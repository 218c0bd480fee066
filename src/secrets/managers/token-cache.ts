/**
 * Access tokens a manager hands out (an Entra token, a Vault AppRole client token), held in memory until shortly
 * before they expire, so a value fetch does not log in again each time. Keyed by a hash of the credentials that
 * obtained them: a changed credential is a new key, and the map never holds a credential itself.
 */
import { createHash } from 'node:crypto';
import { boundedLru } from '../../core/lru.ts';

export interface TokenCache {
  get(key: string): string | undefined;
  /** kept for `lifetimeMs` less a safety margin; a token that would live less than the margin is not kept */
  set(key: string, token: string, lifetimeMs: number): void;
  delete(key: string): void;
}

/** a token is dropped this long before its expiry, so it is never sent as it expires */
const MARGIN_MS = 60_000;

export function tokenKey(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

export function createTokenCache(options: { now: () => number; max?: number }): TokenCache {
  const cache = boundedLru<string, string>(options.max ?? 1000, { ttl: 3_600_000, ttlResolution: 0, perf: { now: options.now } });
  return {
    get: (key) => cache.get(key),
    set(key, token, lifetimeMs) {
      const ttl = lifetimeMs - MARGIN_MS;
      if (ttl > 0) cache.set(key, token, { ttl });
    },
    delete: (key) => void cache.delete(key),
  };
}
