/**
 * Who sees and who changes a saved config; the same rules as guardrails (src/domain/guardrails/access.ts). A
 * workspace config: seen by whoever may access the workspace, changed by its managers (and organisation admins).
 * An organisation-wide one: seen by organisation admins and by every workspace key of the organisation (requests
 * of any workspace may use it), changed by admin keys only. Another workspace's config is a 404.
 */
import { canAccessWorkspace, isOrganisationAdmin, requireAdminKey, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findConfig, lockConfig, type ConfigRow } from '../../storage/repositories/configs.ts';

const ID_OR_SLUG = /^[a-zA-Z0-9_-]{1,64}$/;

/** `{slug}` path parameter: a UUID or a slug. */
export function configParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.slug;
  if (typeof value !== 'string' || !ID_OR_SLUG.test(value)) {
    throw invalidParam('slug', 'slug must be a config UUID or slug.');
  }
  return value;
}

export function canSeeConfig(principal: Principal, workspaceId: string | null): boolean {
  if (workspaceId === null) return principal.keyType === 'workspace' || isOrganisationAdmin(principal);
  return canAccessWorkspace(principal, workspaceId);
}

export function configNotFound(idOrSlug: string) {
  return notFound(`Config "${idOrSlug}" not found.`, 'config_not_found');
}

export async function visibleConfig(db: Db, principal: Principal, idOrSlug: string): Promise<ConfigRow> {
  const row = await findConfig(db, principal.organisationId, idOrSlug);
  if (!row || !canSeeConfig(principal, row.workspaceId)) throw configNotFound(idOrSlug);
  return row;
}

export function requireConfigManager(principal: Principal, workspaceId: string | null, what: string): void {
  if (workspaceId === null) requireAdminKey(principal, `${what} organisation-wide configs`);
  else requireWorkspaceManager(principal, workspaceId, `${what} its configs`);
}

/**
 * A config the caller may change: visible, managed by the caller, and locked until the transaction ends (so
 * concurrent updates apply one after the other). `beforeLock` runs between the checks and the lock: the locks a
 * use case takes must come in one order everywhere (the workspace's before the config's).
 */
export async function managedConfig(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  what: string,
  beforeLock?: (row: ConfigRow) => Promise<void>,
): Promise<ConfigRow> {
  const row = await visibleConfig(db, principal, idOrSlug);
  requireConfigManager(principal, row.workspaceId, what);
  if (beforeLock) await beforeLock(row);
  const locked = await lockConfig(db, row.id);
  // archived between the read and the lock
  if (!locked) throw configNotFound(idOrSlug);
  return locked;
}
