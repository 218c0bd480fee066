/**
 * The exact-match response cache over the KvStore (Redis across nodes, the in-process LRU on one node). Only
 * successful answers are stored: an error is never replayed to a later caller. Each entry carries its own expiry
 * as well as the store's TTL, so a store that keeps an entry a little longer (or an injected clock) never serves
 * it past its max age.
 */
import type { KvStore } from '../kv/store.ts';
import { withTimeout } from '../kv/with-timeout.ts';

export interface CachedAnswer {
  status: number;
  contentType: string;
  /** the JSON answer, as the client receives it for a non-streaming request */
  body: string;
  /** epoch milliseconds when the answer was stored (for the `Age` a caller may report) */
  createdAt: number;
}

/** What `set` takes: `createdAt` defaults to the cache's clock. */
export type AnswerToCache = Omit<CachedAnswer, 'createdAt'> & { createdAt?: number };

export type CacheRefusal = 'not_success' | 'too_large' | 'no_max_age';

export interface ResponseCache {
  get(key: string): Promise<CachedAnswer | undefined>;
  /** Stores the answer for `maxAgeSeconds` (fractions allowed); resolves with why it refused, or `stored`. */
  set(key: string, answer: AnswerToCache, maxAgeSeconds: number): Promise<'stored' | CacheRefusal>;
  delete(key: string): Promise<void>;
}

export interface ResponseCacheOptions {
  kv: KvStore;
  /** entries whose stored form is larger are not stored, so one huge answer cannot crowd out the rest */
  maxEntryBytes?: number;
  now?: () => number;
  /** how long a lookup waits for a remote store before it counts as a miss (default 500 ms, as the rate limits) */
  lookupTimeoutMs?: number;
  /** KV key prefix, so cache entries never collide with counters or other users of the store */
  prefix?: string;
}

export const DEFAULT_MAX_ENTRY_BYTES = 1024 * 1024;

interface StoredEntry extends CachedAnswer {
  expiresAt: number;
}

function parseEntry(text: string): StoredEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as Record<string, unknown>;
  if (
    typeof entry.status !== 'number' ||
    typeof entry.contentType !== 'string' ||
    typeof entry.body !== 'string' ||
    typeof entry.createdAt !== 'number' ||
    typeof entry.expiresAt !== 'number'
  ) {
    return undefined;
  }
  return {
    status: entry.status,
    contentType: entry.contentType,
    body: entry.body,
    createdAt: entry.createdAt,
    expiresAt: entry.expiresAt,
  };
}

const LOOKUP_TIMEOUT_MS = 500;
const lookupTimedOut = (ms: number) => new Error(`the response cache's store did not answer within ${ms} ms`);

export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const { kv } = options;
  const maxEntryBytes = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
  const now = options.now ?? Date.now;
  const prefix = options.prefix ?? 'cache:response:';
  const lookupTimeoutMs = options.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS;

  return {
    async get(key) {
      // a remote store that hangs is a miss after LOOKUP_TIMEOUT_MS (the caller treats a failed lookup as a miss)
      const text = await (kv.kind === 'memory' ? kv.get(prefix + key) : withTimeout(kv.get(prefix + key), lookupTimeoutMs, lookupTimedOut));
      if (text === null) return undefined;
      const entry = parseEntry(text);
      // an unreadable entry (written by another version) is a miss, not an error on the request path
      if (!entry || now() >= entry.expiresAt) return undefined;
      return { status: entry.status, contentType: entry.contentType, body: entry.body, createdAt: entry.createdAt };
    },

    async set(key, answer, maxAgeSeconds) {
      if (!Number.isInteger(answer.status) || answer.status < 200 || answer.status > 299) return 'not_success';
      if (!Number.isFinite(maxAgeSeconds) || maxAgeSeconds <= 0) return 'no_max_age';
      const createdAt = answer.createdAt ?? now();
      // Redis PX takes whole milliseconds; rounding up never expires an entry early
      const ttlMs = Math.ceil(maxAgeSeconds * 1000);
      const entry: StoredEntry = {
        status: answer.status,
        contentType: answer.contentType,
        body: answer.body,
        createdAt,
        expiresAt: createdAt + ttlMs,
      };
      const text = JSON.stringify(entry);
      // a cheap upper bound first (UTF-8 is at most 3 bytes per UTF-16 unit) spares the exact count for most entries
      if (text.length * 3 > maxEntryBytes && Buffer.byteLength(text, 'utf8') > maxEntryBytes) return 'too_large';
      await kv.set(prefix + key, text, ttlMs);
      return 'stored';
    },

    async delete(key) {
      await kv.del(prefix + key);
    },
  };
}
