/**
 * The budgets a request counts against, each as one BudgetLimit: the organisation's usage limits policies that
 * match it (policy-match.ts: one budget per value key), and the inline `usage_limits` of its API key, its workspace
 * and the saved provider its attempt goes through (§0.7 UsageLimits: one object, or an array of at most one).
 */
import { toUnits, MAX_LIMIT_UNITS, type BudgetType } from './budgets-amounts.ts';
import type { BudgetOwner } from './budgets-keys.ts';
import type { PeriodicReset } from './budgets-period.ts';
import type { UsagePolicy } from './budgets-policies.ts';
import type { RequestFacts } from './policy-match.ts';

export type BudgetSource = 'policy' | 'api_key' | 'workspace' | 'provider';

/** What a node does with a budget when the counter store cannot be reached (docs/decisions.md). */
export type StoreFailureMode = 'open' | 'closed';

/**
 * Budgets refuse requests while Redis is unreachable: a budget caps money, and nobody can tell whether it is spent
 * without its counter. (Rate limits, which protect throughput, let requests through instead.) Counted in
 * `gateway_budget_store_failures_total`; a policy field can override it once the schema has one.
 */
export const DEFAULT_BUDGET_STORE_FAILURE: StoreFailureMode = 'closed';

export interface BudgetLimit {
  owner: BudgetOwner;
  source: BudgetSource;
  /** names the budget in a refusal and in its alerts */
  label: string;
  type: BudgetType;
  reset: PeriodicReset | null;
  /** units (budgets-amounts.ts) */
  limit: number;
  /** units; -1 for none */
  threshold: number;
  onStoreFailure: StoreFailureMode;
  organisationId: string;
  /** the workspace the budget belongs to (a policy's, the key's, the provider's); null for organisation-wide */
  workspaceId: string | null;
}

export function policyBudgets(policies: readonly UsagePolicy[], facts: RequestFacts): BudgetLimit[] {
  const budgets: BudgetLimit[] = [];
  for (const policy of policies) {
    const valueKey = policy.match(facts);
    if (valueKey === undefined) continue;
    budgets.push({
      owner: { kind: 'policy', policyId: policy.id, valueKey },
      source: 'policy',
      label: `${policy.label} for ${valueKey}`,
      type: policy.type,
      reset: policy.reset,
      limit: policy.limit,
      threshold: policy.threshold,
      onStoreFailure: policy.onStoreFailure,
      organisationId: policy.organisationId,
      workspaceId: policy.workspaceId,
    });
  }
  return budgets;
}

/** An inline budget as stored, read into units; undefined when it sets no credit limit. */
export interface InlineBudget {
  type: BudgetType;
  reset: PeriodicReset | null;
  limit: number;
  threshold: number;
}

const parsed = new WeakMap<object, InlineBudget | null>();

function readInline(value: unknown): InlineBudget | null {
  const stored = Array.isArray(value) ? value[0] : value;
  if (typeof stored !== 'object' || stored === null) return null;
  const fields = stored as Record<string, unknown>;
  // the reference's default type is cost (a provider's spend)
  const type: BudgetType = fields.type === 'tokens' ? 'tokens' : 'cost';
  const limit = typeof fields.credit_limit === 'number' ? toUnits(fields.credit_limit, type) : undefined;
  if (limit === undefined || limit > MAX_LIMIT_UNITS) return null;
  const threshold = typeof fields.alert_threshold === 'number' ? toUnits(fields.alert_threshold, type) : undefined;
  const reset = fields.periodic_reset === 'weekly' || fields.periodic_reset === 'monthly' ? fields.periodic_reset : null;
  return { type, reset, limit, threshold: threshold === undefined || threshold >= limit ? -1 : threshold };
}

/** Parsed once per stored value (the records are held in process and never mutated). */
export function inlineBudget(value: unknown): InlineBudget | null {
  if (typeof value !== 'object' || value === null) return null;
  let result = parsed.get(value);
  if (result === undefined) {
    result = readInline(value);
    parsed.set(value, result);
  }
  return result;
}

const OWNER_NAME: Record<Exclude<BudgetSource, 'policy'>, string> = { api_key: 'API key', workspace: 'workspace', provider: 'provider' };

export function inlineLimit(
  owner: Exclude<BudgetOwner, { kind: 'policy' }>,
  budget: InlineBudget,
  where: { organisationId: string; workspaceId: string | null; name: string },
): BudgetLimit {
  return {
    owner,
    source: owner.kind,
    label: `the usage limit (usage_limits) of ${OWNER_NAME[owner.kind]} ${where.name}`,
    type: budget.type,
    reset: budget.reset,
    limit: budget.limit,
    threshold: budget.threshold,
    onStoreFailure: DEFAULT_BUDGET_STORE_FAILURE,
    organisationId: where.organisationId,
    workspaceId: where.workspaceId,
  };
}
