/** Workspaces and their members (src/http/admin/workspaces/routes.ts, members-routes.ts), addressed by id or slug. */
import { SLUG_PATTERN, WORKSPACE_ROLES, WORKSPACE_STATUSES } from '../../admin/workspaces/schemas.ts';
import { listRef, ref } from '../components.ts';
import { UUID_SCHEMA, pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const WORKSPACES = 'workspaces';
const MEMBERS = 'workspace-members';
const WORKSPACE_ID = pathParameter('workspaceId', 'the workspace\'s id or slug', { type: 'string', pattern: SLUG_PATTERN });
const USER_ID = pathParameter('userId', 'the member\'s user id', UUID_SCHEMA);
const PAGE = pageParameters({ defaultSize: 50, maxSize: 100 });
const MEMBERSHIP_CHANGE = 'For organisation owners and admins and the workspace\'s managers; every cached credential is dropped after the change, on every node.';

export function workspacePaths(): Paths {
  return {
    '/admin/workspaces': {
      post: adminOperation({
        operationId: 'createWorkspace',
        summary: 'Create a workspace',
        tag: WORKSPACES,
        scope: 'workspaces.create',
        body: 'CreateWorkspaceRequest',
        answer: { description: 'the new workspace', schema: ref('Workspace') },
        errors: { 409: 'the slug is taken' },
      }),
      get: adminOperation({
        operationId: 'listWorkspaces',
        summary: 'List workspaces',
        tag: WORKSPACES,
        scope: 'workspaces.list',
        description: 'A workspace key sees its own workspace only.',
        parameters: [
          ...PAGE,
          queryParameter('name', 'the name contains this'),
          queryParameter('exact_name', 'the name is exactly this'),
          queryParameter('status', `comma-separated: ${WORKSPACE_STATUSES.join(', ')}`, { type: 'string', pattern: `^(${WORKSPACE_STATUSES.join('|')})( *, *(${WORKSPACE_STATUSES.join('|')}))*$` }),
        ],
        answer: { description: 'the workspaces', schema: listRef('Workspace', 'workspaces') },
      }),
    },
    '/admin/workspaces/{workspaceId}': {
      get: adminOperation({
        operationId: 'getWorkspace',
        summary: 'Get a workspace, with its members',
        tag: WORKSPACES,
        scope: 'workspaces.read',
        parameters: [WORKSPACE_ID],
        answer: { description: 'the workspace, its defaults and its members', schema: ref('WorkspaceWithUsers') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateWorkspace',
        summary: 'Update a workspace',
        tag: WORKSPACES,
        scope: 'workspaces.update',
        description: 'The default guardrails and config apply to the workspace\'s next requests, on every node.',
        parameters: [WORKSPACE_ID],
        body: 'UpdateWorkspaceRequest',
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteWorkspace',
        summary: 'Delete a workspace',
        tag: WORKSPACES,
        scope: 'workspaces.delete',
        parameters: [WORKSPACE_ID],
        answer: { description: 'deleted (no body)' },
        errors: { 404: NOT_FOUND_OR_HIDDEN, 409: 'the workspace still has API keys: delete them first' },
        description: 'Admin keys only; the default workspace cannot be deleted (400).',
      }),
    },
    ...memberPaths(),
  };
}

function memberPaths(): Paths {
  return {
    '/admin/workspaces/{workspaceId}/users': {
      post: adminOperation({
        operationId: 'addWorkspaceMembers',
        summary: 'Add members to a workspace',
        tag: MEMBERS,
        scope: 'workspace_users.create',
        description: MEMBERSHIP_CHANGE,
        parameters: [WORKSPACE_ID],
        body: 'AddWorkspaceMembersRequest',
        answer: { description: 'added', schema: ref('EmptyObject') },
        errors: { 404: 'the workspace or a user is not found (param names the user)', 409: 'a user is a member already' },
      }),
      get: adminOperation({
        operationId: 'listWorkspaceMembers',
        summary: 'List a workspace\'s members',
        tag: MEMBERS,
        scope: 'workspace_users.list',
        parameters: [
          WORKSPACE_ID,
          ...PAGE,
          queryParameter('role', 'workspace role', { type: 'string', enum: [...WORKSPACE_ROLES] }),
          queryParameter('email', 'this email address', { type: 'string', minLength: 1, maxLength: 320 }),
        ],
        answer: { description: 'the members', schema: listRef('WorkspaceMember', 'workspace members') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/admin/workspaces/{workspaceId}/users/{userId}': {
      get: adminOperation({
        operationId: 'getWorkspaceMember',
        summary: 'Get a workspace member',
        tag: MEMBERS,
        scope: 'workspace_users.read',
        parameters: [WORKSPACE_ID, USER_ID],
        answer: { description: 'the member', schema: ref('WorkspaceMember') },
        errors: { 404: 'the workspace is not found or not visible, or the user is not a member' },
      }),
      put: adminOperation({
        operationId: 'updateWorkspaceMember',
        summary: 'Change a member\'s workspace role',
        tag: MEMBERS,
        scope: 'workspace_users.update',
        description: MEMBERSHIP_CHANGE,
        parameters: [WORKSPACE_ID, USER_ID],
        body: 'UpdateWorkspaceMemberRequest',
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: 'the workspace is not found or not visible, or the user is not a member' },
      }),
      delete: adminOperation({
        operationId: 'removeWorkspaceMember',
        summary: 'Remove a member from a workspace',
        tag: MEMBERS,
        scope: 'workspace_users.delete',
        description: `Also deletes the user's keys of this workspace. ${MEMBERSHIP_CHANGE}`,
        parameters: [WORKSPACE_ID, USER_ID],
        answer: { description: 'removed', schema: ref('EmptyObject') },
        errors: { 404: 'the workspace is not found or not visible, or the user is not a member' },
      }),
    },
  };
}
