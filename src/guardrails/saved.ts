/**
 * Saved guardrails for the hot path: looked up by id or slug once, then held in process for a short time (an
 * update or delete applies within `ttlMs`), never read from the database per request.
 */
import { LRUCache } from 'lru-cache';
import { loadGuardrail } from '../domain/guardrails/load-guardrail.ts';
import type { Db } from '../storage/database.ts';
import type { GuardrailHook } from './hooks.ts';

export type SavedGuardrails = (organisationId: string, workspaceId: string, idOrSlug: string) => Promise<GuardrailHook | undefined>;

export function createSavedGuardrails(db: Db, options: { ttlMs?: number } = {}): SavedGuardrails {
  const cache = new LRUCache<string, { hook: GuardrailHook | undefined }>({ max: 10_000, ttl: options.ttlMs ?? 30_000 });
  return async (organisationId, workspaceId, idOrSlug) => {
    const key = `${organisationId}\u0000${workspaceId}\u0000${idOrSlug}`;
    const cached = cache.get(key);
    if (cached) return cached.hook;
    const saved = await loadGuardrail(db, organisationId, workspaceId, idOrSlug);
    const hook = saved ? { id: saved.slug, checks: saved.checks, deny: saved.actions.deny === true } : undefined;
    cache.set(key, { hook });
    return hook;
  };
}
