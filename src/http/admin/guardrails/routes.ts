/** The Guardrails group (api-surface §3.14): POST|GET /guardrails, GET|PUT|DELETE /guardrails/{guardrailId} (id or slug). */
import { announceGuardrailChange } from '../../../domain/guardrails/saved-guardrails.ts';
import type { FastifyInstance } from 'fastify';
import { guardrailParam, visibleGuardrail } from '../../../domain/guardrails/access.ts';
import { createGuardrail } from '../../../domain/guardrails/create-guardrail.ts';
import { listGuardrailsFor } from '../../../domain/guardrails/list-guardrails.ts';
import { deleteGuardrail, updateGuardrail } from '../../../domain/guardrails/manage-guardrail.ts';
import { guardrailDetailsView, guardrailRefView, guardrailSummaryView } from '../../../domain/guardrails/views.ts';
import { createCheckRegistry, type CheckRegistry } from '../../../guardrails/registry.ts';
import { parseAllowlist } from '../../../upstream/ssrf-guard.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams } from '../params.ts';
import { validateCreateGuardrail, validateUpdateGuardrail } from './schemas.ts';

const RESOURCE = 'guardrail';

export function registerGuardrailRoutes(app: FastifyInstance, deps: AdminDeps): void {
  // validating a check list binds no connection, so a stand-in registry (nothing allowlisted) validates the same way
  let registry: CheckRegistry | undefined = deps.checkRegistry;
  if (!registry) {
    const own = createCheckRegistry({ allowlist: parseAllowlist([]) });
    app.addHook('onClose', () => own.close());
    registry = own;
  }
  const checks = registry;

  app.post('/v1/guardrails', adminRoute(deps, { action: 'guardrails.create', resourceType: RESOURCE, scope: 'guardrails.create', mutation: true }, async (ctx) => {
    const body = validateCreateGuardrail(ctx.request.body);
    const row = await createGuardrail(ctx.db, ctx.principal, body, checks);
    // a slug looked up before it existed is cached as unknown on every node
    return { body: guardrailRefView(row), resourceId: row.id, workspaceId: row.workspaceId, afterCommit: () => announceGuardrailChange(deps.kv) };
  }));

  app.get('/v1/guardrails', adminRoute(deps, { action: 'guardrails.list', resourceType: RESOURCE, scope: 'guardrails.list', mutation: false }, async (ctx) => {
    const page = pageParams(ctx.request.query, { defaultSize: 100, maxSize: 1000 });
    const query = ctx.request.query;
    const filter = { organisationId: optionalString(query, 'organisation_id'), workspace: optionalString(query, 'workspace_id') };
    const { total, rows } = await listGuardrailsFor(ctx.db, ctx.principal, filter, page);
    return { body: listBody(total, rows.map(guardrailSummaryView)) };
  }));

  app.get('/v1/guardrails/:guardrailId', adminRoute(deps, { action: 'guardrails.read', resourceType: RESOURCE, scope: 'guardrails.read', mutation: false }, async (ctx) => {
    const row = await visibleGuardrail(ctx.db, ctx.principal, guardrailParam(ctx.request.params));
    return { body: guardrailDetailsView(row), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.put('/v1/guardrails/:guardrailId', adminRoute(deps, { action: 'guardrails.update', resourceType: RESOURCE, scope: 'guardrails.update', mutation: true }, async (ctx) => {
    const idOrSlug = guardrailParam(ctx.request.params);
    const body = validateUpdateGuardrail(ctx.request.body);
    const row = await updateGuardrail(ctx.db, ctx.principal, idOrSlug, body, checks);
    return { body: guardrailRefView(row), resourceId: row.id, workspaceId: row.workspaceId, afterCommit: () => announceGuardrailChange(deps.kv) };
  }));

  // 200 with no body (reference §0.3: guardrail delete is one of the exceptions to `{}`)
  app.delete('/v1/guardrails/:guardrailId', adminRoute(deps, { action: 'guardrails.delete', resourceType: RESOURCE, scope: 'guardrails.delete', mutation: true }, async (ctx) => {
    const row = await deleteGuardrail(ctx.db, ctx.principal, guardrailParam(ctx.request.params));
    return { resourceId: row.id, workspaceId: row.workspaceId, afterCommit: () => announceGuardrailChange(deps.kv) };
  }));
}
