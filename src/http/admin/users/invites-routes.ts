/**
 * The user-invites group: POST|GET /admin/users/invites, GET|DELETE /admin/users/invites/{inviteId},
 * POST /admin/users/invites/{inviteId}/resend (admin keys), and POST /admin/users/invites/accept, the one admin
 * route that needs no gateway key: the invitee proves the invite with its token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { acceptInviteRecorded } from '../../../domain/users/accept-invite.ts';
import { cancelInvite, createInvite, inviteLink, listInvitesFor, readInvite, resendInvite } from '../../../domain/users/invites.ts';
import { inviteView, userView } from '../../../domain/users/views.ts';
import { adminRoute, refuseNulCharacters, type AdminDeps } from '../admin-route.ts';
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
    const query = ctx.request.query;
    const filter = {
      role: optionalEnum(query, 'role', ['admin', 'member'] as const),
      email: optionalString(query, 'email', 320),
      status: optionalEnum(query, 'status', ['pending', 'cancelled', 'accepted', 'expired'] as const),
    };
    const { total, invites } = await listInvitesFor(ctx.db, ctx.principal, filter, pageParams(query, { defaultSize: 50, maxSize: 100 }), deps.now());
    return { body: listBody(total, invites.map(({ invite, status }) => inviteView(invite, status))) };
  }));

  app.post('/v1/admin/users/invites/accept', async (request) => {
    // not an adminRoute (no key), but the same rule: PostgreSQL refuses NUL in text
    refuseNulCharacters(request);
    const body = validateAcceptInvite(request.body ?? {});
    const call = { method: request.method, uri: request.url.split('?')[0]!, requestId: String(request.id), clientIp: request.ip };
    const { invite, user, keys } = await acceptInviteRecorded(deps.database.db, body, deps.now(), call);
    return { ...userView(user, invite.workspaces.map((entry) => entry.id)), api_keys: keys };
  });

  app.get('/v1/admin/users/invites/:inviteId', adminRoute(deps, { action: 'user_invites.read', resourceType: RESOURCE, scope: 'user_invites.read', mutation: false }, async (ctx) => {
    const { invite, status } = await readInvite(ctx.db, ctx.principal, uuidParam(ctx.request.params, 'inviteId'), deps.now());
    return { body: inviteView(invite, status), resourceId: invite.id };
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
