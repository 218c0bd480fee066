/** Answers of the Usage Limits Policies group, as src/domain/usage-limits-policies/views.ts builds them. */
import { Type } from '@sinclair/typebox';
import { NullableString, NullableTimestamp, NullableUuid, Timestamp, Uuid } from '../common-schemas.ts';

const Rule = Type.Object({ key: Type.String(), value: Type.String() });

export const UsageLimitsPolicySchema = Type.Object(
  {
    object: Type.Literal('usage_limits_policy'),
    id: Uuid,
    name: NullableString,
    conditions: Type.Array(Rule),
    group_by: Type.Array(Type.Object({ key: Type.String() })),
    type: Type.Union([Type.Literal('cost'), Type.Literal('tokens')]),
    credit_limit: Type.Number({ description: 'USD for a cost budget, tokens for a tokens budget' }),
    alert_threshold: Type.Union([Type.Number(), Type.Null()]),
    periodic_reset: Type.Union([Type.Literal('weekly'), Type.Literal('monthly'), Type.Null()]),
    periodic_reset_days: Type.Union([Type.Integer(), Type.Null()]),
    next_usage_reset_at: NullableTimestamp,
    last_reset_at: NullableTimestamp,
    on_store_failure: Type.Union([Type.Literal('open'), Type.Literal('closed')], {
      description: 'while the counter store (Redis) cannot be reached: `closed` (the default) refuses with 503, `open` lets requests through uncounted',
    }),
    status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
    workspace_id: NullableUuid,
    organisation_id: Uuid,
    created_at: Timestamp,
    last_updated_at: Timestamp,
    value_key_usage_map: Type.Optional(Type.Record(Type.String(), Type.Object({
      current_usage: Type.Number(),
      status: Type.Union([Type.Literal('active'), Type.Literal('exhausted')]),
      is_threshold_alerts_sent: Type.Boolean(),
      is_exhausted_alerts_sent: Type.Boolean(),
    }), { description: 'with include_usage=true: each value key\'s usage in the current window' })),
  },
  { description: 'A usage limits policy (reference: UsageLimitsPolicy).' },
);

export const UsageLimitsPolicyCreatedSchema = Type.Object({ id: Uuid, object: Type.Literal('usage_limits_policy') });

export const UsageLimitsEntitySchema = Type.Object({
  id: Uuid,
  value_key: Type.String({ description: 'the group-by values, e.g. `metadata._user:ada`' }),
  current_usage: Type.Number(),
  status: Type.Union([Type.Literal('active'), Type.Literal('exhausted')]),
});
