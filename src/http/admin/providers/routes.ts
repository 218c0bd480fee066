/**
 * The Providers group (api-surface §3.4): POST|GET /providers, GET|PUT|DELETE /providers/{slug} (id or slug; the
 * `workspace_id` query says whose slug). Every change is announced to every node (providers.changed), so `@slug`
 * resolves to the new record from the next request on.
 */
import type { FastifyInstance } from 'fastify';
import { providerParam } from '../../../domain/providers/access.ts';
import { createProvider } from '../../../domain/providers/create-provider.ts';
import { deleteProvider, updateProvider } from '../../../domain/providers/manage-provider.ts';
import { listProvidersFor, readProvider } from '../../../domain/providers/read-providers.ts';
import { announceProviderChange } from '../../../domain/providers/saved-providers.ts';
import { neverExhausted, type ExhaustionCheck } from '../../../domain/providers/status.ts';
import { providerRefView, providerView } from '../../../domain/providers/views.ts';
import { adminRoute, type AdminContext, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams } from '../params.ts';
import { validateCreateProvider, validateUpdateProvider } from './schemas.ts';

const RESOURCE = 'provider';

export interface ProviderRouteOptions {
  /** whether a provider's usage limit is used up (its status reads `exhausted`); never, until the budgets wire theirs */
  isExhausted?: ExhaustionCheck;
}

/** `{slug}` and the `workspace_id` query: which provider a route addresses. */
export function providerAddress(ctx: AdminContext) {
  return { idOrSlug: providerParam(ctx.request.params), workspace: optionalString(ctx.request.query, 'workspace_id') };
}

export function registerProviderRoutes(app: FastifyInstance, deps: AdminDeps, options: ProviderRouteOptions = {}): void {
  const isExhausted = options.isExhausted ?? neverExhausted;
  const now = () => deps.now();
  // every node drops its copies (this one before the answer goes out: see announceProviderChange)
  const changed = () => announceProviderChange(deps.kv);

  app.post('/v1/providers', adminRoute(deps, { action: 'providers.create', resourceType: RESOURCE, scope: 'providers.create', mutation: true }, async (ctx) => {
    const row = await createProvider(ctx.db, ctx.principal, validateCreateProvider(ctx.request.body), now());
    // a slug looked up before it existed is held as unknown
    return { body: providerRefView(row), resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.get('/v1/providers', adminRoute(deps, { action: 'providers.list', resourceType: RESOURCE, scope: 'providers.list', mutation: false }, async (ctx) => {
    const page = pageParams(ctx.request.query, { defaultSize: 50, maxSize: 1000 });
    const { total, rows } = await listProvidersFor(ctx.db, ctx.principal, { workspace: optionalString(ctx.request.query, 'workspace_id') }, page);
    const at = now().getTime();
    return { body: listBody(total, await Promise.all(rows.map((row) => providerView(row, at, isExhausted)))) };
  }));

  app.get('/v1/providers/:slug', adminRoute(deps, { action: 'providers.read', resourceType: RESOURCE, scope: 'providers.read', mutation: false }, async (ctx) => {
    const found = await readProvider(ctx.db, ctx.principal, providerAddress(ctx));
    return { body: await providerView(found, now().getTime(), isExhausted), resourceId: found.provider.id, workspaceId: found.provider.workspaceId };
  }));

  app.put('/v1/providers/:slug', adminRoute(deps, { action: 'providers.update', resourceType: RESOURCE, scope: 'providers.update', mutation: true }, async (ctx) => {
    const address = providerAddress(ctx);
    const row = await updateProvider(ctx.db, ctx.principal, address, validateUpdateProvider(ctx.request.body), now());
    return { body: providerRefView(row), resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.delete('/v1/providers/:slug', adminRoute(deps, { action: 'providers.delete', resourceType: RESOURCE, scope: 'providers.delete', mutation: true }, async (ctx) => {
    const row = await deleteProvider(ctx.db, ctx.principal, providerAddress(ctx));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));
}
