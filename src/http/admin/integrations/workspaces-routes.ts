/** Integrations > Workspaces (api-surface §3.3): GET|PUT /integrations/{slug}/workspaces. */
import type { FastifyInstance } from 'fastify';
import { integrationParam } from '../../../domain/integrations/access.ts';
import { integrationWorkspaceView } from '../../../domain/integrations/views.ts';
import { listWorkspaceAccess, updateWorkspaceAccess } from '../../../domain/integrations/workspace-access.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { validateUpdateWorkspaces } from './schemas.ts';

const RESOURCE = 'integration';

export function registerIntegrationWorkspaceRoutes(app: FastifyInstance, deps: AdminDeps, changed: () => Promise<void>): void {
  app.get('/v1/integrations/:slug/workspaces', adminRoute(deps, { action: 'integrations.workspaces.list', resourceType: RESOURCE, scope: 'integrations.read', mutation: false }, async (ctx) => {
    const { row, access } = await listWorkspaceAccess(ctx.db, ctx.principal, integrationParam(ctx.request.params));
    const body = { total: access.length, workspaces: access.map(integrationWorkspaceView), global_workspace_access: row.globalWorkspaceAccess };
    return { body, resourceId: row.id };
  }));

  app.put('/v1/integrations/:slug/workspaces', adminRoute(deps, { action: 'integrations.workspaces.update', resourceType: RESOURCE, scope: 'integrations.update', mutation: true }, async (ctx) => {
    const idOrSlug = integrationParam(ctx.request.params);
    const body = validateUpdateWorkspaces(ctx.request.body);
    const { row } = await updateWorkspaceAccess(ctx.db, ctx.principal, idOrSlug, body);
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));
}
