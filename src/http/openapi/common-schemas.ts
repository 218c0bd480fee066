/** Answer shapes shared across the document: the error body, the empty answer, and the small building blocks. */
import { Type, type TSchema } from '@sinclair/typebox';

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO-8601, UTC' });
export const Uuid = Type.String({ format: 'uuid' });
export const NullableString = Type.Union([Type.String(), Type.Null()]);
export const NullableUuid = Type.Union([Uuid, Type.Null()]);
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const ErrorResponseSchema = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      type: Type.String({ description: 'e.g. invalid_request_error, authentication_error, permission_error, not_found_error' }),
      param: Type.Union([Type.String(), Type.Null()], { description: 'the offending field, query parameter or header' }),
      code: Type.Union([Type.String(), Type.Null()]),
    }),
  },
  { description: 'Every error the gateway raises itself, in the OpenAI error shape.' },
);

export const EmptyObjectSchema = Type.Object({}, { maxProperties: 0, description: 'the answer of a change that has nothing to report' });

export const HealthSchema = Type.Object({ status: Type.Literal('ok') });

const Reachability = Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]);
export const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded'), Type.Literal('draining')], {
    description: '`degraded`: the database or the key-value store is away (named below) and the node serves what it can; `draining`: shutting down',
  }),
  database: Type.Optional(Reachability),
  kv: Type.Optional(Reachability),
});

/** The one list shape of the admin API (and of the model catalog). */
export function listOf(items: TSchema, description: string): TSchema {
  return Type.Object(
    { object: Type.Literal('list'), total: Type.Integer({ minimum: 0, description: 'how many match, over every page' }), data: Type.Array(items) },
    { description },
  );
}
