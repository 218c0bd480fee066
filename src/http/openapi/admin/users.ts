/** Users and invites (src/http/admin/users/routes.ts, invites-routes.ts). */
import { listRef, ref } from '../components.ts';
import { UUID_SCHEMA, pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import { BAD_INPUT, errors, json } from '../responses.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const USERS = 'users';
const INVITES = 'user-invites';
const USER_ID = pathParameter('userId', 'the user\'s id', UUID_SCHEMA);
const INVITE_ID = pathParameter('inviteId', 'the invite\'s id', UUID_SCHEMA);
const PAGE = pageParameters({ defaultSize: 50, maxSize: 100 });
const EMAIL = queryParameter('email', 'this email address', { type: 'string', minLength: 1, maxLength: 320 });

export function userPaths(): Paths {
  return {
    '/admin/users': {
      get: adminOperation({
        operationId: 'listUsers',
        summary: 'List the organisation\'s users',
        tag: USERS,
        scope: 'organisation_users.list',
        description: 'Admin keys only.',
        parameters: [...PAGE, queryParameter('role', 'organisation role', { type: 'string', enum: ['owner', 'admin', 'member'] }), EMAIL],
        answer: { description: 'the users', schema: listRef('User', 'users') },
      }),
    },
    '/admin/users/{userId}': {
      get: adminOperation({
        operationId: 'getUser',
        summary: 'Get a user',
        tag: USERS,
        scope: 'organisation_users.read',
        parameters: [USER_ID],
        answer: { description: 'the user', schema: ref('User') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateUser',
        summary: 'Change a user\'s organisation role',
        tag: USERS,
        scope: 'organisation_users.update',
        description: 'The user\'s keys and tokens act with the new role from the next request, on every node.',
        parameters: [USER_ID],
        body: 'UpdateUserRequest',
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteUser',
        summary: 'Remove a user from the organisation',
        tag: USERS,
        scope: 'organisation_users.delete',
        parameters: [USER_ID],
        answer: { description: 'removed', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    ...invitePaths(),
  };
}

function invitePaths(): Paths {
  return {
    '/admin/users/invites': {
      post: adminOperation({
        operationId: 'createInvite',
        summary: 'Invite a user',
        tag: INVITES,
        scope: 'user_invites.create',
        body: 'CreateInviteRequest',
        answer: { description: 'the invite and the link the invitee accepts with', schema: ref('InviteCreated') },
        errors: { 404: 'a workspace of the invite is not found', 409: 'the email already has a user or a pending invite' },
      }),
      get: adminOperation({
        operationId: 'listInvites',
        summary: 'List invites',
        tag: INVITES,
        scope: 'user_invites.list',
        description: 'Admin keys only.',
        parameters: [
          ...PAGE,
          queryParameter('role', 'the role offered', { type: 'string', enum: ['admin', 'member'] }),
          EMAIL,
          queryParameter('status', 'the invite\'s state', { type: 'string', enum: ['pending', 'cancelled', 'accepted', 'expired'] }),
        ],
        answer: { description: 'the invites', schema: listRef('Invite', 'invites') },
      }),
    },
    '/admin/users/invites/accept': {
      post: {
        operationId: 'acceptInvite',
        summary: 'Accept an invite (the invitee, with the invite\'s token)',
        description:
          'The one admin route that needs no gateway key: the token proves the invite. Creates the user, its workspace memberships and, where the invite asks for them, its workspace keys.',
        tags: [INVITES],
        security: [],
        requestBody: { required: true, content: { 'application/json': { schema: ref('AcceptInviteRequest') } } },
        responses: {
          '200': json('the new user, with the secrets of its new keys (shown this once)', ref('AcceptedInvite')),
          ...errors({
            400: BAD_INPUT,
            404: 'no invite has this token',
            409: 'a user with the invite\'s email already exists',
            410: 'the invite was cancelled, accepted or has expired',
          }),
        },
      },
    },
    '/admin/users/invites/{inviteId}': {
      get: adminOperation({
        operationId: 'getInvite',
        summary: 'Get an invite',
        tag: INVITES,
        scope: 'user_invites.read',
        parameters: [INVITE_ID],
        answer: { description: 'the invite', schema: ref('Invite') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'cancelInvite',
        summary: 'Cancel an invite',
        tag: INVITES,
        scope: 'user_invites.delete',
        parameters: [INVITE_ID],
        answer: { description: 'cancelled', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN, 409: 'the invite was accepted already' },
      }),
    },
    '/admin/users/invites/{inviteId}/resend': {
      post: adminOperation({
        operationId: 'resendInvite',
        summary: 'Resend an invite with a new link',
        tag: INVITES,
        scope: 'user_invites.update',
        description: 'No body.',
        parameters: [INVITE_ID],
        answer: { description: 'the new link', schema: ref('InviteResent') },
        errors: { 404: NOT_FOUND_OR_HIDDEN, 409: 'the invite was accepted or cancelled' },
      }),
    },
  };
}
