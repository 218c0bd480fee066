/**
 * Bodies of the Secret references group (api-surface §3.17). auth_config's fields depend on manager_type: these
 * schemas check its shape (string fields), the use case judges the fields (src/domain/secret-references/auth-config.ts).
 * manager_type takes the reference's three managers and two of our own: `sealed` (the value, in
 * auth_config.secret_value, sealed in the database) and `env` (secret_path names an environment variable).
 */
import { Type } from '@sinclair/typebox';
import { UUID_PATTERN } from '../../../core/ids.ts';
import type { CreateSecretReferenceInput, UpdateSecretReferenceInput } from '../../../domain/secret-references/inputs.ts';
import { MANAGER_TYPES } from '../../../secrets/managers/types.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

export const SECRET_REFERENCE_SLUG_PATTERN = '^[a-zA-Z0-9_-]+$';
export const SECRET_REFERENCE_ID_PATTERN = '^[a-zA-Z0-9_-]{1,255}$';

export const ManagerTypeSchema = Type.Union(MANAGER_TYPES.map((type) => Type.Literal(type)));

const AUTH_CONFIG_DESCRIPTION = [
  'The manager\'s credentials; secrets are sealed at rest and masked in every read.',
  'aws_sm: aws_auth_type accessKey, aws_access_key_id, aws_secret_access_key, aws_region, optional aws_endpoint_url',
  '(assumedRole and serviceRole are refused: the gateway has no AWS identity of its own).',
  'azure_kv: azure_auth_mode entra, azure_entra_tenant_id, azure_entra_client_id, azure_entra_client_secret,',
  'azure_vault_url, optional azure_authority_host (managed and default are refused).',
  'hashicorp_vault: vault_auth_type token (vault_addr, vault_token) or approle (vault_addr, vault_role_id,',
  'vault_secret_id), optional vault_namespace (kubernetes is refused).',
  'sealed: secret_value. env: nothing (may be omitted).',
  'On update, a secret sent back as `********` keeps its stored value.',
].join(' ');

const AuthConfigSchema = Type.Record(
  Type.String({ maxLength: 64 }),
  Type.Union([Type.String({ maxLength: 8192 }), Type.Null()]),
  { maxProperties: 20, description: AUTH_CONFIG_DESCRIPTION },
);

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Description = Type.Union([Type.String({ maxLength: 1024 }), Type.Null()]);
const SecretPath = Type.String({
  maxLength: 1024,
  description: 'aws_sm: a secret name or ARN; azure_kv: a secret name[/version]; hashicorp_vault: <mount>/<path> of a KV v2 engine; env: a variable name; sealed: unused',
});
const SecretKey = Type.Union([Type.String({ minLength: 1, maxLength: 255, description: 'picks one key of a JSON secret' }), Type.Null()]);
const AllowedWorkspaces = Type.Array(Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }), {
  minItems: 1,
  maxItems: 1000,
  description: 'workspace ids or slugs; naming them without allow_all_workspaces sets it to false',
});
const Tags = Type.Union([Type.Record(Type.String({ maxLength: 255 }), Type.String({ maxLength: 255 }), { maxProperties: 50 }), Type.Null()]);

export const CreateSecretReferenceSchema = Type.Object(
  {
    organisation_id: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
    name: Name,
    slug: Type.Optional(Type.String({ maxLength: 255, pattern: SECRET_REFERENCE_SLUG_PATTERN })),
    description: Type.Optional(Description),
    manager_type: ManagerTypeSchema,
    auth_config: Type.Optional(AuthConfigSchema),
    secret_path: Type.Optional(SecretPath),
    secret_key: Type.Optional(SecretKey),
    allow_all_workspaces: Type.Optional(Type.Boolean({ default: true })),
    allowed_workspaces: Type.Optional(AllowedWorkspaces),
    tags: Type.Optional(Tags),
  },
  { additionalProperties: false },
);

export const UpdateSecretReferenceSchema = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    auth_config: Type.Optional(AuthConfigSchema),
    secret_path: Type.Optional(SecretPath),
    secret_key: Type.Optional(SecretKey),
    allow_all_workspaces: Type.Optional(Type.Boolean()),
    allowed_workspaces: Type.Optional(AllowedWorkspaces),
    tags: Type.Optional(Tags),
  },
  { additionalProperties: false },
);

const noRules = (): void => {};

export const validateCreateSecretReference: BodyValidator<CreateSecretReferenceInput> = makeValidator(CreateSecretReferenceSchema, noRules);
export const validateUpdateSecretReference: BodyValidator<UpdateSecretReferenceInput> = makeValidator(UpdateSecretReferenceSchema, noRules);
