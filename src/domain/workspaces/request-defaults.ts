/**
 * A workspace's request defaults for the hot path (`defaults` of PUT /admin/workspaces/{id}): the guardrails every
 * request of the workspace runs, with or without a config, and its inline `rate_limits`. Held in process and
 * dropped on every node when a workspace changes (src/kv/invalidated-cache.ts), so a request never reads the
 * workspace row itself.
 */
import { announceInvalidation, createInvalidatedCache } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';
import type { Db } from '../../storage/database.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';

const CHANGED = 'workspaces.changed';

export interface WorkspaceRequestDefaults {
  /** saved guardrail slugs or ids, run before the config's own */
  inputGuardrails: readonly string[];
  outputGuardrails: readonly string[];
  /** the workspace's inline `rate_limits` as stored (§0.7 RateLimits); the rate-limits step reads them */
  rateLimits?: readonly unknown[];
  /** false: request and response bodies stay out of this workspace's request log (`defaults.log_bodies`) */
  logBodies?: false;
}

export const NO_WORKSPACE_DEFAULTS: WorkspaceRequestDefaults = Object.freeze({ inputGuardrails: [], outputGuardrails: [] });

export type WorkspaceDefaultsLookup = ((organisationId: string, workspaceId: string) => Promise<WorkspaceRequestDefaults>) & {
  close(): Promise<void>;
};

/** Tells every node (this one included) that a workspace changed. */
export async function announceWorkspaceChange(kv: KvStore): Promise<void> {
  await announceInvalidation(kv, CHANGED);
}

function slugs(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item !== '') : [];
}

export async function createWorkspaceDefaults(db: Db, kv: KvStore, options: { ttlMs?: number } = {}): Promise<WorkspaceDefaultsLookup> {
  const cache = await createInvalidatedCache<WorkspaceRequestDefaults>(kv, CHANGED, options);
  const lookup = (organisationId: string, workspaceId: string) =>
    cache.get(`${organisationId}\u0000${workspaceId}`, async () => {
      const row = await findWorkspace(db, organisationId, workspaceId);
      const defaults = (row?.defaults ?? {}) as Record<string, unknown>;
      const inputGuardrails = slugs(defaults.input_guardrails);
      const outputGuardrails = slugs(defaults.output_guardrails);
      const rateLimits = Array.isArray(row?.rateLimits) && row.rateLimits.length > 0 ? Object.freeze([...row.rateLimits]) : undefined;
      // the common case shares one frozen object
      const logBodies = defaults.log_bodies === false ? false : undefined;
      if (inputGuardrails.length === 0 && outputGuardrails.length === 0 && !rateLimits && logBodies === undefined) return NO_WORKSPACE_DEFAULTS;
      return { inputGuardrails, outputGuardrails, ...(rateLimits ? { rateLimits } : {}), ...(logBodies === false ? { logBodies } : {}) };
    });
  return Object.assign(lookup, { close: () => cache.close() });
}
