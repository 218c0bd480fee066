/** Bodies of the users and user-invites groups (reference: User, CreateInvite). */
import { Type, type Static } from '@sinclair/typebox';
import { makeValidator } from '../../schemas/validate.ts';

const Email = Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', minLength: 3, maxLength: 320 });

export const validateUpdateUser = makeValidator(
  Type.Object({ role: Type.Union([Type.Literal('admin'), Type.Literal('member')]) }, { additionalProperties: false }),
  () => {},
);

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
export const validateCreateInvite = makeValidator(CreateInviteSchema, () => {});

export const validateAcceptInvite = makeValidator(
  Type.Object(
    {
      token: Type.String({ minLength: 10, maxLength: 200 }),
      first_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      last_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    },
    { additionalProperties: false },
  ),
  () => {},
);
