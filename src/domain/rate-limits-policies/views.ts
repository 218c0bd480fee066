/** Rate limits policies as the admin API shows them (api-surface §3.19 RateLimitsPolicy). */
import type { RateLimitPolicyRow } from '../../storage/repositories/rate-limit-policies.ts';

export const POLICY_OBJECT = 'rate_limits_policy';

export function rateLimitsPolicyView(row: RateLimitPolicyRow) {
  return {
    id: row.id,
    name: row.name,
    conditions: row.conditions,
    group_by: row.groupBy,
    type: row.type,
    unit: row.unit,
    value: row.value,
    /** what a node does while the counter store cannot be reached (open: let through; closed: 503) */
    on_store_failure: row.onStoreFailure,
    status: row.status,
    /** null: organisation-wide */
    workspace_id: row.workspaceId,
    organisation_id: row.organisationId,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    object: POLICY_OBJECT,
  };
}

export function rateLimitsPolicyCreatedView(row: RateLimitPolicyRow) {
  return { id: row.id, object: POLICY_OBJECT };
}
