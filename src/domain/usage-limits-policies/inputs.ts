/**
 * What the usage limits policy use cases take, with the admin API's field names (api-surface §3.18). The
 * transport's schemas (src/http/admin/usage-limits-policies/schemas.ts) are checked against these types at compile
 * time.
 */

export interface PolicyConditionInput {
  key: string;
  value: string;
}

export interface PolicyGroupByInput {
  key: string;
}

export type UsageLimitType = 'cost' | 'tokens';
export type PeriodicReset = 'weekly' | 'monthly';
/** what a node does with the policy while the counter store (Redis) cannot be reached */
export type StoreFailureMode = 'open' | 'closed';

export interface CreateUsageLimitsPolicyInput {
  name?: string | null;
  conditions: readonly PolicyConditionInput[];
  group_by: readonly PolicyGroupByInput[];
  type: UsageLimitType;
  /** USD for `cost`, tokens for `tokens` */
  credit_limit: number;
  alert_threshold?: number | null;
  /** absent or null: cumulative (never reset) */
  periodic_reset?: PeriodicReset | null;
  /** absent: `closed` (a budget caps money: refused with 503 while its counter cannot be read) */
  on_store_failure?: StoreFailureMode;
  /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
  workspace_id?: string;
  /** when given, the caller's own organisation */
  organisation_id?: string;
}

export interface UpdateUsageLimitsPolicyInput {
  name?: string | null;
  credit_limit?: number;
  alert_threshold?: number | null;
  /** null removes the reset: the policy becomes cumulative */
  periodic_reset?: PeriodicReset | null;
  on_store_failure?: StoreFailureMode;
  /** zeroes the counter of one value key (`metadata._user:ada`) */
  reset_usage_for_value?: string;
}

export interface ListUsageLimitsPoliciesInput {
  /** a workspace id or slug: only that workspace's policies */
  workspace?: string | undefined;
  status: 'active' | 'archived';
  type?: UsageLimitType | undefined;
}

export interface ListEntitiesInput {
  status?: 'active' | 'exhausted' | undefined;
  /** part of a value key */
  search?: string | undefined;
}
