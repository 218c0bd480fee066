/**
 * What the rate limits policy use cases take, with the admin API's field names (§3.19; the transport's schemas
 * are checked against these types at compile time, in src/http/admin/rate-limits-policies/schemas.ts).
 */
import type { PolicyCondition, PolicyGroupBy } from '../../limits/policy-match.ts';
import type { StoreFailureMode } from '../../limits/rate-limit-rules.ts';

export type RateLimitType = 'requests' | 'tokens';
export type PolicyUnit = 'rpm' | 'rph' | 'rpd';

export interface CreateRateLimitsPolicyInput {
  name?: string;
  /** at least one; keys: api_key, organisation_id, workspace_id, provider, metadata.<name> */
  conditions: readonly PolicyCondition[];
  /** at least one, same keys */
  group_by: readonly PolicyGroupBy[];
  type: RateLimitType;
  unit: PolicyUnit;
  /** a positive number */
  value: number;
  /** when the counter store (Redis) cannot be reached: `open` (the default) lets requests through, `closed` refuses them (503) */
  on_store_failure?: StoreFailureMode;
  /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
  workspace_id?: string;
  /** when given, the caller's own organisation */
  organisation_id?: string;
}

/** The seed's PUT: every field optional; `{}` changes nothing. */
export interface UpdateRateLimitsPolicyInput {
  name?: string;
  unit?: PolicyUnit;
  value?: number;
  /** beyond the seed's three fields: the policy's choice when the counter store cannot be reached */
  on_store_failure?: StoreFailureMode;
}

export interface ListRateLimitsPoliciesInput {
  /** a workspace id or slug: only that workspace's policies */
  workspace?: string | undefined;
  status: 'active' | 'archived';
  type?: RateLimitType | undefined;
  unit?: PolicyUnit | undefined;
}
