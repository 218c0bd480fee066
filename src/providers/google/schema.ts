/**
 * JSON Schema (as OpenAI tools and response_format carry it) -> Gemini's Schema object, an OpenAPI 3.0 subset.
 * https://ai.google.dev/api/caching#Schema
 * https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Schema
 *
 * Gemini answers 400 to any keyword outside its subset, so the schema is rebuilt from an allowlist:
 * - kept: type, format, title, description, nullable, enum, items, properties, required, anyOf, minItems, maxItems,
 *   minLength, maxLength, minProperties, maxProperties, minimum, maximum, pattern, default, example,
 *   propertyOrdering;
 * - rewritten: `type: [T, "null"]` and a null enum member -> `nullable: true`; `const: v` -> `enum: [v]`;
 *   `oneOf` -> `anyOf`;
 *   local `$ref`s (`#/$defs/X`, `#/definitions/X`) are inlined (recursive references stop after a few levels);
 *   a string `format` other than `enum` and `date-time` is dropped (the only two Gemini accepts for strings);
 * - dropped (reported once per request as a warning): everything else, e.g. `additionalProperties`, `$schema`,
 *   `$id`, `$defs`, `definitions`, `allOf`, `not`, `patternProperties`, `examples`, `exclusiveMinimum`, `strict`.
 */
import { isRecord, type JsonRecord } from '../shared/json.ts';

const KEPT = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'items', 'properties', 'required', 'anyOf',
  'minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties', 'minimum', 'maximum',
  'pattern', 'default', 'example', 'propertyOrdering',
]);
/** consumed by the rewrites above, so never reported as dropped */
const REWRITTEN = new Set(['const', 'oneOf', '$ref', '$defs', 'definitions']);
const STRING_FORMATS = new Set(['enum', 'date-time']);
const MAX_REF_DEPTH = 8;

interface Walk {
  root: JsonRecord;
  dropped: Set<string>;
  depth: number;
}

function resolveRef(ref: string, walk: Walk): JsonRecord | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const defs = walk.root[match[1]!];
  const name = decodeURIComponent(match[2]!.replace(/~1/g, '/').replace(/~0/g, '~'));
  return isRecord(defs) && isRecord(defs[name]) ? defs[name] : undefined;
}

function convert(schema: unknown, walk: Walk): JsonRecord {
  if (!isRecord(schema)) return {};
  if (typeof schema.$ref === 'string') {
    const target = walk.depth < MAX_REF_DEPTH ? resolveRef(schema.$ref, walk) : undefined;
    if (!target) {
      walk.dropped.add('$ref');
      return {};
    }
    const { $ref: _ref, ...siblings } = schema;
    return convert({ ...target, ...siblings }, { ...walk, depth: walk.depth + 1 });
  }
  const out: JsonRecord = {};
  for (const key of Object.keys(schema)) {
    if (KEPT.has(key)) continue;
    if (!REWRITTEN.has(key)) walk.dropped.add(key);
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== 'null');
    if (types.length !== schema.type.length) out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else if (types.length > 1) out.anyOf = types.map((type) => ({ type }));
  } else if (schema.type !== undefined) {
    out.type = schema.type;
  }
  for (const key of ['title', 'description', 'nullable', 'required', 'minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties', 'minimum', 'maximum', 'pattern', 'default', 'example', 'propertyOrdering']) {
    if (schema[key] !== undefined) out[key] = schema[key];
  }
  if (Array.isArray(schema.enum)) {
    // Gemini enums hold values only: a null member means the field is nullable
    const values = schema.enum.filter((value) => value !== null);
    if (values.length !== schema.enum.length) out.nullable = true;
    out.enum = values;
  } else if (schema.const !== undefined) {
    out.enum = [schema.const];
  }
  if (typeof schema.format === 'string') {
    if (out.type !== 'string' || STRING_FORMATS.has(schema.format)) out.format = schema.format;
    else walk.dropped.add(`format: ${schema.format}`);
  }
  if (isRecord(schema.properties)) {
    const properties: JsonRecord = {};
    for (const [name, value] of Object.entries(schema.properties)) properties[name] = convert(value, walk);
    out.properties = properties;
  }
  if (schema.items !== undefined) out.items = convert(Array.isArray(schema.items) ? schema.items[0] : schema.items, walk);
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (alternatives) {
    const nonNull = alternatives.filter((item) => !(isRecord(item) && item.type === 'null'));
    if (nonNull.length !== alternatives.length) out.nullable = true;
    const converted = nonNull.map((item) => convert(item, walk));
    // a nullable single alternative is just that schema, nullable (pydantic's Optional[X]); the outer
    // description and title win over the alternative's
    if (converted.length === 1 && out.type === undefined) return { ...converted[0], ...out };
    if (converted.length > 0) out.anyOf = converted;
  }
  return out;
}

export interface GeminiSchema {
  schema: JsonRecord;
  /** keywords removed because Gemini does not accept them */
  dropped: string[];
}

export function toGeminiSchema(schema: unknown): GeminiSchema {
  const dropped = new Set<string>();
  const converted = convert(schema, { root: isRecord(schema) ? schema : {}, dropped, depth: 0 });
  return { schema: converted, dropped: [...dropped].sort() };
}

/** Gemini rejects an OBJECT without properties as function parameters: such a function takes no arguments. */
export function isEmptyObjectSchema(schema: JsonRecord): boolean {
  return (schema.type === 'object' || schema.type === undefined) && (!isRecord(schema.properties) || Object.keys(schema.properties).length === 0) && schema.anyOf === undefined;
}
