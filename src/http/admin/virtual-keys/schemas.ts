/**
 * Bodies of the legacy Virtual keys group (api-surface §3.2): the provider credential in `key`, the camelCase cloud
 * fields, one `rate_limits` object (a list is accepted too), `secret_mappings` whose targets are `key` or
 * `model_config.<field>`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { StringEnum } from '../../../core/schemas/common.ts';
import type { CreateVirtualKeyInput, UpdateVirtualKeyInput } from '../../../domain/virtual-keys/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';
import {
  ExpiresAtSchema,
  NoteSchema,
  PROVIDER_SLUG_PATTERN,
  ProviderNameSchema,
  RateLimitsSchema,
  UsageLimitsOrNullSchema,
  usageLimitRule,
} from '../providers/schemas.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Setting = Nullable(Type.String({ minLength: 1, maxLength: 255 }));

const DeploymentSchema = Type.Object(
  {
    apiVersion: Type.String({ minLength: 1, maxLength: 30 }),
    deploymentName: Type.String({ minLength: 1, maxLength: 255 }),
    alias: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    is_default: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const SecretMappingSchema = Type.Object(
  {
    target_field: Type.String({ minLength: 1, maxLength: 255 }),
    secret_reference_id: Type.String({ minLength: 1, maxLength: 255 }),
    secret_key: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    value_format: Type.Optional(Nullable(StringEnum(['json', 'string'] as const))),
  },
  { additionalProperties: false },
);

const legacy = {
  note: Type.Optional(NoteSchema),
  apiVersion: Type.Optional(Setting),
  resourceName: Type.Optional(Setting),
  deploymentName: Type.Optional(Setting),
  deploymentConfig: Type.Optional(Type.Array(DeploymentSchema, { maxItems: 50 })),
  usage_limits: Type.Optional(UsageLimitsOrNullSchema),
  rate_limits: Type.Optional(RateLimitsSchema),
  expires_at: Type.Optional(ExpiresAtSchema),
  secret_mappings: Type.Optional(Type.Array(SecretMappingSchema, { maxItems: 20 })),
};

const Key = Type.String({ minLength: 1, maxLength: 16_384 });

export const CreateVirtualKeySchema = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 100, description: 'the provider name, as x-gateway-provider takes it' }),
    name: Type.Optional(ProviderNameSchema),
    key: Type.Optional(Key),
    slug: Type.Optional(Type.String({ pattern: PROVIDER_SLUG_PATTERN })),
    workspace_id: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' })),
    ...legacy,
  },
  { additionalProperties: false },
);

export const UpdateVirtualKeySchema = Type.Object(
  { name: Type.Optional(ProviderNameSchema), key: Type.Optional(Key), reset_usage: Type.Optional(Type.Boolean()), ...legacy },
  { additionalProperties: false },
);

type Shared = Pick<Static<typeof CreateVirtualKeySchema>, 'secret_mappings' | 'deploymentConfig' | 'usage_limits'>;

/** Mapping targets a virtual key has, each once; one default deployment at most. */
function sharedRules(body: Shared): void {
  usageLimitRule(body.usage_limits);
  const seen = new Set<string>();
  body.secret_mappings?.forEach((mapping, index) => {
    const field = mapping.target_field;
    const param = `secret_mappings[${index}].target_field`;
    if (field !== 'key' && !/^model_config\.[A-Za-z0-9_]+$/.test(field)) throw invalidParam(param, 'target_field must be "key" or "model_config.<field>".');
    if (seen.has(field)) throw invalidParam(param, `target_field "${field}" is mapped more than once.`);
    seen.add(field);
  });
  const defaults = body.deploymentConfig?.filter((deployment) => deployment.is_default === true).length ?? 0;
  if (defaults > 1) throw invalidParam('deploymentConfig', 'At most one deployment can be the default (is_default).');
}

export const validateCreateVirtualKey: BodyValidator<CreateVirtualKeyInput> = makeValidator(CreateVirtualKeySchema, sharedRules);
export const validateUpdateVirtualKey: BodyValidator<UpdateVirtualKeyInput> = makeValidator(UpdateVirtualKeySchema, (body) => {
  if (Object.keys(body).length === 0) throw invalidParam('body', 'The body must set at least one field.');
  sharedRules(body);
});
