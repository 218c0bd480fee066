/**
 * The request log (one row per inference request): its columns, the batch INSERT with the rollups (the writer's rows
 * come as binary records, request-logs-binary.ts; occasional writers' as JSON, here), reads for tests and admin.
 */
import { and, asc, count, desc, eq, getTableColumns, getTableName, gte, is, lte, sql, SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { requestLogs } from '../schema.ts';
import { mergeIntoRollups } from './analytics-rollup.ts';

export type RequestLogRow = typeof requestLogs.$inferSelect;
export type NewRequestLogRow = typeof requestLogs.$inferInsert;

/**
 * Every column of the log, in the schema's order. A plain default (false, 0, {}) is written by the writers: a row
 * source gives a missing value NULL, not the column's default.
 */
export const LOG_COLUMNS = Object.entries(getTableColumns(requestLogs)).map(([key, column]) => ({
  key: key as keyof NewRequestLogRow,
  name: column.name,
  /** as PostgreSQL names the type (`uuid`, `numeric(24, 12)`, `timestamp with time zone`) */
  sqlType: column.getSQLType(),
  fallback: column.hasDefault && !is(column.default, SQL) ? (column.default as unknown) : null,
  /** `"name":`, ready to be written */
  key_: `${JSON.stringify(column.name)}:`,
}));
const COLUMNS = LOG_COLUMNS;
const COLUMN_LIST = sql.raw(COLUMNS.map((column) => `"${column.name}"`).join(', '));
const ROW_TYPE = sql.raw(`"${getTableName(requestLogs)}"`);

/** What the rollups read of an inserted row (src/storage/repositories/analytics-rollup.ts). */
const ROLLUP_INPUT = [
  'organisation_id', 'workspace_id', 'created_at', 'provider', 'model', 'api_key_id', 'status', 'cache_status', 'retry_count', 'is_success',
  'cost', 'saved_cost', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'response_time_ms', 'attempts', 'last_used_option_index',
  'metadata', 'user_id',
].join(', ');
const ROLLUP_MERGE = mergeIntoRollups('inserted');

/** A row as the JSON INSERT takes it: its JSON text (keyed by column name) as UTF-8 bytes. */
export type SerialisedLogRow = Buffer & { readonly serialisedLogRow: true };

/**
 * A row's JSON text, written field by field. A column without a value is left out (json_populate_recordset gives it
 * null), unless it has a plain default, which is written instead.
 */
export function serialiseRequestLogRow(row: NewRequestLogRow): SerialisedLogRow {
  let json = '';
  for (const column of COLUMNS) {
    const value = row[column.key] ?? column.fallback;
    if (value === null) continue;
    json += `${json === '' ? '{' : ','}${column.key_}${jsonValue(value)}`;
  }
  return Buffer.from(`${json === '' ? '{' : json}}`) as SerialisedLogRow;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** The rows as one JSON array, as UTF-8 bytes. */
function batchJson(rows: readonly SerialisedLogRow[]): Buffer {
  const parts: Buffer[] = [OPEN];
  for (const [index, row] of rows.entries()) {
    if (index > 0) parts.push(COMMA);
    parts.push(row);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

function jsonValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    default:
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'null' : `"${value.toISOString()}"`;
      return JSON.stringify(value) ?? 'null';
  }
}

/**
 * The batch INSERT of the rows `source` yields (every column, by name), which adds them to the analytics rollups in
 * the same statement (analytics_hourly, analytics_users_hourly and _daily): the rollups are never behind the log,
 * and a batch that fails leaves neither changed. The writer's source is an array of binary records
 * (request-logs-binary.ts); occasional writers give the rows as JSON.
 */
export function insertFrom(source: SQL): SQL {
  return sql`with inserted as (
      insert into ${requestLogs} (${COLUMN_LIST}) select ${COLUMN_LIST} from ${source}
      returning ${sql.raw(ROLLUP_INPUT)}
    ), hourly as (${ROLLUP_MERGE.hourly}), users as (${ROLLUP_MERGE.users})
    ${ROLLUP_MERGE.usersDaily}`;
}

/**
 * The rows as JSON, expanded by json_populate_recordset: one parameter (Drizzle's `insert().values(rows)` builds one
 * bind parameter per cell, ~100-200 µs of CPU a row measured with 500 rows). Rows are keyed by column name.
 */
function jsonRows(batch: SQL): SQL {
  return sql`json_populate_recordset(null::${ROW_TYPE}, ${batch}::json)`;
}

/** The INSERT through Drizzle, the rows as JSON: for occasional writers (custom logs, tests). */
export async function insertRequestLogs(db: Db, rows: readonly NewRequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(insertFrom(jsonRows(sql`${batchJson(rows.map(serialiseRequestLogRow))}`)));
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
