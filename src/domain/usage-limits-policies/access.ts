/**
 * Who sees and who changes a usage limits policy; the rules of saved guardrails and configs. A workspace policy:
 * seen by whoever may access the workspace, changed by its managers (and organisation admins). An
 * organisation-wide one (it counts the requests of every workspace): seen by organisation admins and by every
 * workspace key of the organisation, changed by admin keys only. Another workspace's policy is a 404.
 */
import { canAccessWorkspace, isOrganisationAdmin, requireAdminKey, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import { findUsageLimitPolicy, lockUsageLimitPolicy, type UsageLimitPolicyRow } from '../../storage/repositories/usage-limit-policies.ts';

/** `{policyUsageLimitsId}` path parameter: a UUID. */
export function policyParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.policyUsageLimitsId;
  if (typeof value !== 'string' || !isUuid(value)) throw invalidParam('policyUsageLimitsId', 'policyUsageLimitsId must be a UUID.');
  return value.toLowerCase();
}

/** `{entityId}` path parameter: a UUID. */
export function entityParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.entityId;
  if (typeof value !== 'string' || !isUuid(value)) throw invalidParam('entityId', 'entityId must be a UUID.');
  return value.toLowerCase();
}

export function canSeePolicy(principal: Principal, workspaceId: string | null): boolean {
  if (workspaceId === null) return principal.keyType === 'workspace' || isOrganisationAdmin(principal);
  return canAccessWorkspace(principal, workspaceId);
}

export function policyNotFound(id: string) {
  return notFound(`Usage limits policy "${id}" not found.`, 'usage_limits_policy_not_found');
}

export async function visiblePolicy(
  db: Db,
  principal: Principal,
  id: string,
  status: 'active' | 'archived' = 'active',
): Promise<UsageLimitPolicyRow> {
  const row = await findUsageLimitPolicy(db, principal.organisationId, id, status);
  if (!row || !canSeePolicy(principal, row.workspaceId)) throw policyNotFound(id);
  return row;
}

export function requirePolicyManager(principal: Principal, workspaceId: string | null, what: string): void {
  if (workspaceId === null) requireAdminKey(principal, `${what} organisation-wide usage limits policies`);
  else requireWorkspaceManager(principal, workspaceId, `${what} its usage limits policies`);
}

/** A policy the caller may change: visible, managed by the caller, and locked until the transaction ends. */
export async function managedPolicy(db: Db, principal: Principal, id: string, what: string): Promise<UsageLimitPolicyRow> {
  const row = await visiblePolicy(db, principal, id);
  requirePolicyManager(principal, row.workspaceId, what);
  const locked = await lockUsageLimitPolicy(db, row.id);
  // archived between the read and the lock
  if (!locked) throw policyNotFound(id);
  return locked;
}
