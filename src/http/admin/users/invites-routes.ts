/**
 * The user-invites group: POST|GET /admin/users/invites, GET|DELETE /admin/users/invites/{inviteId},
 * POST /admin/users/invites/{inviteId}/resend (admin keys), and POST /admin/users/invites/accept, the one admin
 * route that needs no gateway key: the invitee proves the invite with its token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireAdminKey } from '../../../auth/authorize.ts';
import { acceptInvite, cancelInvite, createInvite, findInviteFor, inviteLink, resendInvite } from '../../../domain/users/invites.ts';
import { inviteView, userView } from '../../../domain/users/views.ts';
import { maskSecrets } from '../../../domain/audit/mask.ts';
import { insertAuditLog } from '../../../storage/repositories/audit-logs.ts';
import { inviteStatus, listInvites } from '../../../storage/repositories/invites.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalString, pageParams, uuidParam } from '../params.ts';
import { validateAcceptInvite, validateCreateInvite } from './schemas.ts';

const RESOURCE = 'user_invite';

function origin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export function registerInviteRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.post('/v1/admin/users/invites', adminRoute(deps, { action: 'user_invites.create', resourceType: RESOURCE, scope: 'user_invites.create', mutation: true }, async (ctx) => {
    const body = validateCreateInvite(ctx.request.body);
    const { invite, token } = await createInvite(ctx.db, ctx.principal, body, deps.now());
    return { body: { id: invite.id, invite_link: inviteLink(origin(ctx.request), token) }, resourceId: invite.id };
  }));

  app.get('/v1/admin/users/invites', adminRoute(deps, { action: 'user_invites.list', resourceType: RESOURCE, scope: 'user_invites.list', mutation: false }, async (ctx) => {
    requireAdminKey(ctx.principal, 'list invites');
    const query = ctx.request.query;
    const now = deps.now();
    const { total, rows } = await listInvites(
      ctx.db,
      {
        organisationId: ctx.principal.organisationId,
        role: optionalEnum(query, 'role', ['admin', 'member'] as const),
        email: optionalString(query, 'email', 320)?.toLowerCase(),
        status: optionalEnum(query, 'status', ['pending', 'cancelled', 'accepted', 'expired'] as const),
      },
      pageParams(query, { defaultSize: 50, maxSize: 100 }),
      now,
    );
    return { body: listBody(total, rows.map((row) => inviteView(row, inviteStatus(row, now)))) };
  }));

  app.post('/v1/admin/users/invites/accept', async (request) => {
    const body = validateAcceptInvite(request.body ?? {});
    const now = deps.now();
    // refused acceptances are not audited: without a valid invite there is no organisation to file them under
    return deps.database.db.transaction(async (tx) => {
      const { invite, user, keys } = await acceptInvite(tx, body, now);
      await insertAuditLog(tx, {
        organisationId: invite.organisationId,
        timestamp: now,
        userType: 'user',
        userId: user.id,
        action: 'user_invites.accept',
        resourceType: RESOURCE,
        resourceId: invite.id,
        method: request.method,
        uri: request.url.split('?')[0]!,
        requestId: String(request.id),
        requestBody: JSON.stringify(maskSecrets(body)),
        clientIp: request.ip,
        responseStatusCode: 200,
        outcome: 'success',
      });
      return { ...userView(user, invite.workspaces.map((entry) => entry.id)), api_keys: keys };
    });
  });

  app.get('/v1/admin/users/invites/:inviteId', adminRoute(deps, { action: 'user_invites.read', resourceType: RESOURCE, scope: 'user_invites.read', mutation: false }, async (ctx) => {
    const invite = await findInviteFor(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'inviteId'));
    return { body: inviteView(invite, inviteStatus(invite, deps.now())), resourceId: invite.id };
  }));

  app.delete('/v1/admin/users/invites/:inviteId', adminRoute(deps, { action: 'user_invites.delete', resourceType: RESOURCE, scope: 'user_invites.delete', mutation: true }, async (ctx) => {
    const invite = await cancelInvite(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'inviteId'), deps.now());
    return { body: {}, resourceId: invite.id };
  }));

  app.post('/v1/admin/users/invites/:inviteId/resend', adminRoute(deps, { action: 'user_invites.resend', resourceType: RESOURCE, scope: 'user_invites.update', mutation: true }, async (ctx) => {
    const { invite, token } = await resendInvite(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'inviteId'), deps.now());
    return { body: { inviteLink: inviteLink(origin(ctx.request), token) }, resourceId: invite.id };
  }));
}
