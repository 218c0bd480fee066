/** The body of POST /scim/workspaces (api-surface §3.8): a workspace, a role, and exactly one way to name the group. */
import { Type, type Static } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { UUID_PATTERN } from '../../../core/ids.ts';
import type { CreateScimMappingInput } from '../../../domain/scim/inputs.ts';
import { SCIM_ROLES } from '../../../domain/scim/roles.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';
import { SLUG_PATTERN } from '../workspaces/schemas.ts';

/** Paging of GET /scim/workspaces (the guardrails' sizes). */
export const SCIM_PAGE = { defaultSize: 100, maxSize: 1000 };

export const CreateScimMappingSchema = Type.Object(
  {
    workspace_id: Type.String({ pattern: SLUG_PATTERN, description: 'the workspace\'s id or slug' }),
    role: Type.Union(SCIM_ROLES.map((role) => Type.Literal(role)), { description: 'the role the group\'s members get in the workspace' }),
    scim_group_id: Type.Optional(Type.String({ pattern: UUID_PATTERN, description: 'an existing SCIM group; give this or scim_group_name' })),
    scim_group_name: Type.Optional(Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'a group\'s display name (as the identity provider names it); the group is created when there is none; give this or scim_group_id',
    })),
  },
  { additionalProperties: false, description: 'Exactly one of scim_group_id and scim_group_name.' },
);
export type CreateScimMappingBody = Static<typeof CreateScimMappingSchema>;

function oneGroup(body: CreateScimMappingBody): void {
  const given = [body.scim_group_id, body.scim_group_name].filter((value) => value !== undefined).length;
  if (given === 0) throw invalidParam('scim_group_id', 'Name the group: give scim_group_id or scim_group_name.');
  if (given === 2) throw invalidParam('scim_group_name', 'Give scim_group_id or scim_group_name, not both.');
}

export const validateCreateScimMapping: BodyValidator<CreateScimMappingInput> = makeValidator(CreateScimMappingSchema, oneGroup);
