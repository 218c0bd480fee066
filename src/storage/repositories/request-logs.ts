/** The request log (one row per inference request): batched inserts from the writer, reads for tests and admin. */
import { and, asc, count, desc, eq, getTableColumns, getTableName, gte, is, lte, sql, SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { requestLogs } from '../schema.ts';
import { mergeIntoRollups } from './analytics-rollup.ts';

export type RequestLogRow = typeof requestLogs.$inferSelect;
export type NewRequestLogRow = typeof requestLogs.$inferInsert;

const COLUMNS = Object.entries(getTableColumns(requestLogs)).map(([key, column]) => ({
  key: key as keyof NewRequestLogRow,
  name: column.name,
  // a plain default (false, 0, {}) is filled in here: json_populate_recordset gives a missing key null, not the default
  fallback: column.hasDefault && !is(column.default, SQL) ? (column.default as unknown) : null,
}));
const COLUMN_LIST = sql.raw(COLUMNS.map((column) => `"${column.name}"`).join(', '));
const ROW_TYPE = sql.raw(`"${getTableName(requestLogs)}"`);

/** What the rollups read of an inserted row (src/storage/repositories/analytics-rollup.ts). */
const ROLLUP_INPUT = [
  'organisation_id', 'workspace_id', 'created_at', 'provider', 'model', 'api_key_id', 'status', 'cache_status', 'retry_count', 'is_success',
  'cost', 'saved_cost', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'response_time_ms', 'attempts', 'last_used_option_index',
  'metadata', 'user_id',
].join(', ');
const ROLLUP_MERGE = mergeIntoRollups('inserted');

/** A row as the batch INSERT takes it: its JSON text, keyed by column name. */
export type SerialisedLogRow = string & { readonly serialisedLogRow: true };

/**
 * A row's JSON text, made when the row is queued: a row waits in the writer's queue for up to a second, long enough
 * for the garbage collector to move it to the old generation, and one flat string costs it far less to copy and mark
 * there than the row's object graph (its bodies, headers and attempts). Measured in docs/performance.md.
 */
export function serialiseRequestLogRow(row: NewRequestLogRow): SerialisedLogRow {
  const record: Record<string, unknown> = {};
  for (const column of COLUMNS) record[column.name] = row[column.key] ?? column.fallback;
  return JSON.stringify(record) as SerialisedLogRow;
}

/**
 * One multi-row INSERT with a single parameter: the rows as one JSON array, expanded by json_populate_recordset.
 * Drizzle's `insert().values(rows)` builds one bind parameter per cell, which cost ~100-200 µs of CPU per row
 * (measured with 500 rows); this costs a JSON.stringify. Rows are keyed by column name in the JSON.
 * The same statement adds the batch to the analytics rollups (analytics_hourly, analytics_users_hourly and _daily): they
 * are never behind the log, and a batch that fails leaves neither changed.
 */
export async function insertSerialisedRequestLogs(db: Db, rows: readonly SerialisedLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(sql`with inserted as (
      insert into ${requestLogs} (${COLUMN_LIST}) select ${COLUMN_LIST} from json_populate_recordset(null::${ROW_TYPE}, ${`[${rows.join(',')}]`}::json)
      returning ${sql.raw(ROLLUP_INPUT)}
    ), hourly as (${ROLLUP_MERGE.hourly}), users as (${ROLLUP_MERGE.users})
    ${ROLLUP_MERGE.usersDaily}`);
}

export async function insertRequestLogs(db: Db, rows: readonly NewRequestLogRow[]): Promise<void> {
  await insertSerialisedRequestLogs(db, rows.map(serialiseRequestLogRow));
}

/** Every row of one trace, oldest first (a trace may span several requests). */
export async function findRequestLogsByTraceId(db: Db, organisationId: string, traceId: string): Promise<RequestLogRow[]> {
  return db
    .select()
    .from(requestLogs)
    .where(and(eq(requestLogs.organisationId, organisationId), eq(requestLogs.traceId, traceId)))
    .orderBy(asc(requestLogs.createdAt));
}

export interface RequestLogFilter {
  organisationId: string;
  workspaceId?: string;
  startTime?: Date;
  endTime?: Date;
}

/** An organisation's rows, newest first, with the total for paging. */
export async function listRequestLogs(
  db: Db,
  filter: RequestLogFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: RequestLogRow[] }> {
  const conditions: SQL[] = [eq(requestLogs.organisationId, filter.organisationId)];
  if (filter.workspaceId) conditions.push(eq(requestLogs.workspaceId, filter.workspaceId));
  if (filter.startTime) conditions.push(gte(requestLogs.createdAt, filter.startTime));
  if (filter.endTime) conditions.push(lte(requestLogs.createdAt, filter.endTime));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(requestLogs).where(where),
    db.select().from(requestLogs).where(where).orderBy(desc(requestLogs.createdAt)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}
