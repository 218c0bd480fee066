/**
 * Small rules shared by the routes for values that reach an upstream call: path parameters that the adapter puts
 * into the upstream path, and query parameters that must come once.
 */
import { invalidParam } from '../core/errors.ts';
import { segmentProblem } from '../pipeline/path-rules.ts';

/** A path parameter (already decoded by the router) that becomes one segment of the upstream path. */
export function checkPathSegment(params: unknown, name: string): void {
  const value = (params as Record<string, unknown> | undefined)?.[name];
  if (typeof value !== 'string') return;
  if (segmentProblem(value)) {
    throw invalidParam(name, `${name} must be one path segment: no "/" or "\\", and not "." or ".." in any encoding.`, 'invalid_path');
  }
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Refuses a single-valued query parameter given more than once (`limit=1&limit=2`, parsed into an array) or in
 * the bracket form (`limit[]=1`, `order[0]=asc`) that some servers read as an array: the query is forwarded as
 * written, so what the gateway checked must be what the provider reads. A NUL or other control character in
 * such a value is refused too: no provider's id, order or filter contains one.
 */
export function refuseRepeatedQuery(query: unknown, names: ReadonlySet<string>): void {
  if (typeof query !== 'object' || query === null) return;
  for (const key in query) {
    const bracket = key.indexOf('[');
    const name = bracket >= 0 ? key.slice(0, bracket) : key;
    if (!names.has(name)) continue;
    if (bracket >= 0 || Array.isArray((query as Record<string, unknown>)[key])) {
      throw invalidParam(name, `Query parameter ${name} must be given once, as a single value.`, 'repeated_parameter');
    }
    const value = (query as Record<string, unknown>)[key];
    if (typeof value === 'string' && CONTROL.test(value)) {
      throw invalidParam(name, `Query parameter ${name} must not contain control characters.`, 'invalid_value');
    }
  }
}
