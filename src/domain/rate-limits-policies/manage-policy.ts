/** Reads, updates and deletes (archives) rate limits policies, each under the access rule of access.ts. */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import {
  listRateLimitPolicies,
  updateRateLimitPolicyRow,
  type RateLimitPolicyRow,
} from '../../storage/repositories/rate-limit-policies.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { managedPolicy, policyNotFound } from './access.ts';
import type { ListRateLimitsPoliciesInput, UpdateRateLimitsPolicyInput } from './inputs.ts';

export async function listRateLimitsPoliciesFor(
  db: Db,
  principal: Principal,
  filter: ListRateLimitsPoliciesInput,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: RateLimitPolicyRow[] }> {
  const workspaceId = filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
  // organisation-level callers that are not admins see no workspace, and no organisation-wide policy either
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return { total: 0, rows: [] };
  return listRateLimitPolicies(db, {
    organisationId: principal.organisationId,
    status: filter.status,
    workspaceId,
    visibleToWorkspace: principal.keyType === 'workspace' ? principal.workspaceId : undefined,
    type: filter.type,
    unit: filter.unit,
  }, page);
}

/**
 * The seed's PUT: changes what it names (`{}` changes nothing, and still answers 200 for a policy the caller
 * manages). The policy's type, conditions and group_by are fixed once created.
 */
export async function updateRateLimitsPolicy(db: Db, principal: Principal, id: string, body: UpdateRateLimitsPolicyInput): Promise<RateLimitPolicyRow> {
  const row = await managedPolicy(db, principal, id, 'update');
  const updated = await updateRateLimitPolicyRow(db, row.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.unit !== undefined ? { unit: body.unit } : {}),
    ...(body.value !== undefined ? { value: body.value } : {}),
    ...(body.on_store_failure !== undefined ? { onStoreFailure: body.on_store_failure } : {}),
  });
  if (!updated) throw policyNotFound(id);
  return updated;
}

/** DELETE archives (api-surface §6.6): the policy stops counting at once, and is read back only with `status=archived`. */
export async function deleteRateLimitsPolicy(db: Db, principal: Principal, id: string): Promise<RateLimitPolicyRow> {
  const row = await managedPolicy(db, principal, id, 'delete');
  const archived = await updateRateLimitPolicyRow(db, row.id, { status: 'archived' });
  if (!archived) throw policyNotFound(id);
  return archived;
}
