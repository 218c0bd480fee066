/** The Workspaces group: POST|GET /admin/workspaces, GET|PUT|DELETE /admin/workspaces/{workspaceId} (id or slug). */
import type { FastifyInstance } from 'fastify';
import { invalidParam } from '../../../core/errors.ts';
import { workspaceParam } from '../../../domain/workspaces/access.ts';
import { createWorkspace } from '../../../domain/workspaces/create-workspace.ts';
import { deleteWorkspace } from '../../../domain/workspaces/delete-workspace.ts';
import { updateWorkspace } from '../../../domain/workspaces/update-workspace.ts';
import { listWorkspacesFor, readWorkspace } from '../../../domain/workspaces/read-workspaces.ts';
import { workspaceView, workspaceWithUsersView } from '../../../domain/workspaces/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams } from '../params.ts';
import { registerWorkspaceMemberRoutes } from './members-routes.ts';
import { validateCreateWorkspace, validateUpdateWorkspace, WORKSPACE_STATUSES } from './schemas.ts';
import { announceWorkspaceChange } from '../../../domain/workspaces/request-defaults.ts';

const RESOURCE = 'workspace';

/** `status`: comma-separated active|archived. */
function statusFilter(query: unknown): string[] | undefined {
  const value = optionalString(query, 'status');
  if (value === undefined) return undefined;
  const statuses = value.split(',').map((part) => part.trim());
  for (const status of statuses) {
    if (!(WORKSPACE_STATUSES as readonly string[]).includes(status)) {
      throw invalidParam('status', `status must be a comma-separated list of ${WORKSPACE_STATUSES.join(', ')}.`);
    }
  }
  return statuses;
}

export function registerWorkspaceRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.post('/v1/admin/workspaces', adminRoute(deps, { action: 'workspaces.create', resourceType: RESOURCE, scope: 'workspaces.create', mutation: true }, async (ctx) => {
    const body = validateCreateWorkspace(ctx.request.body);
    const row = await createWorkspace(ctx.db, ctx.principal, body);
    return { body: workspaceView(row), resourceId: row.id, workspaceId: row.id };
  }));

  app.get('/v1/admin/workspaces', adminRoute(deps, { action: 'workspaces.list', resourceType: RESOURCE, scope: 'workspaces.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 50, maxSize: 100 });
    const filter = { nameContains: optionalString(query, 'name'), exactName: optionalString(query, 'exact_name'), statuses: statusFilter(query) };
    const { total, rows } = await listWorkspacesFor(ctx.db, ctx.principal, filter, page);
    return { body: listBody(total, rows.map(workspaceView)) };
  }));

  app.get('/v1/admin/workspaces/:workspaceId', adminRoute(deps, { action: 'workspaces.read', resourceType: RESOURCE, scope: 'workspaces.read', mutation: false }, async (ctx) => {
    const { workspace, members } = await readWorkspace(ctx.db, ctx.principal, workspaceParam(ctx.request.params));
    return { body: workspaceWithUsersView(workspace, members), resourceId: workspace.id, workspaceId: workspace.id };
  }));

  app.put('/v1/admin/workspaces/:workspaceId', adminRoute(deps, { action: 'workspaces.update', resourceType: RESOURCE, scope: 'workspaces.update', mutation: true }, async (ctx) => {
    const idOrSlug = workspaceParam(ctx.request.params);
    const body = validateUpdateWorkspace(ctx.request.body);
    const row = await updateWorkspace(ctx.db, ctx.principal, idOrSlug, body);
    // the default guardrails of every request of the workspace may have changed
    return { body: {}, resourceId: row.id, workspaceId: row.id, afterCommit: () => announceWorkspaceChange(deps.kv) };
  }));

  // 200 with no body (reference §0.3: workspace delete is one of the exceptions to `{}`)
  app.delete('/v1/admin/workspaces/:workspaceId', adminRoute(deps, { action: 'workspaces.delete', resourceType: RESOURCE, scope: 'workspaces.delete', mutation: true }, async (ctx) => {
    const row = await deleteWorkspace(ctx.db, ctx.principal, workspaceParam(ctx.request.params));
    return { resourceId: row.id, workspaceId: row.id, afterCommit: () => announceWorkspaceChange(deps.kv) };
  }));

  registerWorkspaceMemberRoutes(app, deps);
}
