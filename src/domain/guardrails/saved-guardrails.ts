/**
 * Saved guardrails for the hot path: looked up by id or slug once, then held in process, never read from the
 * database per request. An update or delete drops every node's copies at once (src/kv/invalidated-cache.ts).
 */
import { loadGuardrail } from './load-guardrail.ts';
import { announceInvalidation, createInvalidatedCache } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';
import type { Db } from '../../storage/database.ts';
import type { GuardrailHook } from '../../guardrails/hooks.ts';

const CHANGED = 'guardrails.changed';

export type SavedGuardrails = ((organisationId: string, workspaceId: string, idOrSlug: string) => Promise<GuardrailHook | undefined>) & {
  close(): Promise<void>;
};

/** Tells every node (this one included) that saved guardrails changed. */
export async function announceGuardrailChange(kv: KvStore): Promise<void> {
  await announceInvalidation(kv, CHANGED);
}

export async function createSavedGuardrails(db: Db, kv: KvStore, options: { ttlMs?: number } = {}): Promise<SavedGuardrails> {
  const cache = await createInvalidatedCache<GuardrailHook | undefined>(kv, CHANGED, options);
  const lookup = (organisationId: string, workspaceId: string, idOrSlug: string) =>
    cache.get(`${organisationId}\u0000${workspaceId}\u0000${idOrSlug}`, async () => {
      const saved = await loadGuardrail(db, organisationId, workspaceId, idOrSlug);
      return saved ? { id: saved.slug, checks: saved.checks, deny: saved.actions.deny === true } : undefined;
    });
  return Object.assign(lookup, { close: () => cache.close() });
}
