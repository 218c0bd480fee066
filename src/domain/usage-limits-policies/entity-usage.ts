/**
 * An entity's usage as the admin API reports it: the live counter of the current window when it exists (the
 * truth every node counts against), else the usage last stored by the budgets' writer when it is of the current
 * window, else 0 (a new window). The stored row lags the counter by at most one write interval.
 */
import { toUnits, unitsAsNumber, type BudgetType } from '../../limits/budgets-amounts.ts';
import { createBudgetCounters } from '../../limits/budgets-counters.ts';
import { currentWindow } from '../../limits/budgets-keys.ts';
import { isCurrentPeriod, type PeriodicReset } from '../../limits/budgets-period.ts';
import type { KvStore } from '../../kv/store.ts';
import type { UsageLimitEntityRow, UsageLimitPolicyRow } from '../../storage/repositories/usage-limit-policies.ts';
import type { EntityUsageView } from './views.ts';

export function policyCounter(policy: UsageLimitPolicyRow, valueKey: string, now: Date): string {
  return currentWindow({ kind: 'policy', policyId: policy.id, valueKey }, policy.periodicReset as PeriodicReset | null, now).counter;
}

export async function entityUsages(
  kv: KvStore,
  policy: UsageLimitPolicyRow,
  entities: readonly UsageLimitEntityRow[],
  now: Date,
): Promise<EntityUsageView[]> {
  const type = policy.type as BudgetType;
  const reset = policy.periodicReset as PeriodicReset | null;
  const limit = toUnits(policy.creditLimit, type) ?? 0;
  const live = await createBudgetCounters(kv).read(entities.map((entity) => policyCounter(policy, entity.valueKey, now)));
  return entities.map((entity, index) => {
    const counter = live[index]!;
    const current = isCurrentPeriod(entity.periodStart, now, reset);
    const stored = current ? (toUnits(entity.currentUsage, type) ?? 0) : 0;
    const used = counter.used >= 0 ? counter.used : stored;
    return {
      id: entity.id,
      valueKey: entity.valueKey,
      currentUsage: unitsAsNumber(used, type),
      status: used >= limit ? 'exhausted' : 'active',
      thresholdAlerted: counter.used >= 0 ? counter.thresholdAlerted >= 0 : current && entity.thresholdAlertedAt !== null,
      exhaustedAlerted: counter.used >= 0 ? counter.exhaustedAt >= 0 : current && entity.exhaustedAlertedAt !== null,
    };
  });
}
