/** Bodies of the MCP Servers group (api-surface §3.16). */
import { Type } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { UUID_PATTERN } from '../../../core/ids.ts';
import { Nullable, StringEnum } from '../../../core/schemas/common.ts';
import type { CreateMcpServerInput, UpdateMcpServerInput, UpdateUserAccessInput } from '../../../domain/mcp-servers/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';
import { MCP_ID_OR_SLUG_PATTERN } from '../mcp-integrations/schemas.ts';

export const MCP_SERVER_SLUG_PATTERN = '^[a-zA-Z0-9_-]{3,50}$';
const Name = Type.String({ minLength: 1, maxLength: 255 });
const Description = Nullable(Type.String({ maxLength: 500 }));

export const CreateMcpServerSchema = Type.Object(
  {
    workspace_id: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' })),
    name: Name,
    description: Type.Optional(Description),
    mcp_integration_id: Type.String({ pattern: MCP_ID_OR_SLUG_PATTERN }),
    slug: Type.Optional(Type.String({ pattern: MCP_SERVER_SLUG_PATTERN })),
  },
  { additionalProperties: false },
);

export const UpdateMcpServerSchema = Type.Object({ name: Type.Optional(Name), description: Type.Optional(Description) }, { additionalProperties: false });

export const UpdateMcpUserAccessSchema = Type.Object(
  {
    user_access: Type.Optional(
      Type.Array(Type.Object({ user_id: Type.String({ pattern: UUID_PATTERN }), enabled: Type.Boolean() }, { additionalProperties: false }), { maxItems: 1000 }),
    ),
    default_user_access: Type.Optional(StringEnum(['allow', 'deny'] as const)),
  },
  { additionalProperties: false },
);

function nonEmpty(fields: string) {
  return (body: object): void => {
    if (Object.keys(body).length === 0) throw invalidParam('body', `The body must set at least one of ${fields}.`);
  };
}

export const validateCreateMcpServer: BodyValidator<CreateMcpServerInput> = makeValidator(CreateMcpServerSchema, () => {});
export const validateUpdateMcpServer: BodyValidator<UpdateMcpServerInput> = makeValidator(UpdateMcpServerSchema, nonEmpty('name or description'));
export const validateUpdateMcpUserAccess: BodyValidator<UpdateUserAccessInput> = makeValidator(UpdateMcpUserAccessSchema, nonEmpty('user_access or default_user_access'));
