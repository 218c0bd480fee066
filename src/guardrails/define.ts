/**
 * Turning a check function plus its TypeBox parameter schema into something the registry can bind once per
 * configured check. Validation happens at bind time, never per request: an invalid parameter is a 400 whose
 * `param` is the full path (`checks[2].parameters.words[0]`), so an operator sees exactly what to fix.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { invalidParam } from '../core/errors.ts';
import type { BoundCheck, Check } from './types.ts';

export interface RegisteredCheck {
  schema: TSchema;
  /** validates `parameters` (400 naming `${path}.<field>` on failure) and returns the check bound to them */
  bind(parameters: unknown, path: string): BoundCheck;
}

/** `not: true` inverts a check's verdict (api-surface §3.14: most default.* checks take it). */
export const Not = Type.Optional(Type.Boolean());

/** A closed object: an unknown parameter is almost always a typo (`minWord`), so it is a 400, not ignored. */
export function ParameterSchema<P extends Record<string, TSchema>>(properties: P) {
  return Type.Object(properties, { additionalProperties: false });
}

/** Joins a JSON pointer (`/words/1`) onto `path`, writing array indexes as `[1]` and keys as `.key`. */
export function joinPath(path: string, pointer: string, value: unknown): string {
  let result = path;
  let node: unknown = value;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    result += Array.isArray(node) ? `[${segment}]` : `.${segment}`;
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[segment] : undefined;
  }
  return result;
}

export function validateParameters<S extends TSchema>(schema: S, parameters: unknown, path: string): Static<S> {
  const value = parameters ?? {};
  if (Value.Check(schema, value)) return value;
  const first = Value.Errors(schema, value).First();
  const param = first ? joinPath(path, first.path, value) : path;
  throw invalidParam(param, `${param}: ${first?.message ?? 'invalid parameters'}`, 'invalid_guardrail_parameter');
}

/** A parameter is well-typed but unusable (a bad regex, min above max): the same 400 shape as a schema failure. */
export function invalidParameter(param: string, message: string): Error {
  return invalidParam(param, `${param}: ${message}`, 'invalid_guardrail_parameter');
}

/**
 * A check whose parameters need work once, at bind time: cross-field rules and compilation (regexes, JSON
 * schemas). `prepare` turns the validated parameters into what the check runs with.
 */
export function definePreparedCheck<S extends TSchema, P>(
  schema: S,
  check: Check<P>,
  prepare: (parameters: Static<S>, path: string) => P,
): RegisteredCheck {
  return {
    schema,
    bind(parameters, path) {
      const prepared = prepare(validateParameters(schema, parameters, path), path);
      return (context, options) => check(context, prepared, options);
    },
  };
}

/** A check that runs with its validated parameters as they are. */
export function defineCheck<S extends TSchema>(schema: S, check: Check<Static<S>>): RegisteredCheck {
  return definePreparedCheck(schema, check, (parameters) => parameters);
}

/** The common tail of every check with a `not` flag: invert, and say which way it went. */
export function decide(matched: boolean, not: boolean | undefined, explanation: { yes: string; no: string }) {
  const verdict = not === true ? !matched : matched;
  const base = matched ? explanation.yes : explanation.no;
  if (not !== true) return { verdict, explanation: base };
  return { verdict, explanation: `${base.replace(/\.$/, '')}; with not: true the check ${verdict ? 'passes' : 'fails'}.` };
}
