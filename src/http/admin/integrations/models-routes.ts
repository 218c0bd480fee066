/** Integrations > Models (api-surface §3.3): GET|PUT|DELETE /integrations/{slug}/models. */
import type { FastifyInstance } from 'fastify';
import { invalidParam } from '../../../core/errors.ts';
import { integrationParam } from '../../../domain/integrations/access.ts';
import type { IntegrationRules } from '../../../domain/integrations/configurations.ts';
import { deleteModels, listModelsOf, updateModels } from '../../../domain/integrations/models.ts';
import { integrationModelView } from '../../../domain/integrations/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { optionalString } from '../params.ts';
import { MODEL_SLUG_PATTERN, validateUpdateModels } from './schemas.ts';

const RESOURCE = 'integration';
const MODEL_SLUG = new RegExp(MODEL_SLUG_PATTERN);
const MAX_SLUGS = 100;

/** `?slugs=a,b`: required, one to 100 model slugs. */
function slugsParam(query: unknown): string[] {
  const text = optionalString(query, 'slugs', 30_000);
  if (text === undefined) throw invalidParam('slugs', 'slugs is required: the comma-separated custom models to delete.');
  const slugs = text.split(',').map((slug) => slug.trim());
  if (slugs.length > MAX_SLUGS || slugs.some((slug) => !MODEL_SLUG.test(slug))) {
    throw invalidParam('slugs', `slugs must be 1 to ${MAX_SLUGS} model slugs separated by commas.`);
  }
  return [...new Set(slugs)];
}

export function registerIntegrationModelRoutes(app: FastifyInstance, deps: AdminDeps, rules: IntegrationRules, changed: () => Promise<void>): void {
  app.get('/v1/integrations/:slug/models', adminRoute(deps, { action: 'integrations.models.list', resourceType: RESOURCE, scope: 'integrations.read', mutation: false }, async (ctx) => {
    const { row, models } = await listModelsOf(ctx.db, ctx.principal, integrationParam(ctx.request.params));
    return { body: { total: models.length, models: models.map(integrationModelView), allow_all_models: row.allowAllModels }, resourceId: row.id };
  }));

  app.put('/v1/integrations/:slug/models', adminRoute(deps, { action: 'integrations.models.update', resourceType: RESOURCE, scope: 'integrations.update', mutation: true }, async (ctx) => {
    const idOrSlug = integrationParam(ctx.request.params);
    const body = validateUpdateModels(ctx.request.body);
    const row = await updateModels(ctx.db, ctx.principal, idOrSlug, body, rules);
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.delete('/v1/integrations/:slug/models', adminRoute(deps, { action: 'integrations.models.delete', resourceType: RESOURCE, scope: 'integrations.update', mutation: true }, async (ctx) => {
    const idOrSlug = integrationParam(ctx.request.params);
    const row = await deleteModels(ctx.db, ctx.principal, idOrSlug, slugsParam(ctx.request.query));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));
}
