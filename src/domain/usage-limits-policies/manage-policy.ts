/**
 * Changes to a usage limits policy the caller manages: update, delete (archive), and zeroing one entity's usage.
 * A zeroed counter is reset in the key-value store inside the caller's transaction, last: the live counter is
 * what every node counts against, so a failure there leaves the stored row unchanged too.
 */
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import { createBudgetCounters } from '../../limits/budgets-counters.ts';
import type { BudgetType } from '../../limits/budgets-amounts.ts';
import type { KvStore } from '../../kv/store.ts';
import type { Db } from '../../storage/database.ts';
import {
  findUsageLimitEntity,
  resetUsageLimitEntity,
  restatusUsageLimitEntities,
  updateUsageLimitPolicyRow,
  type UsageLimitEntityRow,
  type UsageLimitPolicyRow,
} from '../../storage/repositories/usage-limit-policies.ts';
import { managedPolicy, policyNotFound } from './access.ts';
import { policyCounter } from './entity-usage.ts';
import { checkAlertThreshold, checkCreditLimit } from './definition.ts';
import type { UpdateUsageLimitsPolicyInput } from './inputs.ts';

async function zeroUsage(db: Db, kv: KvStore, policy: UsageLimitPolicyRow, valueKey: string, now: Date): Promise<void> {
  await resetUsageLimitEntity(db, policy.id, valueKey);
  await createBudgetCounters(kv).reset(policyCounter(policy, valueKey, now));
}

export async function updatePolicy(
  db: Db,
  kv: KvStore,
  principal: Principal,
  id: string,
  body: UpdateUsageLimitsPolicyInput,
  now: Date,
): Promise<UsageLimitPolicyRow> {
  const row = await managedPolicy(db, principal, id, 'update');
  const type = row.type as BudgetType;
  const creditLimit = body.credit_limit ?? Number(row.creditLimit);
  if (body.credit_limit !== undefined) checkCreditLimit(body.credit_limit, type);
  const alertThreshold = body.alert_threshold !== undefined ? body.alert_threshold : row.alertThreshold === null ? null : Number(row.alertThreshold);
  if (body.alert_threshold === undefined && alertThreshold !== null && alertThreshold >= creditLimit) {
    throw invalidParam('credit_limit', 'credit_limit must stay above the policy\'s alert_threshold (or change alert_threshold too).');
  }
  checkAlertThreshold(alertThreshold, creditLimit);
  const resetting = body.reset_usage_for_value !== undefined;
  const updated = await updateUsageLimitPolicyRow(db, row.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.credit_limit !== undefined ? { creditLimit: String(body.credit_limit) } : {}),
    ...(body.alert_threshold !== undefined ? { alertThreshold: body.alert_threshold === null ? null : String(body.alert_threshold) } : {}),
    ...(body.periodic_reset !== undefined ? { periodicReset: body.periodic_reset } : {}),
    ...(body.on_store_failure !== undefined ? { onStoreFailure: body.on_store_failure } : {}),
    ...(resetting ? { lastResetAt: now } : {}),
  });
  if (!updated) throw policyNotFound(id);
  // a raised limit makes an exhausted entity active again (and a lowered one may exhaust it)
  if (body.credit_limit !== undefined) await restatusUsageLimitEntities(db, updated.id, updated.creditLimit);
  if (body.reset_usage_for_value !== undefined) await zeroUsage(db, kv, updated, body.reset_usage_for_value, now);
  return updated;
}

/** DELETE archives (api-surface: policies are soft-deleted): the policy stops counting and is listed as archived. */
export async function deletePolicy(db: Db, principal: Principal, id: string): Promise<UsageLimitPolicyRow> {
  const row = await managedPolicy(db, principal, id, 'delete');
  const archived = await updateUsageLimitPolicyRow(db, row.id, { status: 'archived' });
  if (!archived) throw policyNotFound(id);
  return archived;
}

/** PUT .../entities/{entityId}/reset: that value key starts from zero. */
export async function resetEntity(
  db: Db,
  kv: KvStore,
  principal: Principal,
  policyId: string,
  entityId: string,
  now: Date,
): Promise<{ policy: UsageLimitPolicyRow; entity: UsageLimitEntityRow }> {
  const policy = await managedPolicy(db, principal, policyId, 'reset the usage of');
  const entity = await findUsageLimitEntity(db, policy.id, entityId);
  if (!entity) throw notFound(`Entity "${entityId}" of usage limits policy "${policyId}" not found.`, 'usage_limits_entity_not_found');
  await updateUsageLimitPolicyRow(db, policy.id, { lastResetAt: now });
  await zeroUsage(db, kv, policy, entity.valueKey, now);
  return { policy, entity };
}
