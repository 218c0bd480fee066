/** Path and query parameters of the admin API: uuid ids, 0-based pages, enums. A bad value is a 400 naming it. */
import { invalidParam } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';

export function uuidParam(params: unknown, name: string): string {
  const value = (params as Record<string, unknown> | undefined)?.[name];
  if (typeof value !== 'string' || !isUuid(value)) throw invalidParam(name, `${name} must be a UUID.`);
  return value.toLowerCase();
}

/** `name[]=1` or `name[0]=1`: the bracket form some servers read as an array, never a single value. */
function bracketForm(record: Record<string, unknown>, name: string): boolean {
  for (const key in record) if (key.startsWith(`${name}[`)) return true;
  return false;
}

function queryValue(query: unknown, names: readonly string[]): string | undefined {
  const record = (query ?? {}) as Record<string, unknown>;
  for (const name of names) {
    if (bracketForm(record, name)) throw invalidParam(name, `${name} must be given once, as a single value.`);
    const value = record[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidParam(name, `${name} must be given once.`);
    return value;
  }
  return undefined;
}

export function optionalString(query: unknown, name: string, maxLength = 255): string | undefined {
  const value = queryValue(query, [name]);
  if (value === undefined) return undefined;
  if (value.length === 0 || value.length > maxLength) throw invalidParam(name, `${name} must be 1 to ${maxLength} characters.`);
  return value;
}

export function optionalEnum<T extends string>(query: unknown, name: string, values: readonly T[]): T | undefined {
  const value = queryValue(query, [name]);
  if (value === undefined) return undefined;
  if (!values.includes(value as T)) throw invalidParam(name, `${name} must be one of ${values.join(', ')}.`);
  return value as T;
}

export function optionalInteger(query: unknown, name: string, min: number, max: number): number | undefined {
  const value = queryValue(query, [name]);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw invalidParam(name, `${name} must be an integer from ${min} to ${max}.`);
  }
  return Number(value);
}

export interface Page {
  offset: number;
  limit: number;
}

/**
 * `current_page` (0-based) and `page_size`; the camelCase spellings of the users and invites groups are accepted
 * too, so one rule holds everywhere.
 */
export function pageParams(query: unknown, options: { defaultSize?: number; maxSize?: number } = {}): Page {
  const maxSize = options.maxSize ?? 100;
  const sizeText = queryValue(query, ['page_size', 'pageSize']);
  const pageText = queryValue(query, ['current_page', 'currentPage']);
  const size = sizeText === undefined ? (options.defaultSize ?? 50) : Number(sizeText);
  const page = pageText === undefined ? 0 : Number(pageText);
  if (sizeText !== undefined && (!/^\d+$/.test(sizeText) || size < 1 || size > maxSize)) {
    throw invalidParam('page_size', `page_size must be an integer from 1 to ${maxSize}.`);
  }
  if (pageText !== undefined && (!/^\d+$/.test(pageText) || page > 1_000_000)) {
    throw invalidParam('current_page', 'current_page must be an integer of 0 or more.');
  }
  return { offset: page * size, limit: size };
}

export function listBody<T>(total: number, data: T[]): { object: 'list'; total: number; data: T[] } {
  return { object: 'list', total, data };
}
