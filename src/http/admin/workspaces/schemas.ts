/** Bodies of the Workspaces and Workspace members groups (reference §3.8, §3.9; shared shapes §0.7). */
import { Type, type Static } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { UUID_PATTERN } from '../../../core/ids.ts';
import type { AddMembersInput, CreateWorkspaceInput, UpdateMemberInput, UpdateWorkspaceInput } from '../../../domain/workspaces/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';
import { UsageLimitsSchema } from '../api-keys/schemas.ts';

export const SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';

export const WORKSPACE_ROLES = ['admin', 'manager', 'member'] as const;
export const WORKSPACE_STATUSES = ['active', 'archived'] as const;

/** Workspace rate limits (§0.7 RateLimits): narrower units than the api-keys variant. */
const WorkspaceRateLimitSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('requests'), Type.Literal('tokens')]),
    unit: Type.Union([Type.Literal('rpd'), Type.Literal('rph'), Type.Literal('rpm')]),
    value: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

const Metadata = Type.Record(Type.String(), Type.String({ maxLength: 1000 }), { maxProperties: 100, propertyNames: { maxLength: 128 } });
const GuardrailSlugs = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 50 });

const limits = {
  usage_limits: Type.Optional(Type.Union([Type.Array(UsageLimitsSchema, { maxItems: 1 }), Type.Null()])),
  rate_limits: Type.Optional(Type.Union([Type.Array(WorkspaceRateLimitSchema, { maxItems: 1 }), Type.Null()])),
};

export const CreateWorkspaceSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
    slug: Type.Optional(Type.String({ pattern: SLUG_PATTERN })),
    defaults: Type.Optional(Type.Object({ metadata: Type.Optional(Metadata) }, { additionalProperties: false })),
    users: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100 })),
    ...limits,
  },
  { additionalProperties: false },
);
export type CreateWorkspaceBody = Static<typeof CreateWorkspaceSchema>;

export const UpdateWorkspaceSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
    defaults: Type.Optional(
      Type.Object(
        {
          metadata: Type.Optional(Metadata),
          input_guardrails: Type.Optional(GuardrailSlugs),
          output_guardrails: Type.Optional(GuardrailSlugs),
          /** a config slug or UUID; null clears it */
          user_api_key_config: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
          /** false keeps request and response bodies out of the workspace's request log */
          log_bodies: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    ...limits,
  },
  { additionalProperties: false },
);
export type UpdateWorkspaceBody = Static<typeof UpdateWorkspaceSchema>;

const Role = Type.Union(WORKSPACE_ROLES.map((role) => Type.Literal(role)));

export const AddMembersSchema = Type.Object(
  {
    users: Type.Array(Type.Object({ id: Type.String({ pattern: UUID_PATTERN }), role: Role }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 100,
    }),
  },
  { additionalProperties: false },
);
export type AddMembersBody = Static<typeof AddMembersSchema>;

export const UpdateMemberSchema = Type.Object({ role: Role }, { additionalProperties: false });
export type UpdateMemberBody = Static<typeof UpdateMemberSchema>;

type UsageLimits = Static<typeof UsageLimitsSchema>;

/** §0.7: periodic_reset and periodic_reset_days are mutually exclusive. */
function usageLimitRules(list: readonly UsageLimits[] | null | undefined): void {
  list?.forEach((limit, index) => {
    if (limit.periodic_reset != null && limit.periodic_reset_days != null) {
      throw invalidParam(`usage_limits[${index}].periodic_reset_days`, 'periodic_reset and periodic_reset_days cannot both be set.');
    }
  });
}

/** The same user twice in one request is a caller mistake, not a conflict with stored state. */
function distinctIds(ids: readonly string[], path: (index: number) => string): void {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    const key = id.toLowerCase();
    if (seen.has(key)) throw invalidParam(path(index), `User "${id}" is listed more than once.`, 'duplicate_user');
    seen.add(key);
  });
}

export const validateCreateWorkspace: BodyValidator<CreateWorkspaceInput> = makeValidator(CreateWorkspaceSchema, (body) => {
  usageLimitRules(body.usage_limits);
  if (body.users) distinctIds(body.users, (index) => `users[${index}]`);
});
export const validateUpdateWorkspace: BodyValidator<UpdateWorkspaceInput> = makeValidator(UpdateWorkspaceSchema, (body) => usageLimitRules(body.usage_limits));
export const validateAddMembers: BodyValidator<AddMembersInput> = makeValidator(AddMembersSchema, (body) =>
  distinctIds(body.users.map((user) => user.id), (index) => `users[${index}].id`),
);
export const validateUpdateMember: BodyValidator<UpdateMemberInput> = makeValidator(UpdateMemberSchema, () => {});
