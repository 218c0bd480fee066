/**
 * Who sees and who changes an integration (docs/admin-api.md, Integrations):
 * - an organisation integration is seen by organisation admins, and by workspace keys of a workspace it is enabled
 *   for (they may build providers on it); it is changed by admin keys only;
 * - a workspace integration is seen by whoever may access its workspace and changed by its managers (and
 *   organisation admins).
 * Anything else is a 404, so another workspace's credentials do not even show their name.
 */
import { canAccessWorkspace, isOrganisationAdmin, requireAdminKey, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findIntegration, integrationEnabledFor, type IntegrationRow } from '../../storage/repositories/integrations.ts';

/** Also the create body's `slug` and `default_provider_slug` (api-surface §0.5). */
export const INTEGRATION_SLUG = /^[a-zA-Z0-9_-]{1,255}$/;

/** `{slug}` path parameter: the integration's UUID or slug. */
export function integrationParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.slug;
  if (typeof value !== 'string' || !INTEGRATION_SLUG.test(value)) {
    throw invalidParam('slug', 'slug must be an integration UUID or slug.');
  }
  return value;
}

export const integrationNotFound = (idOrSlug: string) => notFound(`Integration "${idOrSlug}" not found.`, 'integration_not_found');

export async function canSeeIntegration(db: Db, principal: Principal, row: IntegrationRow): Promise<boolean> {
  if (row.workspaceId !== null) return canAccessWorkspace(principal, row.workspaceId);
  if (principal.keyType === 'organisation') return isOrganisationAdmin(principal);
  return integrationEnabledFor(db, row.id, principal.workspaceId);
}

export async function visibleIntegration(db: Db, principal: Principal, idOrSlug: string): Promise<IntegrationRow> {
  const row = await findIntegration(db, principal.organisationId, idOrSlug);
  if (!row || !(await canSeeIntegration(db, principal, row))) throw integrationNotFound(idOrSlug);
  return row;
}

export function requireIntegrationManager(principal: Principal, workspaceId: string | null, what: string): void {
  if (workspaceId === null) requireAdminKey(principal, `${what} organisation integrations`);
  else requireWorkspaceManager(principal, workspaceId, `${what} its integrations`);
}

/** An integration the caller may change: visible, and managed by the caller. */
export async function managedIntegration(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<IntegrationRow> {
  const row = await visibleIntegration(db, principal, idOrSlug);
  requireIntegrationManager(principal, row.workspaceId, what);
  return row;
}
