/**
 * Creates a rate limits policy. Workspace keys create in their own workspace (managers only); admin keys in any
 * workspace, or organisation-wide when no workspace is named. Anything wrong leaves nothing behind (the caller's
 * transaction).
 */
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { insertRateLimitPolicy, type RateLimitPolicyRow } from '../../storage/repositories/rate-limit-policies.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import { requirePolicyManager } from './access.ts';
import { normaliseConditions } from './conditions.ts';
import type { CreateRateLimitsPolicyInput } from './inputs.ts';

export async function createRateLimitsPolicy(db: Db, principal: Principal, body: CreateRateLimitsPolicyInput): Promise<RateLimitPolicyRow> {
  if (body.organisation_id !== undefined && body.organisation_id.toLowerCase() !== principal.organisationId) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s organisation.');
  }
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  requirePolicyManager(principal, workspaceId, 'create');
  const conditions = await normaliseConditions(db, principal, body.conditions);
  return insertRateLimitPolicy(db, {
    organisationId: principal.organisationId,
    workspaceId,
    name: body.name ?? null,
    conditions,
    groupBy: body.group_by.map(({ key }) => ({ key })),
    type: body.type,
    unit: body.unit,
    value: body.value,
    // absent: the column's default (open: a rate limit protects throughput)
    ...(body.on_store_failure !== undefined ? { onStoreFailure: body.on_store_failure } : {}),
  });
}
