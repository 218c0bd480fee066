/**
 * GET /logs's query parameters: filters, `cursor` and `limit` (default 50, at most 500). Each bad value is a 400
 * naming its parameter.
 */
import { invalidParam } from '../../../core/errors.ts';
import { isUuid } from '../../../core/ids.ts';
import type { LogQuery } from '../../../domain/logs/inputs.ts';
import { decodeCursor } from '../../../domain/logs/read-logs.ts';
import type { LogCursor } from '../../../storage/repositories/log-queries.ts';
import { optionalInteger, optionalString } from '../params.ts';

export const LOGS_DEFAULT_LIMIT = 50;
export const LOGS_MAX_LIMIT = 500;
export const CACHE_STATUSES = ['HIT', 'SEMANTIC HIT', 'MISS', 'REFRESH', 'DISABLED'] as const;
const MAX_INT = 2_147_483_647;

function time(query: unknown, name: string): Date | undefined {
  const value = optionalString(query, name, 64);
  if (value === undefined) return undefined;
  const parsed = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}(T|$)/.test(value) || Number.isNaN(parsed.getTime())) throw invalidParam(name, `${name} must be an ISO-8601 date-time.`);
  return parsed;
}

function list(query: unknown, name: string): string[] | undefined {
  const value = optionalString(query, name, 4096);
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim());
  if (items.some((item) => item.length === 0 || item.length > 255)) throw invalidParam(name, `${name} must be a comma-separated list of 1 to 255-character values.`);
  return items;
}

function amount(query: unknown, name: string): number | undefined {
  const value = optionalString(query, name, 32);
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(Number(value))) throw invalidParam(name, `${name} must be a number of 0 or more.`);
  return Number(value);
}

function ordered(min: number | Date | undefined, max: number | Date | undefined, name: string): void {
  if (min !== undefined && max !== undefined && min > max) throw invalidParam(name, `${name} must not be below its lower bound.`);
}

function metadata(query: unknown): Record<string, string> | undefined {
  const value = optionalString(query, 'metadata', 4096);
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((entry) => typeof entry === 'string')) {
    throw invalidParam('metadata', 'metadata must be a JSON object of string values, e.g. {"_user":"ada"}.');
  }
  return parsed as Record<string, string>;
}

export function logListQuery(query: unknown): LogQuery {
  const startTime = time(query, 'start_time');
  const endTime = time(query, 'end_time');
  ordered(startTime, endTime, 'end_time');
  const apiKeyId = optionalString(query, 'api_key_id', 64);
  if (apiKeyId !== undefined && !isUuid(apiKeyId)) throw invalidParam('api_key_id', 'api_key_id must be a UUID.');
  const workspace = optionalString(query, 'workspace_id', 64);
  if (workspace !== undefined && !/^[a-zA-Z0-9_-]{1,64}$/.test(workspace)) throw invalidParam('workspace_id', 'workspace_id must be a workspace id or slug.');
  const statuses = list(query, 'status')?.map((item) => {
    if (!/^[1-5]\d\d$/.test(item)) throw invalidParam('status', 'status must be a comma-separated list of HTTP status codes.');
    return Number(item);
  });
  const cacheStatuses = list(query, 'cache_status')?.map((item) => {
    const upper = item.toUpperCase();
    if (!(CACHE_STATUSES as readonly string[]).includes(upper)) throw invalidParam('cache_status', `cache_status must be a comma-separated list of ${CACHE_STATUSES.join(', ')}.`);
    return upper;
  });
  const costMinCents = amount(query, 'cost_min');
  const costMaxCents = amount(query, 'cost_max');
  ordered(costMinCents, costMaxCents, 'cost_max');
  const latencyMin = optionalInteger(query, 'latency_min', 0, MAX_INT);
  const latencyMax = optionalInteger(query, 'latency_max', 0, MAX_INT);
  ordered(latencyMin, latencyMax, 'latency_max');
  return {
    startTime,
    endTime,
    workspace,
    apiKeyId: apiKeyId?.toLowerCase(),
    providers: list(query, 'provider'),
    models: list(query, 'model'),
    statuses,
    traceIds: list(query, 'trace_id'),
    spanIds: list(query, 'span_id'),
    metadata: metadata(query),
    costMinCents,
    costMaxCents,
    latencyMin,
    latencyMax,
    cacheStatuses,
  };
}

export function logPageQuery(query: unknown): { cursor: LogCursor | undefined; limit: number } {
  const cursorText = optionalString(query, 'cursor', 400);
  const limit = optionalInteger(query, 'limit', 1, LOGS_MAX_LIMIT) ?? LOGS_DEFAULT_LIMIT;
  return { cursor: cursorText === undefined ? undefined : decodeCursor(cursorText), limit };
}
