/**
 * API key -> Principal, cached in process so the hot path does not touch the database on every request.
 * Invariants: only the SHA-256 of a secret is used as a cache key or a query parameter; a cached entry lives
 * at most `ttlMs`; `invalidate()` (called on revoke/rotate/update, and on a cross-node invalidation message)
 * drops entries at once; a revoked or expired key is never returned.
 */
import { boundedLru } from '../core/lru.ts';
import type { OrgRole, Principal, WorkspaceRole } from '../core/context.ts';
import type { Db } from '../storage/database.ts';
import { findApiKeyByHash } from '../storage/repositories/api-keys.ts';
import { defaultWorkspace } from '../storage/repositories/organisations.ts';
import { userRoles } from '../storage/repositories/users.ts';
import { hashApiKey } from './secrets.ts';

export interface KeyResolver {
  /** synchronous on a cache hit, so the auth hook of every request costs no promise */
  resolve(secret: string): Principal | null | Promise<Principal | null>;
  /** drop one key's entry (by hash) or, without an argument, all of them */
  invalidate(keyHash?: string): void;
}

export interface KeyResolverOptions {
  db: Db;
  now?: () => number;
  ttlMs?: number;
  /** unknown keys are remembered briefly so a flood of bad keys cannot hammer the database */
  negativeTtlMs?: number;
  maxEntries?: number;
}

type Entry = { principal: Principal | null };

/** `defaults.config_id` and `allow_config_override` (default true) of a key, as the request path reads them. */
function defaultConfigOf(defaults: Record<string, unknown> | null): Pick<Principal, 'defaultConfig'> {
  const id = defaults?.config_id;
  if (typeof id !== 'string' || id === '') return {};
  return { defaultConfig: { id, allowOverride: defaults?.allow_config_override !== false } };
}

export function createKeyResolver(options: KeyResolverOptions): KeyResolver {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 30_000;
  const negativeTtlMs = options.negativeTtlMs ?? 5_000;
  // ttlResolution 0: lru-cache otherwise reuses a reading of `now` for 1 ms of real time, so an entry could
  // outlive its ttl on an injected clock
  const cache = boundedLru<string, Entry>(options.maxEntries ?? 50_000, { perf: { now }, ttlResolution: 0 });
  /** concurrent misses for the same key share one query */
  const inflight = new Map<string, Promise<Principal | null>>();
  /** bumped by invalidate(): a load that started before an invalidation must not be cached */
  let generation = 0;

  async function load(keyHash: string): Promise<Principal | null> {
    const row = await findApiKeyByHash(options.db, keyHash);
    if (!row || row.status !== 'active') return null;
    let workspaceId = row.workspaceId;
    if (!workspaceId) {
      const workspace = await defaultWorkspace(options.db, row.organisationId);
      if (!workspace) return null;
      workspaceId = workspace.id;
    }
    let expiresAt = row.expiresAt ? row.expiresAt.getTime() : null;
    if (row.keyHash !== keyHash) {
      // the previous secret of a rotated key: valid only until its transition period ends
      const until = row.previousKeyExpiresAt?.getTime() ?? 0;
      expiresAt = expiresAt === null ? until : Math.min(expiresAt, until);
    }
    let orgRole = (row.role as OrgRole | null) ?? (row.type === 'organisation' ? 'admin' : null);
    let workspaceRole: WorkspaceRole | null = null;
    if (row.subType === 'user' && row.userId) {
      const roles = await userRoles(options.db, row.userId, workspaceId);
      if (!roles) return null;
      orgRole = roles.orgRole;
      workspaceRole = roles.workspaceRole;
    }
    return {
      kind: 'api_key',
      keyId: row.id,
      keyHash,
      keyType: row.type === 'workspace' ? 'workspace' : 'organisation',
      subType: row.subType === 'user' ? 'user' : 'service',
      organisationId: row.organisationId,
      workspaceId,
      scopes: Object.freeze([...row.scopes]),
      orgRole,
      workspaceRole,
      userId: row.userId,
      expiresAt,
      ...defaultConfigOf(row.defaults),
      ...(row.rateLimits && row.rateLimits.length > 0 ? { rateLimits: Object.freeze([...row.rateLimits]) } : {}),
    };
  }

  function usable(principal: Principal | null): Principal | null {
    if (!principal) return null;
    if (principal.expiresAt !== null && principal.expiresAt <= now()) return null;
    return principal;
  }

  async function resolveMiss(keyHash: string): Promise<Principal | null> {
    let pending = inflight.get(keyHash);
    if (!pending) {
      const startedAt = generation;
      const loading: Promise<Principal | null> = load(keyHash).finally(() => {
        // invalidate() may have dropped this load and a newer one taken its place
        if (inflight.get(keyHash) === loading) inflight.delete(keyHash);
      });
      pending = loading;
      inflight.set(keyHash, pending);
      const principal = await pending;
      if (startedAt === generation) cache.set(keyHash, { principal }, { ttl: principal ? ttlMs : negativeTtlMs });
      return usable(principal);
    }
    return usable(await pending);
  }

  return {
    resolve(secret: string) {
      const keyHash = hashApiKey(secret);
      const cached = cache.get(keyHash);
      if (cached) return usable(cached.principal);
      return resolveMiss(keyHash);
    },
    invalidate(keyHash?: string) {
      generation += 1;
      // a load already under way may have read the row before the change: later resolves must not join it
      if (keyHash === undefined) {
        cache.clear();
        inflight.clear();
      } else {
        cache.delete(keyHash);
        inflight.delete(keyHash);
      }
    },
  };
}
