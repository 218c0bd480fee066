/**
 * The query language of conditional routing: a small MongoDB-like subset evaluated against
 * `{ metadata, params }` (the x-gateway-metadata object and the request body).
 *
 *   { "metadata.user_plan": "pro" }                          implicit equality
 *   { "params.model": { "$in": ["gpt-4o", "gpt-4.1"] } }      operators: $eq $ne $in $nin $regex ($options)
 *   { "$or": [{ "metadata.tier": "free" }, { ... }] }           $gt $gte $lt $lte, and $and / $or of queries
 *
 * Semantics, chosen to be predictable rather than to copy every MongoDB rule:
 * - several keys in one object must all match (and); several operators on one field too;
 * - a field is a dotted path rooted at `metadata` or `params`; a numeric segment indexes an array
 *   (`params.messages.0.role`); a missing path is `undefined`, which equals nothing (not even null), so
 *   `$eq`/`$in`/`$regex`/comparisons fail on it while `$ne`/`$nin` succeed;
 * - equality is deep JSON equality; an array field is NOT searched element by element;
 * - `$gt`/`$gte`/`$lt`/`$lte` compare two numbers or two strings; any other pair (a type mismatch) is false;
 * - `$regex` only matches strings; see safe-regex.ts for the limits put on patterns.
 * `checkQuery` runs when the config is parsed, so evaluation never meets an unknown operator.
 */
import { invalidParam } from '../core/errors.ts';
import { MAX_REGEX_LENGTH, regexProblem } from './safe-regex.ts';

export interface ConditionInput {
  metadata: Readonly<Record<string, unknown>>;
  /** the request body as the client sent it (before override_params) */
  params: unknown;
}

export type Query = Readonly<Record<string, unknown>>;

const FIELD_OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$regex', '$options', '$gt', '$gte', '$lt', '$lte']);
const ROOTS = new Set(['metadata', 'params']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object whose keys are operators (`{ "$in": [...] }`), as opposed to a literal object to compare with. */
const isOperatorObject = (value: unknown): value is Record<string, unknown> =>
  isObject(value) && Object.keys(value).some((key) => key.startsWith('$'));

const fail = (path: string, message: string) => invalidParam(path, `${path} ${message}`, 'invalid_config');

/** Throws a 400 naming the path of the first invalid part of a query (`...query.$foo`, `...query.params.x.$regex`). */
export function checkQuery(query: unknown, path: string): void {
  if (!isObject(query)) throw fail(path, 'must be an object');
  for (const [key, value] of Object.entries(query)) {
    const at = `${path}.${key}`;
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) throw fail(at, 'must be a non-empty array of queries');
      value.forEach((item, index) => checkQuery(item, `${at}[${index}]`));
    } else if (key.startsWith('$')) {
      throw fail(at, 'is not a supported operator here (use $and, $or or a field path such as metadata.user_plan)');
    } else {
      const segments = key.split('.');
      if (!ROOTS.has(segments[0] ?? '') || segments.some((segment) => segment === '')) {
        throw fail(at, 'is not a valid field path: it must start with metadata or params (e.g. metadata.user_plan)');
      }
      if (isOperatorObject(value)) checkOperators(value, at);
    }
  }
}

function checkOperators(operators: Record<string, unknown>, path: string): void {
  for (const [operator, operand] of Object.entries(operators)) {
    const at = `${path}.${operator}`;
    if (!FIELD_OPERATORS.has(operator)) {
      throw fail(at, operator.startsWith('$') ? 'is not a supported operator' : 'cannot be mixed with operators');
    }
    if ((operator === '$in' || operator === '$nin') && !Array.isArray(operand)) throw fail(at, 'must be an array');
    if (['$gt', '$gte', '$lt', '$lte'].includes(operator) && typeof operand !== 'number' && typeof operand !== 'string') {
      throw fail(at, 'must be a number or a string');
    }
    if (operator === '$options' && !('$regex' in operators)) throw fail(at, 'is only allowed together with $regex');
    if (operator === '$regex') {
      if (typeof operand !== 'string') throw fail(at, 'must be a string');
      const options = operators.$options;
      if (options !== undefined && typeof options !== 'string') throw fail(`${path}.$options`, 'must be a string');
      const problem = regexProblem(operand, options);
      if (problem === 'too_long') throw fail(at, `must be at most ${MAX_REGEX_LENGTH} characters long`);
      if (problem === 'invalid') throw fail(at, 'is not a valid regular expression');
      if (problem === 'invalid_options') throw fail(`${path}.$options`, 'may only hold the flags i, m and s');
      if (problem === 'nested_quantifier') {
        throw fail(at, 'repeats a group that itself repeats (e.g. (a+)+), which can take exponential time');
      }
    }
  }
}

/** True when the request matches a query accepted by `checkQuery`. */
export function matchesQuery(query: Query, input: ConditionInput): boolean {
  return Object.entries(query).every(([key, condition]) => {
    if (key === '$and') return subqueries(condition).every((item) => matchesQuery(item, input));
    if (key === '$or') return subqueries(condition).some((item) => matchesQuery(item, input));
    const value = valueAt(input, key);
    return isOperatorObject(condition) ? matchesOperators(condition, value) : jsonEqual(value, condition);
  });
}

const subqueries = (value: unknown): Query[] => (Array.isArray(value) ? value.filter(isObject) : []);

function matchesOperators(operators: Record<string, unknown>, value: unknown): boolean {
  return Object.entries(operators).every(([operator, operand]) => {
    switch (operator) {
      case '$eq':
        return jsonEqual(value, operand);
      case '$ne':
        return !jsonEqual(value, operand);
      case '$in':
        return Array.isArray(operand) && operand.some((item) => jsonEqual(value, item));
      case '$nin':
        return !Array.isArray(operand) || !operand.some((item) => jsonEqual(value, item));
      case '$regex': {
        const options = typeof operators.$options === 'string' ? operators.$options : '';
        return typeof value === 'string' && typeof operand === 'string' && new RegExp(operand, options).test(value);
      }
      case '$options':
        return true; // read by $regex
      case '$gt':
        return ordered(value, operand, (order) => order > 0);
      case '$gte':
        return ordered(value, operand, (order) => order >= 0);
      case '$lt':
        return ordered(value, operand, (order) => order < 0);
      case '$lte':
        return ordered(value, operand, (order) => order <= 0);
      default:
        return false; // unreachable after checkQuery; an unknown operator never matches
    }
  });
}

/** Compares two numbers or two strings (code-unit order); any other pair is a type mismatch and never matches. */
function ordered(value: unknown, operand: unknown, test: (order: number) => boolean): boolean {
  if (typeof value === 'number' && typeof operand === 'number') return test(value - operand);
  if (typeof value === 'string' && typeof operand === 'string') return test(value < operand ? -1 : value > operand ? 1 : 0);
  return false;
}

/** The value at a dotted path; own properties only, so `params.constructor` is missing rather than Object. */
function valueAt(input: ConditionInput, path: string): unknown {
  let current: unknown = input;
  for (const segment of path.split('.')) {
    if (Array.isArray(current)) {
      current = /^\d+$/.test(segment) ? current[Number(segment)] : undefined;
    } else if (isObject(current) && Object.hasOwn(current, segment)) {
      current = current[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** Deep equality of JSON values; `undefined` (a missing path) equals nothing. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}
