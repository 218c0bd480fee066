/**
 * The rules a usage limits policy's fields follow beyond their JSON shape: a limit the live counters can hold
 * exactly, whole tokens for a token budget, an alert threshold below the limit, and `workspace_id` conditions
 * stored as workspace ids (the API accepts a slug). Each broken rule is a 400 naming the field.
 */
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
import { maxCreditLimit, type BudgetType } from '../../limits/budgets-amounts.ts';
import type { PolicyConditionInput } from './inputs.ts';

/** the stored column (numeric(24, 12)) holds 12 digits before the point: a larger limit must be a 400, not a 500 */
const STORED_MAX = 999_999_999_999;

export function checkCreditLimit(creditLimit: number, type: BudgetType): void {
  const max = Math.min(maxCreditLimit(type), STORED_MAX);
  if (creditLimit > max) throw invalidParam('credit_limit', `credit_limit must be at most ${max} for a ${type} budget.`);
  if (type === 'tokens' && !Number.isInteger(creditLimit)) {
    throw invalidParam('credit_limit', 'credit_limit of a tokens budget must be a whole number of tokens.');
  }
}

export function checkAlertThreshold(alertThreshold: number | null | undefined, creditLimit: number): void {
  if (alertThreshold === undefined || alertThreshold === null) return;
  if (alertThreshold >= creditLimit) throw invalidParam('alert_threshold', 'alert_threshold must be less than credit_limit.');
}

/** The conditions as stored: a `workspace_id` value becomes the workspace's id; an unknown workspace is a 400. */
export async function normaliseConditions(
  db: Db,
  organisationId: string,
  conditions: readonly PolicyConditionInput[],
): Promise<Array<{ key: string; value: string }>> {
  const stored: Array<{ key: string; value: string }> = [];
  for (const [index, { key, value }] of conditions.entries()) {
    if (key !== 'workspace_id') {
      stored.push({ key, value });
      continue;
    }
    const workspace = await findWorkspace(db, organisationId, value);
    if (!workspace) throw invalidParam(`conditions[${index}].value`, `Workspace "${value}" not found.`, 'workspace_not_found');
    stored.push({ key, value: workspace.id });
  }
  return stored;
}
