/**
 * Bodies of the Integrations group (api-surface §3.3; shared shapes §0.7). These schemas check the shape; what
 * `configurations` may hold depends on the provider and is the use case's call (domain/integrations/configurations.ts),
 * so its errors name `configurations.<field>`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { Nullable, StringEnum } from '../../../core/schemas/common.ts';
import type {
  CreateIntegrationInput,
  UpdateIntegrationInput,
  UpdateModelsInput,
  UpdateWorkspacesInput,
} from '../../../domain/integrations/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import { UsageLimitsSchema } from '../api-keys/schemas.ts';
import type { BodyValidator } from '../body-validator.ts';

/** An integration's (and a provider's) slug, also the `{slug}` path parameter: a UUID or a slug. */
export const INTEGRATION_SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,255}$';
const WORKSPACE_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';
/** A model id as providers write them (`meta-llama/Llama-3-70b`, `anthropic.claude-v2:1`); no comma (DELETE lists them). */
export const MODEL_SLUG_PATTERN = '^[^\\s,]{1,255}$';

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Slug = Type.String({ pattern: INTEGRATION_SLUG_PATTERN });
const Key = Type.String({ minLength: 1, maxLength: 8192 });
const Description = Nullable(Type.String({ maxLength: 1000 }));
/** Checked as an object of at most 50 fields here; which fields, per provider, in the use case. */
const Configurations = Type.Record(Type.String(), Type.Unknown(), { maxProperties: 50 });

const SecretMappingSchema = Type.Object(
  {
    target_field: Type.String({ minLength: 1, maxLength: 255 }),
    secret_reference_id: Type.String({ pattern: INTEGRATION_SLUG_PATTERN }),
    secret_key: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 1024 }))),
    value_format: Type.Optional(Nullable(StringEnum(['json', 'string'] as const))),
  },
  { additionalProperties: false },
);
const SecretMappings = Type.Array(SecretMappingSchema, { maxItems: 50 });

const Multiplier = Nullable(Type.Number({ minimum: 0 }));
const MULTIPLIED = [
  'default', 'request_token', 'response_token', 'cache_read_input_token', 'cache_write_input_token', 'cache_read_audio_input_token',
  'request_audio_token', 'response_audio_token', 'reasoning_token', 'prediction_accepted_token', 'prediction_rejected_token',
  'request_image_token', 'response_image_token', 'request_text_token', 'response_text_token', 'cache_read_image_input_token',
  'cache_read_text_input_token', 'cache_write_text_input_token', 'cache_write_image_input_token',
] as const;

/** §0.7 PricingMultiplier: every field a non-negative number or null. */
const PricingMultiplierSchema = Type.Object(
  {
    ...Object.fromEntries(MULTIPLIED.map((name) => [name, Type.Optional(Multiplier)])),
    image: Type.Optional(Nullable(Type.Object({ default: Type.Optional(Multiplier) }, { additionalProperties: false }))),
    additional_units: Type.Optional(Nullable(Type.Record(Type.String({ maxLength: 255 }), Multiplier, { maxProperties: 100 }))),
  },
  { additionalProperties: false },
);
const PricingAdjustments = Nullable(Type.Object({ multiplier: Type.Optional(Nullable(PricingMultiplierSchema)) }, { additionalProperties: false }));

const TokenPrice = Type.Object({ price: Type.Number({ minimum: 0 }) }, { additionalProperties: false });
const PRICED = [
  'request_token', 'response_token', 'cache_write_input_token', 'cache_read_input_token', 'reasoning_token',
  'request_audio_token', 'response_audio_token', 'cache_read_audio_input_token',
] as const;

