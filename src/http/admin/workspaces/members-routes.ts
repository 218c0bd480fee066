/**
 * The Workspace members group: /admin/workspaces/{workspaceId}/users[/{userId}]. Changes are for organisation
 * owners/admins and the workspace's managers; reads for anyone who can see the workspace.
 */
import type { FastifyInstance } from 'fastify';
import { workspaceParam } from '../../../domain/workspaces/access.ts';
import { addMembers } from '../../../domain/workspaces/add-members.ts';
import { listMembersOf, readMember } from '../../../domain/workspaces/read-workspaces.ts';
import { removeMember } from '../../../domain/workspaces/remove-member.ts';
import { updateMember } from '../../../domain/workspaces/update-member.ts';
import { memberView } from '../../../domain/workspaces/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalString, pageParams, uuidParam } from '../params.ts';
import { validateAddMembers, validateUpdateMember, WORKSPACE_ROLES } from './schemas.ts';

const RESOURCE = 'workspace_user';

export function registerWorkspaceMemberRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.post('/v1/admin/workspaces/:workspaceId/users', adminRoute(deps, { action: 'workspace_users.create', resourceType: RESOURCE, scope: 'workspace_users.create', mutation: true }, async (ctx) => {
    const idOrSlug = workspaceParam(ctx.request.params);
    const body = validateAddMembers(ctx.request.body);
    const workspace = await addMembers(ctx.db, ctx.principal, idOrSlug, body);
    return { body: {}, resourceId: body.users.map((user) => user.id.toLowerCase()).join(','), workspaceId: workspace.id };
  }));

  app.get('/v1/admin/workspaces/:workspaceId/users', adminRoute(deps, { action: 'workspace_users.list', resourceType: RESOURCE, scope: 'workspace_users.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const idOrSlug = workspaceParam(ctx.request.params);
    const page = pageParams(query, { defaultSize: 50, maxSize: 100 });
    const filter = { role: optionalEnum(query, 'role', WORKSPACE_ROLES), email: optionalString(query, 'email', 320) };
    const { workspace, total, rows } = await listMembersOf(ctx.db, ctx.principal, idOrSlug, filter, page);
    return { body: listBody(total, rows.map(memberView)), workspaceId: workspace.id };
  }));

  app.get('/v1/admin/workspaces/:workspaceId/users/:userId', adminRoute(deps, { action: 'workspace_users.read', resourceType: RESOURCE, scope: 'workspace_users.read', mutation: false }, async (ctx) => {
    const idOrSlug = workspaceParam(ctx.request.params);
    const userId = uuidParam(ctx.request.params, 'userId');
    const { workspace, member } = await readMember(ctx.db, ctx.principal, idOrSlug, userId);
    return { body: memberView(member), resourceId: userId, workspaceId: workspace.id };
  }));

  // a role change alters what the user's keys may do: every cached credential is dropped after the commit
  app.put('/v1/admin/workspaces/:workspaceId/users/:userId', adminRoute(deps, { action: 'workspace_users.update', resourceType: RESOURCE, scope: 'workspace_users.update', mutation: true }, async (ctx) => {
    const idOrSlug = workspaceParam(ctx.request.params);
    const userId = uuidParam(ctx.request.params, 'userId');
    const body = validateUpdateMember(ctx.request.body);
    const { workspace } = await updateMember(ctx.db, ctx.principal, idOrSlug, userId, body);
    return { body: {}, resourceId: userId, workspaceId: workspace.id, afterCommit: () => deps.invalidation.invalidate() };
  }));

  // removal also deletes the user's workspace/user API keys of this workspace (see remove-member.ts); the audit
  // record's resource id lists them, and every cached credential is dropped after the commit
  app.delete('/v1/admin/workspaces/:workspaceId/users/:userId', adminRoute(deps, { action: 'workspace_users.delete', resourceType: RESOURCE, scope: 'workspace_users.delete', mutation: true }, async (ctx) => {
    const idOrSlug = workspaceParam(ctx.request.params);
    const userId = uuidParam(ctx.request.params, 'userId');
    const { workspace, deletedKeyIds } = await removeMember(ctx.db, ctx.principal, idOrSlug, userId);
    const resourceId = deletedKeyIds.length > 0 ? `${userId};deleted_api_keys=${deletedKeyIds.join(',')}` : userId;
    return { body: {}, resourceId, workspaceId: workspace.id, afterCommit: () => deps.invalidation.invalidate() };
  }));
}
