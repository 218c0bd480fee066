/**
 * The legacy Virtual keys group (api-surface §3.2): POST|GET /virtual-keys, GET|PUT|DELETE /virtual-keys/{slug}. A
 * virtual key is a provider with its own integration holding its credential; the key is sealed at rest and never
 * shown again (reads show its mask). Every change is announced to every node (providers.changed), so a rotated key
 * is the one every node sends from the next request on.
 */
import type { FastifyInstance } from 'fastify';
import { announceProviderChange } from '../../../domain/providers/saved-providers.ts';
import { neverExhausted } from '../../../domain/providers/status.ts';
import { createVirtualKey } from '../../../domain/virtual-keys/create-virtual-key.ts';
import { deleteVirtualKey, listVirtualKeysFor, readVirtualKey, updateVirtualKey } from '../../../domain/virtual-keys/manage-virtual-key.ts';
import { virtualKeyView } from '../../../domain/virtual-keys/views.ts';
import { createProviderRegistry } from '../../../providers/registry.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams } from '../params.ts';
import { providerAddress, type ProviderRouteOptions } from '../providers/routes.ts';
import { validateCreateVirtualKey, validateUpdateVirtualKey } from './schemas.ts';

const RESOURCE = 'virtual_key';

export function registerVirtualKeyRoutes(app: FastifyInstance, deps: AdminDeps, options: ProviderRouteOptions = {}): void {
  const isExhausted = options.isExhausted ?? neverExhausted;
  // the providers every gateway serves: a virtual key of another is a 400
  const registry = createProviderRegistry();
  const isKnownProvider = (name: string) => registry.has(name);
  const changed = () => announceProviderChange(deps.kv);

  app.post('/v1/virtual-keys', adminRoute(deps, { action: 'virtual_keys.create', resourceType: RESOURCE, scope: 'virtual_keys.create', mutation: true }, async (ctx) => {
    const body = validateCreateVirtualKey(ctx.request.body);
    const row = await createVirtualKey(ctx.db, ctx.principal, body, { isKnownProvider, secrets: deps.secrets, now: deps.now() });
    return { body: { success: true, data: { id: row.id, slug: row.slug } }, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.get('/v1/virtual-keys', adminRoute(deps, { action: 'virtual_keys.list', resourceType: RESOURCE, scope: 'virtual_keys.list', mutation: false }, async (ctx) => {
    const page = pageParams(ctx.request.query, { defaultSize: 50, maxSize: 1000 });
    const { total, rows } = await listVirtualKeysFor(ctx.db, ctx.principal, { workspace: optionalString(ctx.request.query, 'workspace_id') }, page);
    const at = deps.now().getTime();
    return { body: listBody(total, await Promise.all(rows.map((row) => virtualKeyView(row, at, isExhausted)))) };
  }));

  app.get('/v1/virtual-keys/:slug', adminRoute(deps, { action: 'virtual_keys.read', resourceType: RESOURCE, scope: 'virtual_keys.read', mutation: false }, async (ctx) => {
    const found = await readVirtualKey(ctx.db, ctx.principal, providerAddress(ctx));
    return { body: await virtualKeyView(found, deps.now().getTime(), isExhausted), resourceId: found.provider.id, workspaceId: found.provider.workspaceId };
  }));

  app.put('/v1/virtual-keys/:slug', adminRoute(deps, { action: 'virtual_keys.update', resourceType: RESOURCE, scope: 'virtual_keys.update', mutation: true }, async (ctx) => {
    const address = providerAddress(ctx);
    const row = await updateVirtualKey(ctx.db, ctx.principal, address, validateUpdateVirtualKey(ctx.request.body), { secrets: deps.secrets, now: deps.now() });
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.delete('/v1/virtual-keys/:slug', adminRoute(deps, { action: 'virtual_keys.delete', resourceType: RESOURCE, scope: 'virtual_keys.delete', mutation: true }, async (ctx) => {
    const row = await deleteVirtualKey(ctx.db, ctx.principal, providerAddress(ctx));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));
}