/** §3.25 ModelPricingConfig, the per-token part: prices per token, in cents as the reference's (0.003 = 0.003 ¢). */
const PricingConfigSchema = Type.Object(
  {
    type: Type.Optional(Type.Literal('static')),
    currency: Type.Optional(Type.Literal('USD')),
    pay_as_you_go: Type.Object(
      {
        ...Object.fromEntries(PRICED.map((name) => [name, Type.Optional(TokenPrice)])),
        additional_units: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), TokenPrice, { maxProperties: 100 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const CreateIntegrationSchema = Type.Object(
  {
    name: Name,
    slug: Type.Optional(Slug),
    ai_provider_id: Type.String({ minLength: 1, maxLength: 64 }),
    key: Type.Optional(Key),
    description: Type.Optional(Description),
    /** a workspace id or slug: an integration of that workspace only */
    workspace_id: Type.Optional(Type.String({ pattern: WORKSPACE_PATTERN })),
    configurations: Type.Optional(Configurations),
    create_default_provider: Type.Optional(Type.Boolean()),
    default_provider_slug: Type.Optional(Slug),
    secret_mappings: Type.Optional(SecretMappings),
    pricing_adjustments: Type.Optional(PricingAdjustments),
  },
  { additionalProperties: false },
);
export type CreateIntegrationBody = Static<typeof CreateIntegrationSchema>;

export const UpdateIntegrationSchema = Type.Object(
  {
    name: Type.Optional(Name),
    /** the key, or the mask it is shown as (keeps the stored key) */
    key: Type.Optional(Key),
    description: Type.Optional(Description),
    configurations: Type.Optional(Configurations),
    secret_mappings: Type.Optional(SecretMappings),
    pricing_adjustments: Type.Optional(PricingAdjustments),
  },
  { additionalProperties: false },
);
export type UpdateIntegrationBody = Static<typeof UpdateIntegrationSchema>;

const ModelUpdateSchema = Type.Object(
  {
    slug: Type.String({ pattern: MODEL_SLUG_PATTERN }),
    enabled: Type.Boolean(),
    name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    is_custom: Type.Optional(Nullable(Type.Boolean())),
    is_finetune: Type.Optional(Nullable(Type.Boolean())),
    base_model_slug: Type.Optional(Nullable(Type.String({ pattern: MODEL_SLUG_PATTERN }))),
    configurations: Type.Optional(Nullable(Type.Object({ custom_host: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })) }, { additionalProperties: false }))),
    pricing_config: Type.Optional(Nullable(PricingConfigSchema)),
  },
  { additionalProperties: false },
);

export const UpdateModelsSchema = Type.Object(
  {
    models: Type.Array(ModelUpdateSchema, { maxItems: 500 }),
    allow_all_models: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type UpdateModelsBody = Static<typeof UpdateModelsSchema>;

/** §0.7 RateLimits as workspaces take them (rpd, rph, rpm). */
const RateLimitSchema = Type.Object(
  {
    type: StringEnum(['requests', 'tokens'] as const),
    unit: StringEnum(['rpd', 'rph', 'rpm'] as const),
    value: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
const limits = {
  usage_limits: Type.Optional(Nullable(Type.Array(UsageLimitsSchema, { maxItems: 1 }))),
  rate_limits: Type.Optional(Nullable(Type.Array(RateLimitSchema, { maxItems: 1 }))),
};

const WorkspaceAccessSchema = Type.Object(
  {
    id: Type.String({ pattern: WORKSPACE_PATTERN }),
    enabled: Type.Boolean(),
    ...limits,
    reset_usage: Type.Optional(Type.Boolean()),
    create_default_provider: Type.Optional(Type.Boolean()),
    default_provider_slug: Type.Optional(Slug),
  },
  { additionalProperties: false },
);

export const UpdateWorkspacesSchema = Type.Object(
  {
    workspaces: Type.Optional(Type.Array(WorkspaceAccessSchema, { maxItems: 500 })),
    global_workspace_access: Type.Optional(Nullable(Type.Object({ enabled: Type.Boolean(), ...limits }, { additionalProperties: false }))),
    override_existing_workspace_access: Type.Optional(Type.Boolean()),
    create_default_provider: Type.Optional(Type.Boolean()),
    default_provider_slug: Type.Optional(Slug),
  },
  { additionalProperties: false },
);
export type UpdateWorkspacesBody = Static<typeof UpdateWorkspacesSchema>;

type UsageLimits = Static<typeof UsageLimitsSchema>;

/** §0.7: periodic_reset and periodic_reset_days are mutually exclusive. */
function usageLimitRules(list: readonly UsageLimits[] | null | undefined, at: string): void {
  list?.forEach((limit, index) => {
    if (limit.periodic_reset != null && limit.periodic_reset_days != null) {
      throw invalidParam(`${at}[${index}].periodic_reset_days`, 'periodic_reset and periodic_reset_days cannot both be set.');
    }
  });
}

/** A PUT that names nothing changes nothing: refuse it rather than record an empty change. */
function somethingToUpdate(body: UpdateIntegrationBody): void {
  if (Object.keys(body).length === 0) {
    throw invalidParam('body', 'The body must set at least one of name, key, description, configurations, secret_mappings or pricing_adjustments.');
  }
}

export const validateCreateIntegration: BodyValidator<CreateIntegrationInput> = makeValidator(CreateIntegrationSchema, () => {});
export const validateUpdateIntegration: BodyValidator<UpdateIntegrationInput> = makeValidator(UpdateIntegrationSchema, somethingToUpdate);
export const validateUpdateModels: BodyValidator<UpdateModelsInput> = makeValidator(UpdateModelsSchema, () => {});
export const validateUpdateWorkspaces: BodyValidator<UpdateWorkspacesInput> = makeValidator(UpdateWorkspacesSchema, (body) => {
  usageLimitRules(body.global_workspace_access?.usage_limits, 'global_workspace_access.usage_limits');
  body.workspaces?.forEach((entry, index) => usageLimitRules(entry.usage_limits, `workspaces[${index}].usage_limits`));
});
