/** The Labels group (api-surface §3.13): POST|GET /labels, GET|PUT|DELETE /labels/{labelId} (a UUID). */
import type { FastifyInstance } from 'fastify';
import { createLabel } from '../../../domain/labels/create-label.ts';
import { listLabelsFor } from '../../../domain/labels/list-labels.ts';
import { deleteLabel, readLabel, updateLabel } from '../../../domain/labels/manage-label.ts';
import { labelView } from '../../../domain/labels/views.ts';
import { announcePromptChange } from '../../../domain/prompts/saved-prompts.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams, uuidParam } from '../params.ts';
import { validateCreateLabel, validateUpdateLabel } from './schemas.ts';

const RESOURCE = 'label';

const scopeFilter = (query: unknown) => ({ organisationId: optionalString(query, 'organisation_id'), workspace: optionalString(query, 'workspace_id') });

export function registerLabelRoutes(app: FastifyInstance, deps: AdminDeps): void {
  // a prompt addressed `@label` is held in each node's cache (domain/prompts/saved-prompts.ts)
  const promptsChanged = () => announcePromptChange(deps.kv);
  app.post('/v1/labels', adminRoute(deps, { action: 'labels.create', resourceType: RESOURCE, scope: 'labels.create', mutation: true }, async (ctx) => {
    const row = await createLabel(ctx.db, ctx.principal, validateCreateLabel(ctx.request.body));
    return { body: { id: row.id }, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.get('/v1/labels', adminRoute(deps, { action: 'labels.list', resourceType: RESOURCE, scope: 'labels.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 100, maxSize: 1000 });
    const { total, rows } = await listLabelsFor(ctx.db, ctx.principal, { ...scopeFilter(query), search: optionalString(query, 'search') }, page);
    return { body: listBody(total, rows.map(labelView)) };
  }));

  app.get('/v1/labels/:labelId', adminRoute(deps, { action: 'labels.read', resourceType: RESOURCE, scope: 'labels.read', mutation: false }, async (ctx) => {
    const row = await readLabel(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'labelId'), scopeFilter(ctx.request.query));
    return { body: labelView(row), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.put('/v1/labels/:labelId', adminRoute(deps, { action: 'labels.update', resourceType: RESOURCE, scope: 'labels.update', mutation: true }, async (ctx) => {
    const id = uuidParam(ctx.request.params, 'labelId');
    const row = await updateLabel(ctx.db, ctx.principal, id, validateUpdateLabel(ctx.request.body));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: promptsChanged };
  }));

  app.delete('/v1/labels/:labelId', adminRoute(deps, { action: 'labels.delete', resourceType: RESOURCE, scope: 'labels.delete', mutation: true }, async (ctx) => {
    const row = await deleteLabel(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'labelId'));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: promptsChanged };
  }));
}
