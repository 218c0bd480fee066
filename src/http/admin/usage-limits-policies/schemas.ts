/** Bodies of the Usage Limits Policies group (api-surface §3.18). */
import { Type, type Static } from '@sinclair/typebox';
import { invalidParam } from '../../../core/errors.ts';
import { UUID_PATTERN } from '../../../core/ids.ts';
import { Nullable, StringEnum } from '../../../core/schemas/common.ts';
import type { CreateUsageLimitsPolicyInput, UpdateUsageLimitsPolicyInput } from '../../../domain/usage-limits-policies/inputs.ts';
import { MATCH_KEY_PATTERN } from '../../../limits/policy-match.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

const Name = Type.String({ maxLength: 255 });
const Key = Type.String({ pattern: MATCH_KEY_PATTERN, description: 'api_key, organisation_id, workspace_id, provider or metadata.<name>' });
const Condition = Type.Object({ key: Key, value: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false });
const GroupBy = Type.Object({ key: Key }, { additionalProperties: false });
const Amount = Type.Number({ minimum: 0, description: 'USD for a cost budget, tokens for a tokens budget' });
const PeriodicReset = StringEnum(['weekly', 'monthly'] as const);
const OnStoreFailure = Type.Union([Type.Literal('open'), Type.Literal('closed')], {
  description: 'when the counter store (Redis) cannot be reached: `closed` (the default) refuses the requests the policy applies to (503), `open` lets them through uncounted',
});

export const CreateUsageLimitsPolicySchema = Type.Object(
  {
    name: Type.Optional(Nullable(Name)),
    conditions: Type.Array(Condition, { minItems: 1, maxItems: 50 }),
    group_by: Type.Array(GroupBy, { minItems: 1, maxItems: 10 }),
    type: StringEnum(['cost', 'tokens'] as const),
    credit_limit: Amount,
    alert_threshold: Type.Optional(Nullable(Amount)),
    periodic_reset: Type.Optional(Nullable(PeriodicReset)),
    on_store_failure: Type.Optional(OnStoreFailure),
    /** a workspace id or slug */
    workspace_id: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' })),
    organisation_id: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
  },
  { additionalProperties: false },
);
export type CreateUsageLimitsPolicyBody = Static<typeof CreateUsageLimitsPolicySchema>;

export const UpdateUsageLimitsPolicySchema = Type.Object(
  {
    name: Type.Optional(Nullable(Name)),
    credit_limit: Type.Optional(Amount),
    alert_threshold: Type.Optional(Nullable(Amount)),
    /** null removes the reset: the policy becomes cumulative */
    periodic_reset: Type.Optional(Nullable(PeriodicReset)),
    on_store_failure: Type.Optional(OnStoreFailure),
    reset_usage_for_value: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  },
  { additionalProperties: false },
);
export type UpdateUsageLimitsPolicyBody = Static<typeof UpdateUsageLimitsPolicySchema>;

/** A PUT that names nothing changes nothing: refuse it rather than answer a success that did nothing. */
function somethingToUpdate(body: UpdateUsageLimitsPolicyBody): void {
  if (Object.keys(body).length === 0) {
    throw invalidParam('body', 'The body must set at least one of name, credit_limit, alert_threshold, periodic_reset, on_store_failure or reset_usage_for_value.');
  }
}

/** The entity reset takes no body; an empty object is accepted too (clients that always send one). */
export const ResetUsageLimitsEntitySchema = Type.Object({}, { additionalProperties: false });

const validateResetBody = makeValidator(ResetUsageLimitsEntitySchema, () => {});

export function validateResetUsageLimitsEntity(body: unknown): void {
  if (body !== undefined && body !== null) validateResetBody(body);
}

export const validateCreateUsageLimitsPolicy: BodyValidator<CreateUsageLimitsPolicyInput> = makeValidator(CreateUsageLimitsPolicySchema, () => {});
export const validateUpdateUsageLimitsPolicy: BodyValidator<UpdateUsageLimitsPolicyInput> = makeValidator(UpdateUsageLimitsPolicySchema, somethingToUpdate);
