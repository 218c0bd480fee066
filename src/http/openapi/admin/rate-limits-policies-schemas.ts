/** Answers of the Rate limits policies group, as src/domain/rate-limits-policies/views.ts builds them. */
import { Type } from '@sinclair/typebox';
import { NullableString, NullableUuid, Timestamp, Uuid } from '../common-schemas.ts';

export const RateLimitsPolicySchema = Type.Object(
  {
    object: Type.Literal('rate_limits_policy'),
    id: Uuid,
    name: NullableString,
    conditions: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
    group_by: Type.Array(Type.Object({ key: Type.String() })),
    type: Type.Union([Type.Literal('requests'), Type.Literal('tokens')]),
    unit: Type.Union([Type.Literal('rpm'), Type.Literal('rph'), Type.Literal('rpd')]),
    value: Type.Number(),
    on_store_failure: Type.Union([Type.Literal('open'), Type.Literal('closed')], {
      description: 'while the counter store (Redis) cannot be reached: `open` (the default) lets requests through, `closed` refuses them (503)',
    }),
    status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
    workspace_id: { ...NullableUuid, description: 'null: the policy counts the requests of every workspace of the organisation' },
    organisation_id: Uuid,
    created_at: Timestamp,
    last_updated_at: Timestamp,
    usage: Type.Optional(Type.Union([
      Type.Array(Type.Object({
        entity: Type.String({ description: 'the group_by value counted under, e.g. `api_key:<id>` or `metadata._user:ada`' }),
        window_start: Timestamp,
        count: Type.Number({ description: 'requests (tokens for a tokens policy) counted in the rolling window that began at window_start' }),
        limit: Type.Number(),
      })),
      Type.Null(),
    ], {
      description: 'GET by id only: the live counters of the current window, the highest first (at most 100; values with no count are left out). The values are found in the request log of the window, so a request shows once the log has written it (within about a second). null while the counter store cannot be read.',
    })),
  },
  { description: 'A rate limits policy (reference: RateLimitsPolicy).' },
);

export const RateLimitsPolicyCreatedSchema = Type.Object({ id: Uuid, object: Type.Literal('rate_limits_policy') });
