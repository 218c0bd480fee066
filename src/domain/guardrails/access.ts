/**
 * Who sees and who changes a guardrail. A workspace guardrail: seen by whoever may access the workspace, changed
 * by its managers (and organisation admins). An organisation-wide one: seen by organisation admins and by every
 * workspace key of the organisation (it may apply to their requests), changed by admin keys only. Another
 * workspace's guardrail is a 404, so its existence does not leak.
 */
import { canAccessWorkspace, isOrganisationAdmin, requireAdminKey, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findGuardrail, type GuardrailRow } from '../../storage/repositories/guardrails.ts';

const ID_OR_SLUG = /^[a-zA-Z0-9_-]{1,64}$/;

/** `{guardrailId}` path parameter: a UUID or a slug. */
export function guardrailParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.guardrailId;
  if (typeof value !== 'string' || !ID_OR_SLUG.test(value)) {
    throw invalidParam('guardrailId', 'guardrailId must be a guardrail UUID or slug.');
  }
  return value;
}

export function canSeeGuardrail(principal: Principal, workspaceId: string | null): boolean {
  if (workspaceId === null) return principal.keyType === 'workspace' || isOrganisationAdmin(principal);
  return canAccessWorkspace(principal, workspaceId);
}

export async function visibleGuardrail(db: Db, principal: Principal, idOrSlug: string): Promise<GuardrailRow> {
  const row = await findGuardrail(db, principal.organisationId, idOrSlug);
  if (!row || !canSeeGuardrail(principal, row.workspaceId)) {
    throw notFound(`Guardrail "${idOrSlug}" not found.`, 'guardrail_not_found');
  }
  return row;
}

export function requireGuardrailManager(principal: Principal, workspaceId: string | null, what: string): void {
  if (workspaceId === null) requireAdminKey(principal, `${what} organisation-wide guardrails`);
  else requireWorkspaceManager(principal, workspaceId, `${what} its guardrails`);
}

/** A guardrail the caller may change: visible, and managed by the caller. */
export async function managedGuardrail(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<GuardrailRow> {
  const row = await visibleGuardrail(db, principal, idOrSlug);
  requireGuardrailManager(principal, row.workspaceId, what);
  return row;
}

/** The acting user's id, or the API key's id when no user acted: `owner_id` and `updated_by`. */
export function actorId(principal: Principal): string {
  return principal.userId ?? principal.keyId;
}
