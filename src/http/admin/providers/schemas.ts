/**
 * Bodies of the Providers group (api-surface §3.4), and the limit shapes the Virtual keys group shares (§0.7
 * RateLimits, UsageLimits). A provider's `rate_limits` is one limit (the reference's create body) or a list (what
 * reads show).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { StringEnum } from '../../../core/schemas/common.ts';
import type { CreateProviderInput, UpdateProviderInput } from '../../../domain/providers/inputs.ts';
import { PROVIDER_SLUG_PATTERN } from '../../../domain/providers/slug.ts';
import { makeValidator } from '../../schemas/validate.ts';
import { UsageLimitsSchema } from '../api-keys/schemas.ts';
import type { BodyValidator } from '../body-validator.ts';

export { PROVIDER_SLUG_PATTERN };

/** A workspace's id or slug, as every admin group takes it. */
const WORKSPACE = Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ProviderNameSchema = Type.String({ minLength: 1, maxLength: 255 });
export const NoteSchema = Nullable(Type.String({ maxLength: 2000 }));
export const ExpiresAtSchema = Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'ISO-8601 date-time in the future' }));

export const ProviderRateLimitSchema = Type.Object(
  {
    type: StringEnum(['requests', 'tokens'] as const),
    unit: StringEnum(['rpm', 'rph', 'rpd'] as const),
    value: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export const RateLimitsSchema = Nullable(Type.Union([ProviderRateLimitSchema, Type.Array(ProviderRateLimitSchema, { maxItems: 10 })]));
export const UsageLimitsOrNullSchema = Nullable(UsageLimitsSchema);

export const CreateProviderSchema = Type.Object(
  {
    name: ProviderNameSchema,
    integration_id: Type.String({ pattern: PROVIDER_SLUG_PATTERN, description: 'the integration\'s slug or id' }),
    workspace_id: Type.Optional(WORKSPACE),
    slug: Type.Optional(Type.String({ pattern: PROVIDER_SLUG_PATTERN })),
    note: Type.Optional(NoteSchema),
    usage_limits: Type.Optional(UsageLimitsOrNullSchema),
    rate_limits: Type.Optional(RateLimitsSchema),
    expires_at: Type.Optional(ExpiresAtSchema),
  },
  { additionalProperties: false },
);

export const UpdateProviderSchema = Type.Object(
  {
    name: Type.Optional(ProviderNameSchema),
    note: Type.Optional(NoteSchema),
    usage_limits: Type.Optional(UsageLimitsOrNullSchema),
    rate_limits: Type.Optional(RateLimitsSchema),
    expires_at: Type.Optional(ExpiresAtSchema),
    reset_usage: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** §0.7: periodic_reset and periodic_reset_days are mutually exclusive. */
export function usageLimitRule(limits: Static<typeof UsageLimitsSchema> | null | undefined): void {
  if (limits && limits.periodic_reset != null && limits.periodic_reset_days != null) {
    throw invalidParam('usage_limits.periodic_reset_days', 'periodic_reset and periodic_reset_days cannot both be set.');
  }
}

function somethingToUpdate(body: Static<typeof UpdateProviderSchema>): void {
  if (Object.keys(body).length === 0) throw invalidParam('body', 'The body must set at least one field.');
  usageLimitRule(body.usage_limits);
}

export const validateCreateProvider: BodyValidator<CreateProviderInput> = makeValidator(CreateProviderSchema, (body) => usageLimitRule(body.usage_limits));
export const validateUpdateProvider: BodyValidator<UpdateProviderInput> = makeValidator(UpdateProviderSchema, somethingToUpdate);
