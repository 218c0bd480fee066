/**
 * Where an analytics query reads from. With only time, workspace, status, API key and provider/model filters, the
 * hourly rollups answer: the whole hours inside the range from the rollup, the partial hours at its two edges from
 * the raw rows (summed into the same shape), so the answer is exact to the millisecond of the range. Any other
 * filter (metadata, token or cost ranges, trace or span ids, virtual keys, configs, prompts, weighted feedback) is
 * not a rollup key: the raw rows of the range are read (through the (organisation, workspace, created_at) index)
 * and summed into the same shape.
 */
import { sql, type SQL } from 'drizzle-orm';
import { ROLLUP_COLUMNS, rollupAggregate, usersAggregate } from './analytics-rollup.ts';

export interface Range {
  min?: number | undefined;
  max?: number | undefined;
}

export interface AnalyticsScope {
  organisationId: string;
  workspaceId: string;
  from: Date;
  /** inclusive */
  to: Date;
}

export interface AnalyticsFilters {
  // answered by the rollups
  statusCodes?: number[] | undefined;
  apiKeyIds?: string[] | undefined;
  providerModels?: Array<{ provider: string; model: string }> | undefined;
  // answered by the raw rows only
  totalUnits?: Range | undefined;
  /** USD */
  cost?: Range | undefined;
  promptTokens?: Range | undefined;
  completionTokens?: Range | undefined;
  weightedFeedback?: Range | undefined;
  virtualKeys?: string[] | undefined;
  configs?: string[] | undefined;
  metadata?: Record<string, unknown> | undefined;
  traceIds?: string[] | undefined;
  spanIds?: string[] | undefined;
  promptSlugs?: string[] | undefined;
}

export type BucketSize = 'hour' | 'day' | 'week';

const RAW_ONLY: ReadonlyArray<keyof AnalyticsFilters> = [
  'totalUnits', 'cost', 'promptTokens', 'completionTokens', 'weightedFeedback', 'virtualKeys', 'configs', 'metadata', 'traceIds', 'spanIds', 'promptSlugs',
];

/** Whether a filter the rollups do not key on is set: then the raw rows answer. */
export function needsRawRows(filters: AnalyticsFilters): boolean {
  return RAW_ONLY.some((name) => filters[name] !== undefined);
}

