/**
 * Who sees and who changes a rate limits policy (the guardrails' rule): a workspace's policy is seen by whoever may
 * access the workspace and changed by its managers (and organisation admins); an organisation-wide one is seen by
 * organisation admins and by every workspace key of the organisation (it counts their requests), and changed by
 * admin keys only. Another workspace's policy is a 404, so its existence does not leak.
 */
import { canAccessWorkspace, isOrganisationAdmin, requireAdminKey, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findRateLimitPolicy, type RateLimitPolicyRow, type RateLimitPolicyStatus } from '../../storage/repositories/rate-limit-policies.ts';

export function canSeePolicy(principal: Principal, workspaceId: string | null): boolean {
  if (workspaceId === null) return principal.keyType === 'workspace' || isOrganisationAdmin(principal);
  return canAccessWorkspace(principal, workspaceId);
}

export function policyNotFound(id: string) {
  return notFound(`Rate limits policy "${id}" not found.`, 'rate_limits_policy_not_found');
}

export async function visiblePolicy(db: Db, principal: Principal, id: string, status: RateLimitPolicyStatus = 'active'): Promise<RateLimitPolicyRow> {
  const row = await findRateLimitPolicy(db, principal.organisationId, id, status);
  if (!row || !canSeePolicy(principal, row.workspaceId)) throw policyNotFound(id);
  return row;
}

export function requirePolicyManager(principal: Principal, workspaceId: string | null, what: string): void {
  if (workspaceId === null) requireAdminKey(principal, `${what} organisation-wide rate limits policies`);
  else requireWorkspaceManager(principal, workspaceId, `${what} its rate limits policies`);
}

/** An active policy the caller may change: visible, and managed by the caller. */
export async function managedPolicy(db: Db, principal: Principal, id: string, what: string): Promise<RateLimitPolicyRow> {
  const row = await visiblePolicy(db, principal, id);
  requirePolicyManager(principal, row.workspaceId, what);
  return row;
}
