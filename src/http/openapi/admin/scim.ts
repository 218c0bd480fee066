/**
 * SCIM group mappings (src/http/admin/scim/routes.ts): the paths and their own components, spread into the
 * document by document.ts like the logs group's.
 */
import { Type } from '@sinclair/typebox';
import { SCIM_ROLES } from '../../../domain/scim/roles.ts';
import { CreateScimMappingSchema, SCIM_PAGE } from '../../admin/scim/schemas.ts';
import { asComponent } from '../components.ts';
import { Uuid } from '../common-schemas.ts';
import { UUID_SCHEMA, pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { JsonSchema, Operation, Paths } from '../types.ts';
import { adminOperation, type AdminOperationSpec } from './operation.ts';

const TAG = 'workspaces';
const ADMIN_ONLY = 'Admin keys (and organisation owners and admins acting at organisation level) only: a workspace key is a 403.';
const Role = Type.Union(SCIM_ROLES.map((role) => Type.Literal(role)));

const ScimWorkspaceMappingSchema = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  scim_group: Type.String({ description: 'the group\'s display name' }),
  scim_group_id: Uuid,
  role: Role,
});

const MAPPING = { $ref: '#/components/schemas/ScimWorkspaceMapping' };

const SCHEMAS = {
  CreateScimMappingRequest: CreateScimMappingSchema,
  ScimWorkspaceMapping: ScimWorkspaceMappingSchema,
  ScimWorkspaceMappingList: Type.Object({
    object: Type.Literal('list'),
    total: Type.Integer({ minimum: 0 }),
    data: Type.Array(Type.Unsafe(MAPPING)),
    mappings: Type.Array(Type.Unsafe(MAPPING), { description: 'the reference\'s name for `data`' }),
    total_count: Type.Integer({ minimum: 0, description: 'the reference\'s name for `total`' }),
  }),
  ScimMappingArchived: Type.Object({ success: Type.Literal(true) }),
} as const;

type ScimSchemaName = keyof typeof SCHEMAS;
const scimRef = (name: ScimSchemaName): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

export function scimComponents(): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, asComponent(name, schema)]));
}

function withBody(spec: AdminOperationSpec, body: ScimSchemaName): Operation {
  return { ...adminOperation(spec), requestBody: { required: true, content: { 'application/json': { schema: scimRef(body) } } } };
}

export function scimPaths(): Paths {
  return {
    '/scim/workspaces': {
      get: adminOperation({
        operationId: 'listScimWorkspaceMappings',
        summary: 'List SCIM group to workspace mappings',
        tag: TAG,
        scope: 'workspace_users.list',
        description: `Active mappings only. ${ADMIN_ONLY}`,
        parameters: [
          ...pageParameters(SCIM_PAGE),
          queryParameter('workspace_id', 'only this workspace (id or slug)'),
          queryParameter('scim_group_id', 'only this SCIM group', UUID_SCHEMA),
          queryParameter('role', 'only this role', { type: 'string', enum: [...SCIM_ROLES] }),
        ],
        answer: { description: 'the mappings', schema: scimRef('ScimWorkspaceMappingList') },
        errors: { 404: 'the workspace_id filter names no workspace of the organisation' },
      }),
      post: withBody({
        operationId: 'createScimWorkspaceMapping',
        summary: 'Map a SCIM group to a workspace and role',
        tag: TAG,
        scope: 'workspace_users.create',
        description: 'Users whose sign-in token lists the group in its `groups` claim become members of the workspace with the role '
          + `(the highest when several of their groups map to it), at their next sign-in. ${ADMIN_ONLY}`,
        answer: { description: 'the new mapping', schema: scimRef('ScimWorkspaceMapping') },
        errors: { 404: 'the workspace or the SCIM group is not found', 409: 'the group is already mapped to the workspace' },
      }, 'CreateScimMappingRequest'),
    },
    '/scim/workspaces/{scimWorkspaceGroupId}': {
      delete: adminOperation({
        operationId: 'deleteScimWorkspaceMapping',
        summary: 'Archive a SCIM group mapping',
        tag: TAG,
        scope: 'workspace_users.delete',
        description: 'The mapping stops granting, and the memberships it granted are revoked (or lowered to what the user\'s other '
          + `mapped groups still grant); memberships given by hand are untouched. ${ADMIN_ONLY}`,
        parameters: [pathParameter('scimWorkspaceGroupId', 'the mapping\'s id', UUID_SCHEMA)],
        answer: { description: 'archived', schema: scimRef('ScimMappingArchived') },
        errors: { 404: 'no active mapping of this id in the organisation' },
      }),
    },
  };
}
