/** Bodies of the API keys group (reference: CreateApiKeyObject, UpdateApiKeyObject, rotate). */
import { Type, type Static } from '@sinclair/typebox';
import type { CreateApiKeyInput, RotateApiKeyInput, UpdateApiKeyInput } from '../../../domain/api-keys/inputs.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Object> | ReturnType<typeof Type.Array>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const RateLimitSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('requests'), Type.Literal('tokens')]),
    unit: Type.Union(['rpd', 'rph', 'rpm', 'rps', 'rpw'].map((unit) => Type.Literal(unit))),
    value: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export const UsageLimitsSchema = Type.Object(
  {
    credit_limit: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    type: Type.Optional(Type.Union([Type.Literal('cost'), Type.Literal('tokens')])),
    alert_threshold: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    periodic_reset: Type.Optional(Type.Union([Type.Literal('monthly'), Type.Literal('weekly'), Type.Null()])),
    periodic_reset_days: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 365 }), Type.Null()])),
    next_usage_reset_at: Type.Optional(Type.Union([Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' }), Type.Null()])),
  },
  { additionalProperties: false },
);

const Defaults = Type.Object(
  {
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    config_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    allow_config_override: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const RotationPolicy = Type.Object(
  {
    rotation_period: Type.Optional(Type.Union([Type.Literal('weekly'), Type.Literal('monthly'), Type.Null()])),
    next_rotation_at: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    key_transition_period_ms: Type.Optional(Type.Integer({ minimum: 1_800_000 })),
  },
  { additionalProperties: false },
);

const Email = Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 320 });

const common = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  rate_limits: Type.Optional(Type.Union([Type.Array(RateLimitSchema, { maxItems: 10 }), Type.Null()])),
  usage_limits: Type.Optional(Type.Union([UsageLimitsSchema, Type.Null()])),
  defaults: Type.Optional(Type.Union([Defaults, Type.Null()])),
  alert_emails: Type.Optional(Type.Union([Type.Array(Email, { maxItems: 50 }), Type.Null()])),
  expires_at: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
  rotation_policy: Type.Optional(Type.Union([RotationPolicy, Type.Null()])),
};

export const CreateApiKeySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    scopes: Type.Array(Type.String({ minLength: 1 }), { maxItems: 200 }),
    organisation_id: Type.Optional(Type.String()),
    workspace_id: Type.Optional(Type.String({ minLength: 1 })),
    user_id: Type.Optional(Type.String()),
    ...common,
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeySchema>;

export const UpdateApiKeySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 200 })),
    reset_usage: Type.Optional(Type.Boolean()),
    ...common,
  },
  { additionalProperties: false },
);
export type UpdateApiKeyBody = Static<typeof UpdateApiKeySchema>;

export const RotateApiKeySchema = Type.Object(
  { key_transition_period_ms: Type.Optional(Type.Integer({ minimum: 1_800_000 })) },
  { additionalProperties: false },
);
export type RotateApiKeyBody = Static<typeof RotateApiKeySchema>;

export const validateCreateApiKey: BodyValidator<CreateApiKeyInput> = makeValidator(CreateApiKeySchema, () => {});
export const validateUpdateApiKey: BodyValidator<UpdateApiKeyInput> = makeValidator(UpdateApiKeySchema, () => {});
export const validateRotateApiKey: BodyValidator<RotateApiKeyInput> = makeValidator(RotateApiKeySchema, () => {});
