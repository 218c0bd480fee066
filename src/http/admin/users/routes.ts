/** The users group: GET /admin/users, GET|PUT|DELETE /admin/users/{userId}. Admin keys only. */
import type { FastifyInstance } from 'fastify';
import { changeUserRole, listUsersFor, readUser, removeUser } from '../../../domain/users/manage-users.ts';
import { userView } from '../../../domain/users/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalString, pageParams, uuidParam } from '../params.ts';
import { validateUpdateUser } from './schemas.ts';

const RESOURCE = 'user';

export function registerUserRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.get('/v1/admin/users', adminRoute(deps, { action: 'organisation_users.list', resourceType: RESOURCE, scope: 'organisation_users.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 50, maxSize: 100 });
    const filter = { role: optionalEnum(query, 'role', ['owner', 'admin', 'member'] as const), email: optionalString(query, 'email', 320) };
    const { total, users } = await listUsersFor(ctx.db, ctx.principal, filter, page);
    return { body: listBody(total, users.map(({ user, workspaceIds }) => userView(user, workspaceIds))) };
  }));

  app.get('/v1/admin/users/:userId', adminRoute(deps, { action: 'organisation_users.read', resourceType: RESOURCE, scope: 'organisation_users.read', mutation: false }, async (ctx) => {
    const { user, workspaceIds } = await readUser(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'userId'));
    return { body: userView(user, workspaceIds), resourceId: user.id };
  }));

  app.put('/v1/admin/users/:userId', adminRoute(deps, { action: 'organisation_users.update', resourceType: RESOURCE, scope: 'organisation_users.update', mutation: true }, async (ctx) => {
    const id = uuidParam(ctx.request.params, 'userId');
    const body = validateUpdateUser(ctx.request.body);
    const user = await changeUserRole(ctx.db, ctx.principal, id, body, deps.now());
    // the user's keys and tokens act with the new role from the next request
    return { body: {}, resourceId: user.id, afterCommit: () => deps.invalidation.invalidate() };
  }));

  app.delete('/v1/admin/users/:userId', adminRoute(deps, { action: 'organisation_users.delete', resourceType: RESOURCE, scope: 'organisation_users.delete', mutation: true }, async (ctx) => {
    const { user } = await removeUser(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'userId'));
    return { body: {}, resourceId: user.id, afterCommit: () => deps.invalidation.invalidate() };
  }));
}
