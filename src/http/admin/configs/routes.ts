/**
 * The Configs group (api-surface §3.1): POST|GET /configs, GET|PUT|DELETE /configs/{slug} (id or slug),
 * GET /configs/{slug}/versions. Envelopes are the reference's (`{success, data}` for create, get and update) so
 * its clients work; lists use the one list shape of the admin API.
 */
import type { FastifyInstance } from 'fastify';
import { configParam } from '../../../domain/configs/access.ts';
import { createConfig } from '../../../domain/configs/create-config.ts';
import { deleteConfig, updateConfig } from '../../../domain/configs/manage-config.ts';
import { listConfigsFor, listVersionsOf, readConfig } from '../../../domain/configs/read-configs.ts';
import { configDetailsView, configSummaryView, configVersionView } from '../../../domain/configs/views.ts';
import { createProviderRegistry } from '../../../providers/registry.ts';
import type { ParseConfigOptions } from '../../../routing/config-schema.ts';
import { announceConfigChange } from '../../../domain/configs/saved-configs.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams } from '../params.ts';
import { validateCreateConfig, validateUpdateConfig } from './schemas.ts';

const RESOURCE = 'config';

/** The providers every gateway has: a config naming another is a 400. */
function builtInRules(): ParseConfigOptions {
  const registry = createProviderRegistry();
  return { isKnownProvider: (name) => registry.has(name) };
}

export function registerConfigRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const rules = deps.configRules ?? builtInRules();
  // every node drops its cached copies: this one at once, the others over pub/sub
  const changed = () => (deps.savedConfigs ? deps.savedConfigs.invalidate() : announceConfigChange(deps.kv));

  app.post('/v1/configs', adminRoute(deps, { action: 'configs.create', resourceType: RESOURCE, scope: 'configs.create', mutation: true }, async (ctx) => {
    const body = validateCreateConfig(ctx.request.body);
    const { config, version } = await createConfig(ctx.db, ctx.principal, body, rules, deps.secrets);
    return {
      body: { success: true, data: { id: config.id, slug: config.slug, version_id: version.id } },
      resourceId: config.id,
      workspaceId: config.workspaceId,
      // a reference looked up before it existed is cached as unknown; a new default replaces the old one
      afterCommit: changed,
    };
  }));

  app.get('/v1/configs', adminRoute(deps, { action: 'configs.list', resourceType: RESOURCE, scope: 'configs.list', mutation: false }, async (ctx) => {
    const page = pageParams(ctx.request.query, { defaultSize: 100, maxSize: 1000 });
    const { total, rows } = await listConfigsFor(ctx.db, ctx.principal, { workspace: optionalString(ctx.request.query, 'workspace_id') }, page);
    return { body: listBody(total, rows.map(configSummaryView)) };
  }));

  app.get('/v1/configs/:slug', adminRoute(deps, { action: 'configs.read', resourceType: RESOURCE, scope: 'configs.read', mutation: false }, async (ctx) => {
    const { config, version } = await readConfig(ctx.db, ctx.principal, configParam(ctx.request.params));
    return { body: { success: true, data: configDetailsView(config, version) }, resourceId: config.id, workspaceId: config.workspaceId };
  }));

  app.put('/v1/configs/:slug', adminRoute(deps, { action: 'configs.update', resourceType: RESOURCE, scope: 'configs.update', mutation: true }, async (ctx) => {
    const idOrSlug = configParam(ctx.request.params);
    const body = validateUpdateConfig(ctx.request.body);
    const { config, version } = await updateConfig(ctx.db, ctx.principal, idOrSlug, body, rules, deps.secrets);
    return { body: { success: true, data: { version_id: version.id } }, resourceId: config.id, workspaceId: config.workspaceId, afterCommit: changed };
  }));

  app.delete('/v1/configs/:slug', adminRoute(deps, { action: 'configs.delete', resourceType: RESOURCE, scope: 'configs.delete', mutation: true }, async (ctx) => {
    const row = await deleteConfig(ctx.db, ctx.principal, configParam(ctx.request.params));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  // newest first; reading versions is reading the config, so it takes configs.read
  app.get('/v1/configs/:slug/versions', adminRoute(deps, { action: 'configs.read', resourceType: RESOURCE, scope: 'configs.read', mutation: false }, async (ctx) => {
    const idOrSlug = configParam(ctx.request.params);
    const page = pageParams(ctx.request.query, { defaultSize: 100, maxSize: 1000 });
    const { config, total, rows } = await listVersionsOf(ctx.db, ctx.principal, idOrSlug, page);
    return { body: listBody(total, rows.map((version) => configVersionView(config, version))), resourceId: config.id, workspaceId: config.workspaceId };
  }));
}
