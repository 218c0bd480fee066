/**
 * The Integrations group (api-surface §3.3): POST|GET /integrations, GET|PUT|DELETE /integrations/{slug} (id or
 * slug), and the models and workspaces sub-resources (models-routes.ts, workspaces-routes.ts). Every change is
 * announced on `integrations.changed`, so every node drops the credentials it holds.
 */
import type { FastifyInstance } from 'fastify';
import { integrationParam } from '../../../domain/integrations/access.ts';
import { createIntegrationRules, type IntegrationRules } from '../../../domain/integrations/configurations.ts';
import { createIntegration } from '../../../domain/integrations/create-integration.ts';
import { announceIntegrationChange } from '../../../domain/integrations/credentials.ts';
import { deleteIntegration, updateIntegration } from '../../../domain/integrations/manage-integration.ts';
import { listIntegrationsFor, readIntegration } from '../../../domain/integrations/read-integrations.ts';
import { integrationDetailView, integrationRefView, integrationSummaryView } from '../../../domain/integrations/views.ts';
import { createProviderRegistry } from '../../../providers/registry.ts';
import { parseAllowlist } from '../../../upstream/ssrf-guard.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalString, pageParams } from '../params.ts';
import { originalBody, redactForAudit } from './audit-redaction.ts';
import { registerIntegrationModelRoutes } from './models-routes.ts';
import { validateCreateIntegration, validateUpdateIntegration } from './schemas.ts';
import { registerIntegrationWorkspaceRoutes } from './workspaces-routes.ts';

const RESOURCE = 'integration';
const TYPES = ['workspace', 'organisation', 'all'] as const;

/** The rules an integration is checked by: the app's registry and custom-host allowlist, or the built-in ones. */
function rulesOf(deps: AdminDeps): IntegrationRules {
  return createIntegrationRules({
    registry: deps.providerRegistry ?? createProviderRegistry(),
    allowlist: deps.customHosts?.allowlist ?? parseAllowlist([]),
    lookup: deps.customHosts?.lookup,
  });
}

export function registerIntegrationRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const rules = rulesOf(deps);
  const changed = () => announceIntegrationChange(deps.kv);
  const hideSecrets = { preHandler: redactForAudit(rules.secretFields) };

  app.post('/v1/integrations', hideSecrets, adminRoute(deps, { action: 'integrations.create', resourceType: RESOURCE, scope: 'integrations.create', mutation: true }, async (ctx) => {
    const body = validateCreateIntegration(originalBody(ctx.request));
    const { row } = await createIntegration(ctx.db, ctx.principal, body, rules, deps.secrets);
    // a slug looked up before it existed is cached as unknown on every node
    return { body: integrationRefView(row), resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.get('/v1/integrations', adminRoute(deps, { action: 'integrations.list', resourceType: RESOURCE, scope: 'integrations.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 100, maxSize: 1000 });
    const filter = { workspace: optionalString(query, 'workspace_id'), type: optionalEnum(query, 'type', TYPES) };
    const { total, rows } = await listIntegrationsFor(ctx.db, ctx.principal, filter, page);
    return { body: listBody(total, rows.map(integrationSummaryView)) };
  }));

  app.get('/v1/integrations/:slug', adminRoute(deps, { action: 'integrations.read', resourceType: RESOURCE, scope: 'integrations.read', mutation: false }, async (ctx) => {
    const details = await readIntegration(ctx.db, ctx.principal, integrationParam(ctx.request.params));
    return { body: integrationDetailView(details, rules), resourceId: details.row.id, workspaceId: details.row.workspaceId };
  }));

  app.put('/v1/integrations/:slug', hideSecrets, adminRoute(deps, { action: 'integrations.update', resourceType: RESOURCE, scope: 'integrations.update', mutation: true }, async (ctx) => {
    const idOrSlug = integrationParam(ctx.request.params);
    const body = validateUpdateIntegration(originalBody(ctx.request));
    const row = await updateIntegration(ctx.db, ctx.principal, idOrSlug, body, rules, deps.secrets);
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.delete('/v1/integrations/:slug', adminRoute(deps, { action: 'integrations.delete', resourceType: RESOURCE, scope: 'integrations.delete', mutation: true }, async (ctx) => {
    const row = await deleteIntegration(ctx.db, ctx.principal, integrationParam(ctx.request.params));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  registerIntegrationModelRoutes(app, deps, rules, changed);
  registerIntegrationWorkspaceRoutes(app, deps, changed);
}
