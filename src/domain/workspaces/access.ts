/** Loading a workspace the caller may see: another workspace is a 404 to a workspace key, so its existence does not leak. */
import { canAccessWorkspace, requireMemberManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findWorkspace, type WorkspaceRow } from '../../storage/repositories/workspaces.ts';

const ID_OR_SLUG = /^[a-zA-Z0-9_-]{1,64}$/;

/** `{workspaceId}` path parameter: a UUID or a slug (a UUID matches the slug alphabet too). */
export function workspaceParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.workspaceId;
  if (typeof value !== 'string' || !ID_OR_SLUG.test(value)) {
    throw invalidParam('workspaceId', 'workspaceId must be a workspace UUID or slug.');
  }
  return value;
}

export async function visibleWorkspace(db: Db, principal: Principal, idOrSlug: string): Promise<WorkspaceRow> {
  const workspace = await findWorkspace(db, principal.organisationId, idOrSlug);
  if (!workspace || !canAccessWorkspace(principal, workspace.id)) {
    throw notFound(`Workspace "${idOrSlug}" not found.`, 'workspace_not_found');
  }
  return workspace;
}

/** A workspace whose members the caller may change: organisation owners/admins and the workspace's managers. */
export async function managedWorkspace(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<WorkspaceRow> {
  const workspace = await visibleWorkspace(db, principal, idOrSlug);
  requireMemberManager(principal, workspace.id, what);
  return workspace;
}

/**
 * The workspace a new workspace-scoped resource (guardrail, config) goes to: the named one (id or slug; a workspace
 * key may name its own only, another is a 404), else the caller's for a workspace key, else null (organisation-wide).
 * Whether the caller may create there is the use case's check.
 */
export async function targetWorkspace(db: Db, principal: Principal, workspaceParam: string | undefined): Promise<string | null> {
  if (workspaceParam === undefined) return principal.keyType === 'workspace' ? principal.workspaceId : null;
  const workspace = await findWorkspace(db, principal.organisationId, workspaceParam);
  if (!workspace || (principal.keyType === 'workspace' && workspace.id !== principal.workspaceId)) {
    throw notFound(`Workspace "${workspaceParam}" not found.`, 'workspace_not_found');
  }
  return workspace.id;
}
