/** The Collections group (api-surface §3.12): POST|GET /collections, GET|PUT|DELETE /collections/{collectionId} (id or slug). */
import type { FastifyInstance } from 'fastify';
import { collectionParam } from '../../../domain/prompt-collections/access.ts';
import { createCollection } from '../../../domain/prompt-collections/create-collection.ts';
import { collectionWithChildren, listCollectionsFor } from '../../../domain/prompt-collections/list-collections.ts';
import { deleteCollection, updateCollection } from '../../../domain/prompt-collections/manage-collection.ts';
import { collectionRefView, collectionWithChildrenView, collectionWithDetailsView } from '../../../domain/prompt-collections/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams } from '../params.ts';
import { validateCreateCollection, validateUpdateCollection } from './schemas.ts';

const RESOURCE = 'collection';

export function registerCollectionRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.post('/v1/collections', adminRoute(deps, { action: 'collections.create', resourceType: RESOURCE, scope: 'collections.create', mutation: true }, async (ctx) => {
    const row = await createCollection(ctx.db, ctx.principal, validateCreateCollection(ctx.request.body));
    return { body: collectionRefView(row), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.get('/v1/collections', adminRoute(deps, { action: 'collections.list', resourceType: RESOURCE, scope: 'collections.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 100, maxSize: 1000 });
    const filter = { workspace: optionalString(query, 'workspace_id'), search: optionalString(query, 'search') };
    const { total, rows, counts } = await listCollectionsFor(ctx.db, ctx.principal, filter, page);
    return { body: listBody(total, rows.map((row) => collectionWithDetailsView(row, counts.get(row.id)))) };
  }));

  app.get('/v1/collections/:collectionId', adminRoute(deps, { action: 'collections.read', resourceType: RESOURCE, scope: 'collections.read', mutation: false }, async (ctx) => {
    const { row, children, counts } = await collectionWithChildren(ctx.db, ctx.principal, collectionParam(ctx.request.params));
    return { body: collectionWithChildrenView(row, children, counts), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.put('/v1/collections/:collectionId', adminRoute(deps, { action: 'collections.update', resourceType: RESOURCE, scope: 'collections.update', mutation: true }, async (ctx) => {
    const idOrSlug = collectionParam(ctx.request.params);
    const row = await updateCollection(ctx.db, ctx.principal, idOrSlug, validateUpdateCollection(ctx.request.body));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.delete('/v1/collections/:collectionId', adminRoute(deps, { action: 'collections.delete', resourceType: RESOURCE, scope: 'collections.delete', mutation: true }, async (ctx) => {
    const row = await deleteCollection(ctx.db, ctx.principal, collectionParam(ctx.request.params));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId };
  }));
}
