/**
 * Reading the request log: one row by id, a filtered page newest first (keyset: `(created_at, id)` below a cursor),
 * a count, and export pages. Every query is bound by the organisation, so it runs on the (organisation_id,
 * created_at) or (organisation_id, workspace_id, created_at) index, or on (id) / (trace_id) where those are given.
 */
import { and, count, desc, eq, getTableColumns, gte, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../database.ts';
import { feedback, requestLogs } from '../schema.ts';
import type { RequestLogRow } from './request-logs.ts';

export interface LogFilter {
  organisationId: string;
  /** a single workspace (a workspace key's own, or the one an admin named); undefined: all of the organisation */
  workspaceId?: string | undefined;
  startTime?: Date | undefined;
  endTime?: Date | undefined;
  apiKeyId?: string | undefined;
  providers?: readonly string[] | undefined;
  models?: readonly string[] | undefined;
  /** `provider__model` pairs */
  providerModels?: ReadonlyArray<readonly [string, string]> | undefined;
  statuses?: readonly number[] | undefined;
  traceIds?: readonly string[] | undefined;
  spanIds?: readonly string[] | undefined;
  /** jsonb containment: every pair must be in the row's metadata */
  metadata?: Readonly<Record<string, string>> | undefined;
  /** USD, as exact decimal text */
  costMin?: string | undefined;
  costMax?: string | undefined;
  latencyMin?: number | undefined;
  latencyMax?: number | undefined;
  cacheStatuses?: readonly string[] | undefined;
  totalUnitsMin?: number | undefined;
  totalUnitsMax?: number | undefined;
  promptTokensMin?: number | undefined;
  promptTokensMax?: number | undefined;
  completionTokensMin?: number | undefined;
  completionTokensMax?: number | undefined;
  /** saved providers (`@slug`, virtual keys) */
  providerSlugs?: readonly string[] | undefined;
  configIds?: readonly string[] | undefined;
  promptSlugs?: readonly string[] | undefined;
  /** the trace has feedback whose value x weight is in this range */
  weightedFeedbackMin?: number | undefined;
  weightedFeedbackMax?: number | undefined;
}

/** Where the previous page ended: its last row's exact `created_at` (microseconds, as text) and id. */
export interface LogCursor {
  createdAt: string;
  id: string;
}

/** `created_at` to the microsecond (a JS Date keeps milliseconds only, and a cursor must not skip rows). */
const EXACT_TIME = sql<string>`to_char(${requestLogs.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function range(conditions: SQL[], column: AnyPgColumn, min: number | undefined, max: number | undefined): void {
  if (min !== undefined) conditions.push(gte(column, min));
  if (max !== undefined) conditions.push(lte(column, max));
}

export function filterConditions(filter: LogFilter): SQL[] {
  const t = requestLogs;
  const conditions: SQL[] = [eq(t.organisationId, filter.organisationId)];
  if (filter.workspaceId !== undefined) conditions.push(eq(t.workspaceId, filter.workspaceId));
  if (filter.startTime) conditions.push(gte(t.createdAt, filter.startTime));
  if (filter.endTime) conditions.push(lte(t.createdAt, filter.endTime));
  if (filter.apiKeyId) conditions.push(eq(t.apiKeyId, filter.apiKeyId));
  if (filter.providers?.length) conditions.push(inArray(t.provider, [...filter.providers]));
  if (filter.models?.length) conditions.push(inArray(t.model, [...filter.models]));
  if (filter.providerModels?.length) {
    conditions.push(or(...filter.providerModels.map(([provider, model]) => and(eq(t.provider, provider), eq(t.model, model))))!);
  }
  if (filter.statuses?.length) conditions.push(inArray(t.status, [...filter.statuses]));
  if (filter.traceIds?.length) conditions.push(inArray(t.traceId, [...filter.traceIds]));
  if (filter.spanIds?.length) conditions.push(inArray(t.spanId, [...filter.spanIds]));
  if (filter.metadata && Object.keys(filter.metadata).length > 0) {
    conditions.push(sql`${t.metadata} @> ${JSON.stringify(filter.metadata)}::jsonb`);
  }
  if (filter.costMin !== undefined) conditions.push(sql`${t.cost} >= ${filter.costMin}::numeric`);
  if (filter.costMax !== undefined) conditions.push(sql`${t.cost} <= ${filter.costMax}::numeric`);
  range(conditions, t.responseTimeMs, filter.latencyMin, filter.latencyMax);
  if (filter.cacheStatuses?.length) conditions.push(inArray(t.cacheStatus, [...filter.cacheStatuses]));
  range(conditions, t.totalTokens, filter.totalUnitsMin, filter.totalUnitsMax);
  range(conditions, t.promptTokens, filter.promptTokensMin, filter.promptTokensMax);
  range(conditions, t.completionTokens, filter.completionTokensMin, filter.completionTokensMax);
  if (filter.providerSlugs?.length) conditions.push(inArray(t.providerSlug, [...filter.providerSlugs]));
  if (filter.configIds?.length) conditions.push(inArray(t.configId, [...filter.configIds]));
  if (filter.promptSlugs?.length) conditions.push(inArray(t.promptSlug, [...filter.promptSlugs]));
  if (filter.weightedFeedbackMin !== undefined || filter.weightedFeedbackMax !== undefined) {
    const bounds: SQL[] = [];
    if (filter.weightedFeedbackMin !== undefined) bounds.push(sql`${feedback.value} * ${feedback.weight} >= ${filter.weightedFeedbackMin}`);
    if (filter.weightedFeedbackMax !== undefined) bounds.push(sql`${feedback.value} * ${feedback.weight} <= ${filter.weightedFeedbackMax}`);
    conditions.push(sql`exists (select 1 from ${feedback} where ${feedback.organisationId} = ${t.organisationId} and ${feedback.traceId} = ${t.traceId} and ${and(...bounds)})`);
  }
  return conditions;
}

function before(cursor: LogCursor | undefined): SQL[] {
  if (!cursor) return [];
  // the plain bound lets the (organisation_id[, workspace_id], created_at) index start at the cursor
  return [
    sql`${requestLogs.createdAt} <= ${cursor.createdAt}::timestamptz`,
    sql`(${requestLogs.createdAt}, ${requestLogs.id}) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`,
  ];
}

/** One row of the organisation by id (the (id) index; the organisation bound keeps others' rows out). */
export async function findLog(db: Db, organisationId: string, id: string): Promise<RequestLogRow | undefined> {
  const [row] = await db
    .select()
    .from(requestLogs)
    .where(and(eq(requestLogs.id, id), eq(requestLogs.organisationId, organisationId)))
    .limit(1);
  return row;
}

/** The light columns of a list item: no bodies, no headers. */
const LIST_COLUMNS = {
  id: requestLogs.id,
  organisationId: requestLogs.organisationId,
  workspaceId: requestLogs.workspaceId,
  apiKeyId: requestLogs.apiKeyId,
  createdAt: requestLogs.createdAt,
  traceId: requestLogs.traceId,
  spanId: requestLogs.spanId,
  spanName: requestLogs.spanName,
  route: requestLogs.route,
  method: requestLogs.method,
  path: requestLogs.path,
  requestUrl: requestLogs.requestUrl,
  provider: requestLogs.provider,
  model: requestLogs.model,
  status: requestLogs.status,
  isSuccess: requestLogs.isSuccess,
  streamMode: requestLogs.streamMode,
  responseTimeMs: requestLogs.responseTimeMs,
  cacheStatus: requestLogs.cacheStatus,
  promptTokens: requestLogs.promptTokens,
  completionTokens: requestLogs.completionTokens,
  totalTokens: requestLogs.totalTokens,
  cost: requestLogs.cost,
  metadata: requestLogs.metadata,
  isCustom: requestLogs.isCustom,
  exactTime: EXACT_TIME,
};

export type LogListRow = { [K in keyof typeof LIST_COLUMNS]: K extends 'exactTime' ? string : RequestLogRow[K & keyof RequestLogRow] };

/** The list's query, unrun: its plan is checked against the indexes (test/admin/logs.test.ts). */
export function listLogsQuery(db: Db, filter: LogFilter, cursor: LogCursor | undefined, limit: number) {
  return db
    .select(LIST_COLUMNS)
    .from(requestLogs)
    .where(and(...filterConditions(filter), ...before(cursor)))
    .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
    .limit(limit);
}

/** Newest first, `limit` rows below the cursor. */
export async function listLogs(db: Db, filter: LogFilter, cursor: LogCursor | undefined, limit: number): Promise<LogListRow[]> {
  return (await listLogsQuery(db, filter, cursor, limit)) as LogListRow[];
}

export async function countLogs(db: Db, filter: LogFilter): Promise<number> {
  const [row] = await db.select({ value: count() }).from(requestLogs).where(and(...filterConditions(filter)));
  return row?.value ?? 0;
}

export type ExportRow = RequestLogRow & { exactTime: string };

/**
 * One page of an export, newest first below the cursor, unrun: whole rows, or without the bodies when `withBodies` is
 * false (they are most of a row's bytes). Its plan is checked against the indexes (test/admin/logs.test.ts).
 */
export function exportPageQuery(db: Db, filter: LogFilter, cursor: LogCursor | undefined, limit: number, withBodies: boolean) {
  const columns = withBodies
    ? { ...getTableColumns(requestLogs), exactTime: EXACT_TIME }
    : { ...getTableColumns(requestLogs), requestBody: sql<null>`null`, responseBody: sql<null>`null`, exactTime: EXACT_TIME };
  return db
    .select(columns)
    .from(requestLogs)
    .where(and(...filterConditions(filter), ...before(cursor)))
    .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
    .limit(limit);
}

export async function exportPage(db: Db, filter: LogFilter, cursor: LogCursor | undefined, limit: number, withBodies: boolean): Promise<ExportRow[]> {
  return inIndexOrder(db, filter, async (tx) => (await exportPageQuery(tx, filter, cursor, limit, withBodies)) as ExportRow[]);
}

/**
 * Runs `work` where the planner reads the log in its time indexes' order rather than collecting and sorting, for an
 * export's walk from page to page. A filter the indexes do not serve (metadata above all: PostgreSQL guesses that
 * `@>` keeps a thousandth of the rows) made the planner expect a few rows and sort every row older than the cursor,
 * for each page: 100k matching rows took 0.2-0.3 s a page (docs/performance.md, eleventh session). In index order a
 * page stops at its limit. Not for a trace filter: its own index finds the few rows, which are then sorted.
 */
export async function inIndexOrder<T>(db: Db, filter: LogFilter, work: (tx: Db) => Promise<T>): Promise<T> {
  if (filter.traceIds?.length) return work(db);
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_sort = off`);
    await tx.execute(sql`set local enable_bitmapscan = off`);
    return work(tx as unknown as Db);
  });
}
