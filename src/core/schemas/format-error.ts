/**
 * Turns ajv's errors (compiled with allErrors: false) into one `{ param, message }`: `param` is the dotted
 * path of the offending field (`tools[3].type`, `logit_bias.50256`), the message names it and the rule.
 *
 * With allErrors: false the LAST error is the keyword that failed; anything before it belongs to the
 * branches of a failed anyOf/oneOf. For a union we report the branch whose shape matched the value
 * (temperature 2.1 -> the number branch's `maximum`, not "must be null"); when no branch matched, the
 * union itself ("prompt must be a string, an array of strings, ...").
 */
import type { ErrorObject } from 'ajv';

export interface FieldError {
  param: string;
  message: string;
}

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const UNION = new Set(['anyOf', 'oneOf']);
/** Errors meaning "this branch is not the value's kind" when raised at the union's own path. */
const MISMATCH = new Set(['type', 'const', 'enum', 'anyOf', 'oneOf']);

export function formatFirstError(errors: readonly ErrorObject[], schema: unknown, data: unknown): FieldError {
  const last = errors[errors.length - 1];
  if (!last) return { param: 'body', message: 'The request body is invalid.' };
  const error = pickError(last, errors);
  const param = toParam(error, data);
  return { param, message: messageFor(error, param, schema) };
}

function pickError(error: ErrorObject, errors: readonly ErrorObject[]): ErrorObject {
  if (!UNION.has(error.keyword)) return error;
  if (error.keyword === 'oneOf' && isNode(error.params) && error.params.passingSchemas != null) return error;
  const prefix = `${error.schemaPath}/`;
  const branches = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    if (!e.schemaPath.startsWith(prefix)) continue;
    const index = e.schemaPath.slice(prefix.length).split('/')[0] ?? '';
    const group = branches.get(index) ?? [];
    group.push(e);
    branches.set(index, group);
  }
  const leaves: ErrorObject[] = [];
  for (const group of branches.values()) {
    const top = group[group.length - 1];
    if (top) leaves.push(pickError(top, group));
  }
  const candidates = leaves.filter((e) => !(e.instancePath === error.instancePath && MISMATCH.has(e.keyword)));
  if (candidates.length === 0) return error;
  if (candidates.length === 1) return candidates[0] ?? error;
  const rule = candidates.find((e) => !MISMATCH.has(e.keyword));
  if (rule) return rule;
  const depth = (e: ErrorObject) => pointer(e.instancePath).length;
  const deepest = Math.max(...candidates.map(depth));
  const atDeepest = candidates.filter((e) => depth(e) === deepest);
  return atDeepest.length === 1 ? (atDeepest[0] ?? error) : error;
}

/** JSON-pointer segments. ajv escapes instance paths as plain pointers but URI-encodes schema paths. */
function pointer(path: string, uriEncoded = false): string[] {
  if (path === '' || path === '#') return [];
  return path
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((s) => (uriEncoded ? decodeURIComponent(s) : s).replace(/~1/g, '/').replace(/~0/g, '~'));
}

function toParam(error: ErrorObject, data: unknown): string {
  const segments = pointer(error.instancePath);
  if (error.keyword === 'required' && typeof error.params.missingProperty === 'string') {
    segments.push(error.params.missingProperty);
  } else if (error.keyword === 'additionalProperties' && typeof error.params.additionalProperty === 'string') {
    segments.push(error.params.additionalProperty);
  }
  let param = '';
  let current: unknown = data;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      param += `[${segment}]`;
      current = current[Number(segment)];
    } else {
      param += param === '' ? segment : `.${segment}`;
      current = isNode(current) ? current[segment] : undefined;
    }
  }
  return param === '' ? 'body' : param;
}

function resolve(schema: unknown, path: string[]): Node {
  let node: unknown = schema;
  for (const segment of path) {
    node = Array.isArray(node) ? node[Number(segment)] : isNode(node) ? node[segment] : undefined;
  }
  return isNode(node) ? node : {};
}

function messageFor(error: ErrorObject, field: string, schema: unknown): string {
  const schemaPath = pointer(error.schemaPath, true);
  const parent = resolve(schema, schemaPath.slice(0, -1));
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, minItems, maxItems, minLength, maxLength } = parent;
  switch (error.keyword) {
    case 'required':
      return `${field} is required`;
    case 'minimum':
    case 'maximum':
      if (typeof minimum === 'number' && typeof maximum === 'number') {
        return `${field} must be between ${minimum} and ${maximum}`;
      }
      return error.keyword === 'minimum'
        ? `${field} must be greater than or equal to ${String(minimum)}`
        : `${field} must be less than or equal to ${String(maximum)}`;
    case 'exclusiveMinimum':
      return `${field} must be greater than ${String(exclusiveMinimum)}`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${String(exclusiveMaximum)}`;
    case 'minItems':
    case 'maxItems':
      if (typeof minItems === 'number' && typeof maxItems === 'number') {
        return `${field} must have between ${minItems} and ${maxItems} items`;
      }
      return error.keyword === 'minItems'
        ? `${field} must have at least ${items(minItems)}`
        : `${field} must have at most ${items(maxItems)}`;
    case 'minLength':
      return minLength === 1 ? `${field} must not be empty` : `${field} must be at least ${String(minLength)} characters long`;
    case 'maxLength':
      return `${field} must be at most ${String(maxLength)} characters long`;
    case 'pattern':
      return `${field} has an invalid format`;
    case 'type':
      return `${field} must be ${joinOr(describe({ type: parent.type, items: parent.items }))}`;
    case 'enum':
      return `${field} must be one of ${joinOr(describe({ enum: parent.enum }))}`;
    case 'const':
      return `${field} must be ${joinOr(describe({ const: parent.const }))}`;
    case 'anyOf':
    case 'oneOf':
      if (isNode(error.params) && error.params.passingSchemas != null) {
        return `${field} must match exactly one of: ${joinOr(describe(parent))}`;
      }
      return `${field} must be ${joinOr(describe(parent))}`;
    case 'additionalProperties':
      return `${field} is not allowed`;
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}

function items(count: unknown): string {
  return count === 1 ? '1 item' : `${String(count)} items`;
}

function joinOr(parts: string[]): string {
  if (parts.length <= 1) return parts[0] ?? 'a valid value';
  if (parts.length === 2) return `${parts[0]} or ${parts[1]}`;
  return `${parts.slice(0, -1).join(', ')}, or ${parts[parts.length - 1]}`;
}

const quote = (value: unknown) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));
const ARTICLE: Record<string, string> = { integer: 'an integer', object: 'an object', array: 'an array', null: 'null' };

/** The accepted forms of a schema as phrases: ["a string", "null", "an array of strings"]. */
function describe(schema: unknown): string[] {
  if (!isNode(schema)) return [];
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.flatMap(describe);
  if ('const' in schema) return [quote(schema.const)];
  if (Array.isArray(schema.enum)) return schema.enum.map(quote);
  const types = typeof schema.type === 'string' ? schema.type.split(',') : Array.isArray(schema.type) ? schema.type : [];
  return types.map((type: unknown) => {
    const name = String(type);
    if (name === 'array' && schema.items !== undefined) return `an array of ${plural(schema.items)}`;
    return ARTICLE[name] ?? `a ${name}`;
  });
}

function plural(schema: unknown): string {
  if (!isNode(schema)) return 'items';
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.map(plural).join(' or ');
  if (schema.type === 'array') return schema.items === undefined ? 'arrays' : `arrays of ${plural(schema.items)}`;
  return typeof schema.type === 'string' && !('const' in schema) && !('enum' in schema) ? `${schema.type}s` : 'allowed values';
}
