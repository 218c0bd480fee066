/**
 * The usage limits policies the hot path counts against: an organisation's active policies, loaded once, compiled
 * (conditions grouped, limits in units) and held in process; a change through the admin API drops them on every
 * node over the key-value store's pub/sub (src/kv/invalidated-cache.ts).
 */
import { announceInvalidation, createInvalidatedCache } from '../kv/invalidated-cache.ts';
import type { KvStore } from '../kv/store.ts';
import type { Db } from '../storage/database.ts';
import { activeUsageLimitPolicies, type UsageLimitPolicyRow } from '../storage/repositories/usage-limit-policies.ts';
import { toUnits, type BudgetType } from './budgets-amounts.ts';
import type { PeriodicReset } from './budgets-period.ts';
import { compilePolicyMatch, readsProvider, type PolicyMatcher } from './policy-match.ts';

const CHANGED = 'usage-limits-policies.changed';

export interface UsagePolicy {
  id: string;
  /** names the policy in a 429 */
  label: string;
  organisationId: string;
  workspaceId: string | null;
  type: BudgetType;
  reset: PeriodicReset | null;
  limit: number;
  /** -1: no alert threshold */
  threshold: number;
  match: PolicyMatcher;
  /** matched only once the attempt's provider is known */
  readsProvider: boolean;
  /** the policy's own choice when the counter store cannot be reached (on_store_failure) */
  onStoreFailure: 'open' | 'closed';
}

export interface UsagePolicies {
  of(organisationId: string): Promise<readonly UsagePolicy[]>;
  /** drops this node's copies at once and tells the others */
  invalidate(): Promise<void>;
  close(): Promise<void>;
}

/** Tells every node (this one included) that a usage limits policy changed. */
export async function announceUsagePoliciesChange(kv: KvStore): Promise<void> {
  await announceInvalidation(kv, CHANGED);
}

export function compileUsagePolicy(row: UsageLimitPolicyRow): UsagePolicy {
  const type = row.type as BudgetType;
  const policy = { workspaceId: row.workspaceId, conditions: row.conditions, groupBy: row.groupBy };
  return {
    id: row.id,
    label: row.name ? `usage limits policy "${row.name}" (${row.id})` : `usage limits policy ${row.id}`,
    organisationId: row.organisationId,
    workspaceId: row.workspaceId,
    type,
    reset: row.periodicReset as PeriodicReset | null,
    limit: toUnits(row.creditLimit, type) ?? 0,
    threshold: row.alertThreshold === null ? -1 : (toUnits(row.alertThreshold, type) ?? -1),
    match: compilePolicyMatch(policy),
    readsProvider: readsProvider(policy),
    onStoreFailure: row.onStoreFailure === 'open' ? 'open' : 'closed',
  };
}

const NONE: readonly UsagePolicy[] = Object.freeze([]);

export async function createUsagePolicies(db: Db, kv: KvStore, options: { ttlMs?: number } = {}): Promise<UsagePolicies> {
  const cache = await createInvalidatedCache<readonly UsagePolicy[]>(kv, CHANGED, options);
  return {
    of: (organisationId) =>
      cache.get(organisationId, async () => {
        const rows = await activeUsageLimitPolicies(db, organisationId);
        return rows.length === 0 ? NONE : rows.map(compileUsagePolicy);
      }),
    invalidate: () => cache.invalidate(),
    close: () => cache.close(),
  };
}
