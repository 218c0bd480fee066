/**
 * Authorisation rules of the control plane, from the seed's role and operation tables:
 * - admin keys (and organisation owners/admins) manage the organisation: settings, workspaces, users, all
 *   workspaces' resources;
 * - workspace keys manage one workspace's resources (configs, providers, analytics, feedback, its keys when they
 *   act with manager rights) and can never read or change another workspace;
 * - workspace managers create workspace keys for the workspaces they manage only; members create no keys.
 * Every admin route also requires its scope. Denials are 403 naming what is missing; a resource of another
 * workspace is a 404 so its existence does not leak.
 */
import type { Principal } from '../core/context.ts';
import { forbidden } from '../core/errors.ts';

export function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.includes(scope);
}

export function requireScope(principal: Principal, scope: string): void {
  if (!hasScope(principal, scope)) throw forbidden(`This key lacks the scope "${scope}".`, 'missing_scope');
}

/** Organisation owners and admins: admin keys acting with those roles, or users with those roles. */
export function isOrganisationAdmin(principal: Principal): boolean {
  return principal.orgRole === 'owner' || principal.orgRole === 'admin';
}

/** Admin-key operations (organisation settings, workspaces, users and permissions). */
export function requireAdminKey(principal: Principal, what: string): void {
  if (principal.keyType !== 'organisation' || !isOrganisationAdmin(principal)) {
    throw forbidden(`Only an admin API key of an organisation owner or admin can ${what}.`, 'admin_key_required');
  }
}

/** May the caller see resources of this workspace? */
export function canAccessWorkspace(principal: Principal, workspaceId: string): boolean {
  // organisation-level callers that are not owners/admins (a member's token without a workspace) see no workspace
  if (principal.keyType === 'organisation') return isOrganisationAdmin(principal);
  return principal.workspaceId === workspaceId;
}

/** Manager rights in a workspace: organisation admins, workspace service keys of it, or its managers/admins. */
export function canManageWorkspace(principal: Principal, workspaceId: string): boolean {
  if (principal.keyType === 'organisation') return isOrganisationAdmin(principal);
  if (principal.workspaceId !== workspaceId) return false;
  if (principal.subType === 'service') return true;
  if (isOrganisationAdmin(principal)) return true;
  return principal.workspaceRole === 'manager' || principal.workspaceRole === 'admin';
}

export function requireWorkspaceManager(principal: Principal, workspaceId: string, what: string): void {
  if (!canManageWorkspace(principal, workspaceId)) {
    throw forbidden(`Only a manager of this workspace (or an organisation admin) can ${what}.`, 'workspace_manager_required');
  }
}

/** A key cannot hand out scopes it does not hold itself. */
export function requireScopesWithin(principal: Principal, scopes: readonly string[]): void {
  const beyond = scopes.filter((scope) => !principal.scopes.includes(scope));
  if (beyond.length > 0) {
    throw forbidden(`A key cannot grant scopes it does not hold: ${beyond.join(', ')}.`, 'scope_escalation');
  }
}

/**
 * Membership changes ("manage users and permissions"): organisation owners/admins, and the workspace's own
 * managers acting as themselves (user keys, JWTs). A workspace service key manages resources, not people.
 */
export function requireMemberManager(principal: Principal, workspaceId: string, what: string): void {
  const managerUser = principal.subType === 'user' && principal.keyType === 'workspace' && canManageWorkspace(principal, workspaceId);
  if (!(principal.keyType === 'organisation' && isOrganisationAdmin(principal)) && !managerUser) {
    throw forbidden(`Only an organisation admin or a manager of this workspace can ${what}.`, 'workspace_manager_required');
  }
}
