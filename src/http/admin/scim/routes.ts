/**
 * The reference's three SCIM operations (api-surface §3.8), under /v1 like every admin route: GET|POST
 * /scim/workspaces and DELETE /scim/workspaces/{scimWorkspaceGroupId}. Admin keys only (domain/scim/access.ts).
 */
import type { FastifyInstance } from 'fastify';
import { invalidParam } from '../../../core/errors.ts';
import { isUuid } from '../../../core/ids.ts';
import { mappingParam } from '../../../domain/scim/access.ts';
import { archiveScimMapping } from '../../../domain/scim/archive-mapping.ts';
import { createScimMapping } from '../../../domain/scim/create-mapping.ts';
import { listScimMappings } from '../../../domain/scim/list-mappings.ts';
import { SCIM_ROLES } from '../../../domain/scim/roles.ts';
import { scimMappingView } from '../../../domain/scim/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalString, pageParams } from '../params.ts';
import { SCIM_PAGE, validateCreateScimMapping } from './schemas.ts';

const RESOURCE = 'scim_workspace_group';

function groupFilter(query: unknown): string | undefined {
  const value = optionalString(query, 'scim_group_id');
  if (value !== undefined && !isUuid(value)) throw invalidParam('scim_group_id', 'scim_group_id must be a UUID.');
  return value?.toLowerCase();
}

export function registerScimRoutes(app: FastifyInstance, deps: AdminDeps): void {
  // the reference answers {mappings, total_count}; the one list shape of this API ({object, total, data}) rides along
  app.get('/v1/scim/workspaces', adminRoute(deps, { action: 'scim_workspaces.list', resourceType: RESOURCE, scope: 'workspace_users.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, SCIM_PAGE);
    const filter = { workspace: optionalString(query, 'workspace_id'), scimGroupId: groupFilter(query), role: optionalEnum(query, 'role', SCIM_ROLES) };
    const { total, rows } = await listScimMappings(ctx.db, ctx.principal, filter, page);
    const mappings = rows.map(scimMappingView);
    return { body: { ...listBody(total, mappings), mappings, total_count: total } };
  }));

  app.post('/v1/scim/workspaces', adminRoute(deps, { action: 'scim_workspaces.create', resourceType: RESOURCE, scope: 'workspace_users.create', mutation: true }, async (ctx) => {
    const body = validateCreateScimMapping(ctx.request.body);
    const row = await createScimMapping(ctx.db, ctx.principal, body);
    return { body: scimMappingView(row), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.delete('/v1/scim/workspaces/:scimWorkspaceGroupId', adminRoute(deps, { action: 'scim_workspaces.delete', resourceType: RESOURCE, scope: 'workspace_users.delete', mutation: true }, async (ctx) => {
    const { mapping, changes } = await archiveScimMapping(ctx.db, ctx.principal, mappingParam(ctx.request.params));
    // a revoked membership changes the role cached with every credential of its user, on every node
    const afterCommit = changes.length > 0 ? () => deps.invalidation.invalidate() : undefined;
    return { body: { success: true }, resourceId: mapping.id, workspaceId: mapping.workspaceId, ...(afterCommit ? { afterCommit } : {}) };
  }));
}
