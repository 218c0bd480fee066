/**
 * Bodies of the MCP Integrations group (api-surface §3.15). The schemas check the shape; the use cases check what
 * depends on other fields (headers against auth_type, the URL against the SSRF rules).
 */
import { Type } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { UUID_PATTERN } from '../../../core/ids.ts';
import { Nullable, StringEnum } from '../../../core/schemas/common.ts';
import type {
  CreateMcpIntegrationInput,
  UpdateCapabilitiesInput,
  UpdateMcpIntegrationInput,
  UpdateMcpWorkspacesInput,
} from '../../../domain/mcp-integrations/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

export const MCP_ID_OR_SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,255}$';
const WORKSPACE_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Description = Nullable(Type.String({ maxLength: 1000 }));
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'the upstream MCP server\'s Streamable HTTP endpoint' });
const AuthType = StringEnum(['oauth_auto', 'headers', 'none'] as const);
const Transport = StringEnum(['http', 'sse'] as const);
const Configurations = Type.Object(
  {
    custom_headers: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 50, description: 'header name -> value; sealed at rest, shown as ********' })),
    passthrough_header: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
const SecretMappings = Type.Array(
  Type.Object(
    {
      target_field: Type.String({ minLength: 1, maxLength: 255 }),
      secret_reference_id: Type.String({ pattern: MCP_ID_OR_SLUG_PATTERN }),
      secret_key: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 1024 }))),
      value_format: Type.Optional(Nullable(StringEnum(['json', 'string'] as const))),
    },
    { additionalProperties: false },
  ),
  { maxItems: 50 },
);

export const CreateMcpIntegrationSchema = Type.Object(
  {
    organisation_id: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
    workspace_id: Type.Optional(Type.String({ pattern: WORKSPACE_PATTERN })),
    slug: Type.Optional(Type.String({ pattern: MCP_ID_OR_SLUG_PATTERN })),
    name: Name,
    description: Type.Optional(Description),
    configurations: Type.Optional(Configurations),
    url: Url,
    auth_type: AuthType,
    transport: Transport,
    secret_mappings: Type.Optional(SecretMappings),
  },
  { additionalProperties: false },
);

export const UpdateMcpIntegrationSchema = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    configurations: Type.Optional(Configurations),
    url: Type.Optional(Url),
    auth_type: Type.Optional(AuthType),
    transport: Type.Optional(Transport),
    secret_mappings: Type.Optional(SecretMappings),
  },
  { additionalProperties: false },
);

export const UpdateMcpWorkspacesSchema = Type.Object(
  {
    workspaces: Type.Array(Type.Object({ id: Type.String({ pattern: WORKSPACE_PATTERN }), enabled: Type.Boolean() }, { additionalProperties: false }), { maxItems: 500 }),
    global_workspace_access: Type.Optional(Nullable(Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }))),
    override_existing_workspace_access: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const UpdateMcpCapabilitiesSchema = Type.Object(
  {
    capabilities: Type.Array(
      Type.Object(
        { name: Type.String({ minLength: 1, maxLength: 2048 }), type: StringEnum(['tool', 'prompt', 'resource', 'resource_template'] as const), enabled: Type.Boolean() },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { additionalProperties: false },
);

function somethingToUpdate(body: object): void {
  if (Object.keys(body).length === 0) throw invalidParam('body', 'The body must set at least one of name, description, configurations, url, auth_type, transport or secret_mappings.');
}

export const validateCreateMcpIntegration: BodyValidator<CreateMcpIntegrationInput> = makeValidator(CreateMcpIntegrationSchema, () => {});
export const validateUpdateMcpIntegration: BodyValidator<UpdateMcpIntegrationInput> = makeValidator(UpdateMcpIntegrationSchema, somethingToUpdate);
export const validateUpdateMcpWorkspaces: BodyValidator<UpdateMcpWorkspacesInput> = makeValidator(UpdateMcpWorkspacesSchema, () => {});
export const validateUpdateMcpCapabilities: BodyValidator<UpdateCapabilitiesInput> = makeValidator(UpdateMcpCapabilitiesSchema, () => {});
