/**
 * The Usage Limits Policies group (api-surface §3.18): POST|GET /policies/usage-limits, GET|PUT|DELETE
 * /policies/usage-limits/{id}, GET .../{id}/entities and PUT .../{id}/entities/{entityId}/reset. Every change
 * drops the policies every node holds in process (this node at once, the others over pub/sub).
 */
import type { FastifyInstance } from 'fastify';
import { entityParam, policyParam } from '../../../domain/usage-limits-policies/access.ts';
import { createUsageLimitsPolicy } from '../../../domain/usage-limits-policies/create-policy.ts';
import { deletePolicy, resetEntity, updatePolicy } from '../../../domain/usage-limits-policies/manage-policy.ts';
import { listEntitiesFor, listPoliciesFor, readPolicy } from '../../../domain/usage-limits-policies/read-policies.ts';
import { POLICY_OBJECT, entityView, policyView, policyWithUsageView } from '../../../domain/usage-limits-policies/views.ts';
import { announceUsagePoliciesChange } from '../../../limits/budgets-policies.ts';
import { invalidParam } from '../../../core/errors.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalString, pageParams } from '../params.ts';
import { validateCreateUsageLimitsPolicy, validateResetUsageLimitsEntity, validateUpdateUsageLimitsPolicy } from './schemas.ts';

const RESOURCE = 'usage_limits_policy';
const SCOPE = 'usage_limits_policies';
const BASE = '/v1/policies/usage-limits';

/** `include_usage=true|false` */
function includeUsage(query: unknown): boolean {
  const value = optionalString(query, 'include_usage');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidParam('include_usage', 'include_usage must be true or false.');
}

export function registerUsageLimitsPolicyRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const changed = () => (deps.usagePolicies ? deps.usagePolicies.invalidate() : announceUsagePoliciesChange(deps.kv));
  const route = (action: string, mutation: boolean) => ({ action: `${SCOPE}.${action}`, resourceType: RESOURCE, scope: `${SCOPE}.${action}`, mutation });

  app.post(BASE, adminRoute(deps, route('create', true), async (ctx) => {
    const row = await createUsageLimitsPolicy(ctx.db, ctx.principal, validateCreateUsageLimitsPolicy(ctx.request.body));
    return { body: { id: row.id, object: POLICY_OBJECT }, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.get(BASE, adminRoute(deps, route('list', false), async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 50, maxSize: 100 });
    const filter = {
      workspace: optionalString(query, 'workspace_id'),
      status: optionalEnum(query, 'status', ['active', 'archived'] as const) ?? 'active',
      type: optionalEnum(query, 'type', ['cost', 'tokens'] as const),
    };
    const { total, rows } = await listPoliciesFor(ctx.db, ctx.principal, filter, page);
    const now = deps.now();
    return { body: listBody(total, rows.map((row) => ({ ...policyView(row, now), object: POLICY_OBJECT }))) };
  }));

  app.get(`${BASE}/:policyUsageLimitsId`, adminRoute(deps, route('read', false), async (ctx) => {
    const id = policyParam(ctx.request.params);
    const query = ctx.request.query;
    const options = {
      status: optionalEnum(query, 'status', ['active', 'archived'] as const) ?? 'active',
      includeUsage: includeUsage(query),
      now: deps.now(),
    };
    const { policy, entities } = await readPolicy(ctx.db, deps.kv, ctx.principal, id, options);
    const view = entities ? policyWithUsageView(policy, options.now, entities) : policyView(policy, options.now);
    return { body: { ...view, object: POLICY_OBJECT }, resourceId: policy.id, workspaceId: policy.workspaceId };
  }));

  app.put(`${BASE}/:policyUsageLimitsId`, adminRoute(deps, route('update', true), async (ctx) => {
    const id = policyParam(ctx.request.params);
    const body = validateUpdateUsageLimitsPolicy(ctx.request.body);
    const row = await updatePolicy(ctx.db, deps.kv, ctx.principal, id, body, deps.now());
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.delete(`${BASE}/:policyUsageLimitsId`, adminRoute(deps, route('delete', true), async (ctx) => {
    const row = await deletePolicy(ctx.db, ctx.principal, policyParam(ctx.request.params));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  // reading a policy's entities is reading the policy
  app.get(`${BASE}/:policyUsageLimitsId/entities`, adminRoute(deps, route('read', false), async (ctx) => {
    const id = policyParam(ctx.request.params);
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 50, maxSize: 100 });
    const filter = { status: optionalEnum(query, 'status', ['active', 'exhausted'] as const), search: optionalString(query, 'search', 2048) };
    const { policy, total, entities } = await listEntitiesFor(ctx.db, deps.kv, ctx.principal, id, filter, page, deps.now());
    return { body: listBody(total, entities.map(entityView)), resourceId: policy.id, workspaceId: policy.workspaceId };
  }));

  // resetting an entity changes the policy's usage: it takes the update scope
  app.put(`${BASE}/:policyUsageLimitsId/entities/:entityId/reset`, adminRoute(deps, { ...route('update', true), action: `${SCOPE}.reset_entity` }, async (ctx) => {
    const policyId = policyParam(ctx.request.params);
    const entityId = entityParam(ctx.request.params);
    validateResetUsageLimitsEntity(ctx.request.body);
    const { policy } = await resetEntity(ctx.db, deps.kv, ctx.principal, policyId, entityId, deps.now());
    return { body: {}, resourceId: policy.id, workspaceId: policy.workspaceId };
  }));
}
