/** Bodies of the users and user-invites groups (reference: User, CreateInvite). */
import { Type, type Static } from '@sinclair/typebox';
import type { AcceptInviteInput, CreateInviteInput, UpdateUserInput } from '../../../domain/users/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

const Email = Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', minLength: 3, maxLength: 320 });

export const UpdateUserSchema = Type.Object({ role: Type.Union([Type.Literal('admin'), Type.Literal('member')]) }, { additionalProperties: false });
export const validateUpdateUser: BodyValidator<UpdateUserInput> = makeValidator(UpdateUserSchema, () => {});

export const CreateInviteSchema = Type.Object(
  {
    email: Email,
    role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
    workspaces: Type.Array(
      Type.Object(
        { id: Type.String({ minLength: 1, maxLength: 255 }), role: Type.Union([Type.Literal('admin'), Type.Literal('manager'), Type.Literal('member')]) },
        { additionalProperties: false },
      ),
      { maxItems: 100 },
    ),
    workspace_api_key_details: Type.Optional(
      Type.Object({ scopes: Type.Array(Type.String({ minLength: 1 }), { maxItems: 200 }) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type CreateInviteBody = Static<typeof CreateInviteSchema>;
export const validateCreateInvite: BodyValidator<CreateInviteInput> = makeValidator(CreateInviteSchema, () => {});

export const AcceptInviteSchema = Type.Object(
  {
    token: Type.String({ minLength: 10, maxLength: 200 }),
    first_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    last_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
export const validateAcceptInvite: BodyValidator<AcceptInviteInput> = makeValidator(AcceptInviteSchema, () => {});
