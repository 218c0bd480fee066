/**
 * Creates a usage limits policy. Workspace keys create in their own workspace (managers only); admin keys in any
 * workspace, or organisation-wide when no workspace is named. Anything wrong leaves nothing behind (the caller's
 * transaction).
 */
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { insertUsageLimitPolicy, type UsageLimitPolicyRow } from '../../storage/repositories/usage-limit-policies.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import { requirePolicyManager } from './access.ts';
import { checkAlertThreshold, checkCreditLimit, normaliseConditions } from './definition.ts';
import type { CreateUsageLimitsPolicyInput } from './inputs.ts';

export async function createUsageLimitsPolicy(db: Db, principal: Principal, body: CreateUsageLimitsPolicyInput): Promise<UsageLimitPolicyRow> {
  if (body.organisation_id !== undefined && body.organisation_id.toLowerCase() !== principal.organisationId) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s organisation.');
  }
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  requirePolicyManager(principal, workspaceId, 'create');
  checkCreditLimit(body.credit_limit, body.type);
  checkAlertThreshold(body.alert_threshold, body.credit_limit);
  return insertUsageLimitPolicy(db, {
    organisationId: principal.organisationId,
    workspaceId,
    name: body.name ?? null,
    conditions: await normaliseConditions(db, principal.organisationId, body.conditions),
    groupBy: body.group_by.map(({ key }) => ({ key })),
    type: body.type,
    creditLimit: String(body.credit_limit),
    alertThreshold: body.alert_threshold === undefined || body.alert_threshold === null ? null : String(body.alert_threshold),
    periodicReset: body.periodic_reset ?? null,
    // absent: the column's default (closed: a budget caps money)
    ...(body.on_store_failure !== undefined ? { onStoreFailure: body.on_store_failure } : {}),
  });
}
