/** Usage limits policies as the admin API shows them (api-surface §3.18 UsageLimitsPolicy, entities). */
import { nextPeriodStart, type PeriodicReset } from '../../limits/budgets-period.ts';
import type { UsageLimitPolicyRow } from '../../storage/repositories/usage-limit-policies.ts';

export const POLICY_OBJECT = 'usage_limits_policy';

/** One entity's usage in the current window, live (the counters) where known, else as last stored. */
export interface EntityUsageView {
  id: string;
  valueKey: string;
  currentUsage: number;
  status: 'active' | 'exhausted';
  thresholdAlerted: boolean;
  exhaustedAlerted: boolean;
}

const optionalNumber = (value: string | null) => (value === null ? null : Number(value));

export function policyView(row: UsageLimitPolicyRow, now: Date) {
  const reset = row.periodicReset as PeriodicReset | null;
  return {
    id: row.id,
    name: row.name,
    conditions: row.conditions,
    group_by: row.groupBy,
    type: row.type,
    credit_limit: Number(row.creditLimit),
    alert_threshold: optionalNumber(row.alertThreshold),
    periodic_reset: reset,
    periodic_reset_days: row.periodicResetDays,
    // windows are calendar weeks and months (src/limits/budgets-period.ts): the next one is known, never stored
    next_usage_reset_at: row.status === 'active' ? (nextPeriodStart(now, reset)?.toISOString() ?? null) : null,
    last_reset_at: row.lastResetAt?.toISOString() ?? null,
    /** what a node does while the counter store cannot be reached (closed: 503; open: let through) */
    on_store_failure: row.onStoreFailure,
    status: row.status,
    workspace_id: row.workspaceId,
    organisation_id: row.organisationId,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
  };
}

/** GET with include_usage: the policy and each entity's usage, keyed by value key. */
export function policyWithUsageView(row: UsageLimitPolicyRow, now: Date, entities: readonly EntityUsageView[]) {
  const map: Record<string, { current_usage: number; status: string; is_threshold_alerts_sent: boolean; is_exhausted_alerts_sent: boolean }> = {};
  for (const entity of entities) {
    map[entity.valueKey] = {
      current_usage: entity.currentUsage,
      status: entity.status,
      is_threshold_alerts_sent: entity.thresholdAlerted,
      is_exhausted_alerts_sent: entity.exhaustedAlerted,
    };
  }
  return { ...policyView(row, now), value_key_usage_map: map };
}

export function entityView(entity: EntityUsageView) {
  return { id: entity.id, value_key: entity.valueKey, current_usage: entity.currentUsage, status: entity.status };
}
