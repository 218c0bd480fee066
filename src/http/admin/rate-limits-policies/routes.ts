/**
 * The Rate limits policies group (§3.19): POST|GET /policies/rate-limits, GET|PUT|DELETE
 * /policies/rate-limits/{rateLimitsPolicyId} (which also shows the current window's counts: policy-usage.ts). The PUT is the seed's: 200 `{}`; 400 for a path id that is not a
 * UUID or a malformed body; 401 without a valid key; 403 without the scope or the right; 404 for an unknown id;
 * 500 when the store fails, with nothing written (the route's transaction). Every change reaches every node's
 * policies in process at once (pub/sub).
 */
import type { FastifyInstance } from 'fastify';
import { announceRateLimitsPolicyChange } from '../../../domain/rate-limits-policies/active-policies.ts';
import { visiblePolicy } from '../../../domain/rate-limits-policies/access.ts';
import { createRateLimitsPolicy } from '../../../domain/rate-limits-policies/create-policy.ts';
import { deleteRateLimitsPolicy, listRateLimitsPoliciesFor, updateRateLimitsPolicy } from '../../../domain/rate-limits-policies/manage-policy.ts';
import { rateLimitsPolicyUsage } from '../../../domain/rate-limits-policies/policy-usage.ts';
import { rateLimitsPolicyCreatedView, rateLimitsPolicyView } from '../../../domain/rate-limits-policies/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalString, pageParams, uuidParam } from '../params.ts';
import { POLICY_STATUSES, POLICY_TYPES, POLICY_UNITS, validateCreateRateLimitsPolicy, validateUpdateRateLimitsPolicy } from './schemas.ts';

const RESOURCE = 'rate_limits_policy';
const ID = 'rateLimitsPolicyId';

export function registerRateLimitsPolicyRoutes(app: FastifyInstance, deps: AdminDeps): void {
  // the change is committed: a lost announcement must not turn it into an error (the cache's TTL bounds its effect)
  const changed = () => announceRateLimitsPolicyChange(deps.kv).catch((error: unknown) => {
    app.log.warn({ err: error }, 'rate limits policies: the change could not be announced to the other nodes');
  });

  app.post('/v1/policies/rate-limits', adminRoute(deps, { action: 'rate_limits_policies.create', resourceType: RESOURCE, scope: 'rate_limits_policies.create', mutation: true }, async (ctx) => {
    const body = validateCreateRateLimitsPolicy(ctx.request.body);
    const row = await createRateLimitsPolicy(ctx.db, ctx.principal, body);
    return { body: rateLimitsPolicyCreatedView(row), resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.get('/v1/policies/rate-limits', adminRoute(deps, { action: 'rate_limits_policies.list', resourceType: RESOURCE, scope: 'rate_limits_policies.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 50, maxSize: 100 });
    const filter = {
      workspace: optionalString(query, 'workspace_id'),
      status: optionalEnum(query, 'status', POLICY_STATUSES) ?? 'active',
      type: optionalEnum(query, 'type', POLICY_TYPES),
      unit: optionalEnum(query, 'unit', POLICY_UNITS),
    };
    const { total, rows } = await listRateLimitsPoliciesFor(ctx.db, ctx.principal, filter, page);
    return { body: listBody(total, rows.map(rateLimitsPolicyView)) };
  }));

  app.get('/v1/policies/rate-limits/:rateLimitsPolicyId', adminRoute(deps, { action: 'rate_limits_policies.read', resourceType: RESOURCE, scope: 'rate_limits_policies.read', mutation: false }, async (ctx) => {
    const id = uuidParam(ctx.request.params, ID);
    const status = optionalEnum(ctx.request.query, 'status', POLICY_STATUSES) ?? 'active';
    const row = await visiblePolicy(ctx.db, ctx.principal, id, status);
    const usage = await rateLimitsPolicyUsage(ctx.db, deps.kv, row, deps.now());
    return { body: { ...rateLimitsPolicyView(row), usage }, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.put('/v1/policies/rate-limits/:rateLimitsPolicyId', adminRoute(deps, { action: 'rate_limits_policies.update', resourceType: RESOURCE, scope: 'rate_limits_policies.update', mutation: true }, async (ctx) => {
    const id = uuidParam(ctx.request.params, ID);
    const body = validateUpdateRateLimitsPolicy(ctx.request.body);
    const row = await updateRateLimitsPolicy(ctx.db, ctx.principal, id, body);
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.delete('/v1/policies/rate-limits/:rateLimitsPolicyId', adminRoute(deps, { action: 'rate_limits_policies.delete', resourceType: RESOURCE, scope: 'rate_limits_policies.delete', mutation: true }, async (ctx) => {
    const row = await deleteRateLimitsPolicy(ctx.db, ctx.principal, uuidParam(ctx.request.params, ID));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));
}
