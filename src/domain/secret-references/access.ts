/**
 * Who sees and who changes a secret reference. Writes: admin keys only (an organisation owner's or admin's): a
 * reference can point any workspace at a credential. Reads: admin keys see every reference of the organisation; a
 * workspace key sees the references its workspace may use (allow_all_workspaces, or listed in
 * allowed_workspaces), and nothing else: another reference is a 404, so its existence does not leak. Neither sees
 * a value.
 */
import { isOrganisationAdmin, requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findSecretReference, type SecretReferenceRow } from '../../storage/repositories/secret-references.ts';

const ID_OR_SLUG = /^[a-zA-Z0-9_-]{1,255}$/;

/** `{secretReferenceId}` path parameter: a UUID or a slug. */
export function secretReferenceParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.secretReferenceId;
  if (typeof value !== 'string' || !ID_OR_SLUG.test(value)) {
    throw invalidParam('secretReferenceId', 'secretReferenceId must be a secret reference UUID or slug.');
  }
  return value;
}

/** May a request of this workspace use the reference? */
export function usableByWorkspace(row: Pick<SecretReferenceRow, 'allowAllWorkspaces' | 'allowedWorkspaces'>, workspaceId: string): boolean {
  return row.allowAllWorkspaces || row.allowedWorkspaces.includes(workspaceId);
}

/** The workspace whose usable references the caller sees, `'all'` for admins, or undefined for no reference at all. */
export function visibleScope(principal: Principal): 'all' | { workspaceId: string } | undefined {
  if (principal.keyType === 'workspace') return { workspaceId: principal.workspaceId };
  return isOrganisationAdmin(principal) ? 'all' : undefined;
}

export async function visibleSecretReference(db: Db, principal: Principal, idOrSlug: string): Promise<SecretReferenceRow> {
  const row = await findSecretReference(db, principal.organisationId, idOrSlug);
  const scope = visibleScope(principal);
  const visible = row !== undefined && scope !== undefined && (scope === 'all' || usableByWorkspace(row, scope.workspaceId));
  if (!visible) throw notFound(`Secret reference "${idOrSlug}" not found.`, 'secret_reference_not_found');
  return row;
}

export function requireSecretReferenceAdmin(principal: Principal, what: string): void {
  requireAdminKey(principal, `${what} secret references`);
}

/** A reference the caller may change: an admin key's, of its organisation. */
export async function managedSecretReference(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<SecretReferenceRow> {
  requireSecretReferenceAdmin(principal, what);
  return visibleSecretReference(db, principal, idOrSlug);
}

/** The acting user's id, or the API key's id when no user acted: `created_by`. */
export function actorId(principal: Principal): string {
  return principal.userId ?? principal.keyId;
}
