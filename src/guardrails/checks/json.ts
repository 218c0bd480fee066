/**
 * JSON checks on the answer: default.jsonSchema (validate against a JSON Schema) and default.jsonKeys (top-level
 * keys present). The pipeline passes the parsed content in `context.json`; when it did not parse, the JSON is
 * looked for in the text itself (the whole text, then a ```json fenced block, as models often wrap it).
 */
import { Type } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import { Not, ParameterSchema, decide, defineCheck, definePreparedCheck, invalidParameter } from '../define.ts';
import type { CheckContext } from '../types.ts';

const NO_JSON = Symbol('no-json');
const FENCED = /```(?:json)?\s*\n([\s\S]*?)```/i;

export function findJson(context: CheckContext): unknown {
  if (context.json !== undefined) return context.json;
  for (const candidate of [context.text, FENCED.exec(context.text)?.[1]]) {
    if (candidate === undefined || candidate.trim() === '') continue;
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // not JSON: try the next candidate
    }
  }
  return NO_JSON;
}

// The few formats answers are commonly constrained by; other formats are ignored, as Ajv does when not strict.
const FORMATS = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/,
  uri: (value: string) => URL.canParse(value),
};

// addUsedSchema: false, so that two guardrails whose schemas share an `$id` do not collide in one instance.
// logger: false, because unknown formats would otherwise be reported on the console on every compile.
const ajv = new Ajv({ allErrors: true, strict: false, addUsedSchema: false, logger: false, formats: FORMATS });

/** Compiled validators by schema text: configs are re-read per request, and compiling is the costly part. */
const MAX_COMPILED = 256;
const compiled = new Map<string, { schema: object; validate: ValidateFunction }>();

export function compileSchema(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = compiled.get(key);
  if (hit) {
    compiled.delete(key);
    compiled.set(key, hit); // most recently used last
    return hit.validate;
  }
  const validate = ajv.compile(schema);
  if (compiled.size >= MAX_COMPILED) {
    const [oldestKey, oldest] = compiled.entries().next().value ?? [];
    if (oldestKey !== undefined && oldest !== undefined) {
      compiled.delete(oldestKey);
      ajv.removeSchema(oldest.schema); // Ajv keeps its own per-object cache; without this it would only grow
    }
  }
  compiled.set(key, { schema, validate });
  return validate;
}

const JsonSchemaParameters = ParameterSchema({ schema: Type.Record(Type.String(), Type.Unknown()), not: Not });

export const jsonSchema = definePreparedCheck(
  JsonSchemaParameters,
  (context, parameters: { validate: ValidateFunction; not: boolean | undefined }) => {
    const json = findJson(context);
    // Without JSON there is nothing to validate, with or without `not`: the check fails either way.
    if (json === NO_JSON) return { verdict: false, explanation: 'The text is not JSON.', data: { json: false } };
    const valid = parameters.validate(json);
    const errors = (parameters.validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
    return {
      ...decide(valid, parameters.not, {
        yes: 'The JSON matches the schema.',
        no: `The JSON does not match the schema: ${errors.join('; ')}.`,
      }),
      data: { json: true, valid, errors },
    };
  },
  (parameters, path) => {
    try {
      return { validate: compileSchema(parameters.schema), not: parameters.not };
    } catch (error) {
      throw invalidParameter(`${path}.schema`, `not a valid JSON Schema (${(error as Error).message})`);
    }
  },
);

const JsonKeysParameters = ParameterSchema({
  keys: Type.Array(Type.String(), { minItems: 1 }),
  operator: Type.Optional(Type.Union([Type.Literal('any'), Type.Literal('all'), Type.Literal('none')])),
});

export const jsonKeys = defineCheck(JsonKeysParameters, (context, parameters) => {
  const json = findJson(context);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { verdict: false, explanation: 'The text is not a JSON object.', data: { json: json !== NO_JSON } };
  }
  const operator = parameters.operator ?? 'any';
  const present = parameters.keys.filter((key) => Object.hasOwn(json, key));
  const missing = parameters.keys.filter((key) => !Object.hasOwn(json, key));
  const verdict =
    operator === 'any' ? present.length > 0 : operator === 'all' ? missing.length === 0 : present.length === 0;
  const explanation = verdict
    ? `The JSON object satisfies ${operator} of the keys (present: ${present.join(', ') || 'none'}).`
    : `The JSON object fails ${operator} of the keys (present: ${present.join(', ') || 'none'}; missing: ${missing.join(', ') || 'none'}).`;
  return { verdict, explanation, data: { operator, present, missing } };
});