/** Whether any filter on the log rows is set at all (the feedback queries then join the log). */
export function filtersLogRows(filters: AnalyticsFilters): boolean {
  return Object.entries(filters).some(([name, value]) => value !== undefined && name !== 'weightedFeedback');
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function inList(column: string, values: readonly (string | number)[]): SQL {
  return sql`${sql.raw(column)} in (${sql.join(values.map((value) => sql`${value}`), sql`, `)})`;
}

function range(expression: string, bounds: Range | undefined): SQL[] {
  if (!bounds) return [];
  const conditions: SQL[] = [];
  if (bounds.min !== undefined) conditions.push(sql`${sql.raw(expression)} >= ${bounds.min}`);
  if (bounds.max !== undefined) conditions.push(sql`${sql.raw(expression)} <= ${bounds.max}`);
  return conditions;
}

/** Conditions on status, API key and provider/model: columns of both request_logs and analytics_hourly. */
function keyConditions(filters: AnalyticsFilters): SQL[] {
  const conditions: SQL[] = [];
  if (filters.statusCodes) conditions.push(inList('status', filters.statusCodes));
  if (filters.apiKeyIds) conditions.push(sql`api_key_id in (${sql.join(filters.apiKeyIds.map((id) => sql`${id}::uuid`), sql`, `)})`);
  if (filters.providerModels) {
    conditions.push(sql`(${sql.join(filters.providerModels.map((pair) => sql`(provider = ${pair.provider} and model = ${pair.model})`), sql` or `)})`);
  }
  return conditions;
}

/** Every filter but time, as conditions on request_logs (unaliased, so they also serve inside an exists). */
export function logConditions(scope: AnalyticsScope, filters: AnalyticsFilters): SQL[] {
  const conditions: SQL[] = [
    sql`request_logs.organisation_id = ${scope.organisationId}::uuid`,
    sql`request_logs.workspace_id = ${scope.workspaceId}::uuid`,
    ...keyConditions(filters),
    ...range('request_logs.total_tokens', filters.totalUnits),
    ...range('request_logs.cost', filters.cost),
    ...range('request_logs.prompt_tokens', filters.promptTokens),
    ...range('request_logs.completion_tokens', filters.completionTokens),
  ];
  if (filters.virtualKeys) conditions.push(inList('request_logs.provider_slug', filters.virtualKeys));
  if (filters.promptSlugs) conditions.push(inList('request_logs.prompt_slug', filters.promptSlugs));
  if (filters.traceIds) conditions.push(inList('request_logs.trace_id', filters.traceIds));
  if (filters.spanIds) conditions.push(inList('request_logs.span_id', filters.spanIds));
  if (filters.metadata) conditions.push(sql`request_logs.metadata @> ${JSON.stringify(filters.metadata)}::jsonb`);
  if (filters.configs) {
    conditions.push(sql`request_logs.config_id in (select id from configs where configs.organisation_id = ${scope.organisationId}::uuid and (${inList('configs.slug', filters.configs)}))`);
  }
  if (filters.weightedFeedback) {
    const weighted = range('f.value * f.weight', filters.weightedFeedback);
    conditions.push(sql`exists (select 1 from feedback f where f.organisation_id = request_logs.organisation_id and f.trace_id = request_logs.trace_id and ${sql.join(weighted, sql` and `)})`);
  }
  return conditions;
}

function rawRows(scope: AnalyticsScope, filters: AnalyticsFilters, time: SQL): SQL {
  return sql`select * from request_logs where ${sql.join([...logConditions(scope, filters), time], sql` and `)}`;
}

/** The whole units (hours or UTC days) inside [from, to], as [start, end), or undefined when it holds none. */
function wholeUnits(from: Date, to: Date, unit: number): { start: Date; end: Date } | undefined {
  const start = Math.ceil(from.getTime() / unit) * unit;
  const end = Math.floor(to.getTime() / unit) * unit;
  return start < end ? { start: new Date(start), end: new Date(end) } : undefined;
}

function timeBetween(from: Date, to: Date, inclusive: boolean): SQL {
  return inclusive
    ? sql`request_logs.created_at >= ${from.toISOString()}::timestamptz and request_logs.created_at <= ${to.toISOString()}::timestamptz`
    : sql`request_logs.created_at >= ${from.toISOString()}::timestamptz and request_logs.created_at < ${to.toISOString()}::timestamptz`;
}

/** A rollup's rows of the scope's workspace whose period starts in [start, end). */
function rollupRows(scope: AnalyticsScope, table: string, columns: string, time: string, start: Date, end: Date, extra: SQL[]): SQL {
  const conditions = [
    sql`organisation_id = ${scope.organisationId}::uuid`,
    sql`workspace_id = ${scope.workspaceId}::uuid`,
    sql`${sql.raw(time)} >= ${start.toISOString()}::timestamptz`,
    sql`${sql.raw(time)} < ${end.toISOString()}::timestamptz`,
    ...extra,
  ];
  return sql`select ${sql.raw(columns)} from ${sql.raw(table)} where ${sql.join(conditions, sql` and `)}`;
}

/** A daily rollup with the hourly one's shape: `columns` names its day column as the hourly one's `hour`. */
interface DailyRollup {
  table: string;
  columns: string;
}

/**
 * The hourly rollup's rows for the whole hours of the range, the raw rows (aggregated) for its partial hours; with
 * `daily`, the whole UTC days inside those hours come from the daily rollup instead, and only the hours around them
 * from the hourly one.
 */
function split(scope: AnalyticsScope, filters: AnalyticsFilters, rollupTable: string, rollupColumns: string, aggregate: (source: SQL) => SQL, extra: SQL[], daily?: DailyRollup): SQL {
  const hours = needsRawRows(filters) ? undefined : wholeUnits(scope.from, scope.to, HOUR_MS);
  if (!hours) return aggregate(rawRows(scope, filters, timeBetween(scope.from, scope.to, true)));
  const edges = sql`(${timeBetween(scope.from, hours.start, false)}) or (${timeBetween(hours.end, scope.to, true)})`;
  const raw = aggregate(rawRows(scope, filters, sql`(${edges})`));
  const days = daily && wholeUnits(hours.start, hours.end, DAY_MS);
  const hourly = (start: Date, end: Date) => rollupRows(scope, rollupTable, rollupColumns, 'hour', start, end, extra);
  if (!days) return sql`${hourly(hours.start, hours.end)} union all ${raw}`;
  // two bounded ranges, not one range minus the days: each reads its hours through the rollup's key index
  return sql`${rollupRows(scope, daily.table, daily.columns, 'day', days.start, days.end, extra)}
    union all ${hourly(hours.start, days.start)} union all ${hourly(days.end, hours.end)} union all ${raw}`;
}

/** Rows shaped like analytics_hourly (ROLLUP_COLUMNS) covering exactly the scope's range and the filters. */
export function hourlySource(scope: AnalyticsScope, filters: AnalyticsFilters): SQL {
  return split(scope, filters, 'analytics_hourly', ROLLUP_COLUMNS, rollupAggregate, keyConditions(filters));
}

const USERS_COLUMNS = 'organisation_id, workspace_id, hour, user_key, requests, cost';
const USERS_DAILY: DailyRollup = { table: 'analytics_users_daily', columns: 'organisation_id, workspace_id, day as hour, user_key, requests, cost' };

/**
 * Rows shaped like analytics_users_hourly; it keys on no status, key or model, so those filters read the raw rows.
 * `period` is the finest the caller groups by: with 'day', whole UTC days come one row per user and day from
 * analytics_users_daily (their `hour` is the day's start), so only hour buckets need 'hour'.
 */
export function usersSource(scope: AnalyticsScope, filters: AnalyticsFilters, period: 'hour' | 'day'): SQL {
  const keyed = filters.statusCodes !== undefined || filters.apiKeyIds !== undefined || filters.providerModels !== undefined;
  if (keyed) return usersAggregate(rawRows(scope, filters, timeBetween(scope.from, scope.to, true)));
  return split(scope, filters, 'analytics_users_hourly', USERS_COLUMNS, usersAggregate, [], period === 'day' ? USERS_DAILY : undefined);
}

/** The start of the bucket `column` (a timestamptz) falls in, as epoch milliseconds. */
export function bucketStart(column: string, size: BucketSize): SQL {
  return sql.raw(`(extract(epoch from date_trunc('${size}', ${column}, 'UTC')) * 1000)::float8`);
}
