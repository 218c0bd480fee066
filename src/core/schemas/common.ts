/**
 * Building blocks shared by the inference request schemas. Every object schema is open
 * (additionalProperties: true): fields the gateway does not know are forwarded to the provider untouched.
 */
import { Type, type SchemaOptions, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** Options for an open object: unknown keys are allowed. */
export const OPEN = { additionalProperties: true } as const;

/** `T | null` as an anyOf, so the error formatter can report the non-null branch's constraint. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A string restricted to a fixed set, as a single `enum` keyword (one readable error, not an anyOf of consts). */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/**
 * OpenAI's documented seed range. 2 ** 63 prints as 9223372036854776000; a JSON int64 such as
 * 9223372036854775807 parses to exactly this double, so both int64 extremes are accepted.
 */
export const SEED_MIN = -(2 ** 63);
export const SEED_MAX = 2 ** 63;

export const Model = Type.String({ minLength: 1 });
export const Penalty = Nullable(Type.Number({ minimum: -2, maximum: 2 }));
export const LogitBias = Nullable(Type.Record(Type.String(), Type.Number({ minimum: -100, maximum: 100 })));
export const Seed = Nullable(Type.Integer({ minimum: SEED_MIN, maximum: SEED_MAX }));
export const Stop = Type.Union([Type.String(), Type.Null(), Type.Array(Type.String(), { maxItems: 4 })]);
export const NullableBoolean = Nullable(Type.Boolean());
export const MaxTokens = Nullable(Type.Integer({ minimum: 0 }));
export const ChoiceCount = Nullable(Type.Integer({ minimum: 1, maximum: 128 }));
/** Only allowed together with `stream: true` (checked after the schema, see validate.ts). */
export const StreamOptions = Nullable(Type.Object({}, OPEN));
export const Temperature = Nullable(Type.Number({ minimum: 0, maximum: 2 }));
export const TopP = Nullable(Type.Number({ minimum: 0, maximum: 1 }));
