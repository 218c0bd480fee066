/**
 * Saved guardrails for the hot path: looked up by id or slug once, then held in process, never read from the
 * database per request. An update or delete drops every node's copies at once (a message on the key-value
 * store's pub/sub, Redis with REDIS_URL); the TTL only bounds how long a lost message could matter.
 */
import { LRUCache } from 'lru-cache';
import { loadGuardrail } from '../domain/guardrails/load-guardrail.ts';
import type { KvStore, Unsubscribe } from '../kv/store.ts';
import type { Db } from '../storage/database.ts';
import type { GuardrailHook } from './hooks.ts';

const CHANGED = 'guardrails.changed';

export type SavedGuardrails = ((organisationId: string, workspaceId: string, idOrSlug: string) => Promise<GuardrailHook | undefined>) & {
  close(): Promise<void>;
};

/** Tells every node that saved guardrails changed. */
export async function announceGuardrailChange(kv: KvStore): Promise<void> {
  await kv.publish(CHANGED, '*');
}

export async function createSavedGuardrails(db: Db, kv: KvStore, options: { ttlMs?: number } = {}): Promise<SavedGuardrails> {
  const cache = new LRUCache<string, { hook: GuardrailHook | undefined }>({ max: 10_000, ttl: options.ttlMs ?? 30_000 });
  const unsubscribe: Unsubscribe = await kv.subscribe(CHANGED, () => cache.clear());
  const lookup = async (organisationId: string, workspaceId: string, idOrSlug: string) => {
    const key = `${organisationId}\u0000${workspaceId}\u0000${idOrSlug}`;
    const cached = cache.get(key);
    if (cached) return cached.hook;
    const saved = await loadGuardrail(db, organisationId, workspaceId, idOrSlug);
    const hook = saved ? { id: saved.slug, checks: saved.checks, deny: saved.actions.deny === true } : undefined;
    cache.set(key, { hook });
    return hook;
  };
  return Object.assign(lookup, { close: unsubscribe });
}
