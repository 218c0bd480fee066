/**
 * Bodies of the Rate limits policies group (§3.19). The update is the seed's: an object with optional `name` (a
 * string of at most 255), `unit` (`rpm`, `rph`, `rpd`) and `value` (a positive number), plus our optional
 * `on_store_failure` (`open` | `closed`, also on create); anything else, an unknown field included, is a 400 naming it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { UUID_PATTERN } from '../../../core/ids.ts';
import type { CreateRateLimitsPolicyInput, UpdateRateLimitsPolicyInput } from '../../../domain/rate-limits-policies/inputs.ts';
import { MATCH_KEY_PATTERN } from '../../../limits/policy-match.ts';
import { makeValidator } from '../../schemas/validate.ts';
import type { BodyValidator } from '../body-validator.ts';

export const POLICY_TYPES = ['requests', 'tokens'] as const;
export const POLICY_UNITS = ['rpm', 'rph', 'rpd'] as const;
export const POLICY_STATUSES = ['active', 'archived'] as const;
export const WORKSPACE_ID_OR_SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';

const Name = Type.String({ maxLength: 255 });
const Unit = Type.Union(POLICY_UNITS.map((unit) => Type.Literal(unit)));
/** the seed: a number; a limit of 0 or less would refuse every request, so it must be positive */
const Value = Type.Number({ exclusiveMinimum: 0 });
export const STORE_FAILURE_MODES = ['open', 'closed'] as const;
const OnStoreFailure = Type.Union(STORE_FAILURE_MODES.map((mode) => Type.Literal(mode)), {
  description: 'when the counter store (Redis) cannot be reached: `open` (the default) lets the requests through, `closed` refuses them (503 with retry-after)',
});
const Key = Type.String({ pattern: MATCH_KEY_PATTERN, description: 'api_key, organisation_id, workspace_id, provider or metadata.<name>' });

const ConditionSchema = Type.Object({ key: Key, value: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false });
const GroupBySchema = Type.Object({ key: Key }, { additionalProperties: false });

export const CreateRateLimitsPolicySchema = Type.Object(
  {
    name: Type.Optional(Name),
    conditions: Type.Array(ConditionSchema, { minItems: 1, maxItems: 20 }),
    group_by: Type.Array(GroupBySchema, { minItems: 1, maxItems: 5 }),
    type: Type.Union(POLICY_TYPES.map((type) => Type.Literal(type))),
    unit: Unit,
    value: Value,
    on_store_failure: Type.Optional(OnStoreFailure),
    /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
    workspace_id: Type.Optional(Type.String({ pattern: WORKSPACE_ID_OR_SLUG_PATTERN })),
    organisation_id: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
  },
  { additionalProperties: false },
);
export type CreateRateLimitsPolicyBody = Static<typeof CreateRateLimitsPolicySchema>;

export const UpdateRateLimitsPolicySchema = Type.Object(
  { name: Type.Optional(Name), unit: Type.Optional(Unit), value: Type.Optional(Value), on_store_failure: Type.Optional(OnStoreFailure) },
  { additionalProperties: false },
);
export type UpdateRateLimitsPolicyBody = Static<typeof UpdateRateLimitsPolicySchema>;

export const validateCreateRateLimitsPolicy: BodyValidator<CreateRateLimitsPolicyInput> = makeValidator(CreateRateLimitsPolicySchema, () => {});
export const validateUpdateRateLimitsPolicy: BodyValidator<UpdateRateLimitsPolicyInput> = makeValidator(UpdateRateLimitsPolicySchema, () => {});
