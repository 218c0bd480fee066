/** The request log (one row per inference request): batched inserts from the writer, reads for tests and admin. */
import { createHash } from 'node:crypto';
import { and, asc, count, desc, eq, getTableColumns, getTableName, gte, is, lte, sql, SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database, Db } from '../database.ts';
import { requestLogs } from '../schema.ts';
import { mergeIntoRollups } from './analytics-rollup.ts';

export type RequestLogRow = typeof requestLogs.$inferSelect;
export type NewRequestLogRow = typeof requestLogs.$inferInsert;

const COLUMNS = Object.entries(getTableColumns(requestLogs)).map(([key, column]) => ({
  key: key as keyof NewRequestLogRow,
  name: column.name,
  // a plain default (false, 0, {}) is filled in here: json_populate_recordset gives a missing key null, not the default
  fallback: column.hasDefault && !is(column.default, SQL) ? (column.default as unknown) : null,
  /** `"name":`, ready to be written */
  key_: `${JSON.stringify(column.name)}:`,
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
/** PostgreSQL's type OID of json */
const JSON_OID = 114;

/** A row as the batch INSERT takes it: its JSON text (keyed by column name) as UTF-8 bytes. */
export type SerialisedLogRow = Buffer & { readonly serialisedLogRow: true };

/**
 * A row's JSON text, made when the row is queued, as bytes. A row waits in the writer's queue for up to a second
 * (or 200 rows), long enough under load for V8 to copy it twice and move it to the old generation; a Buffer's bytes
 * live outside the V8 heap, so the collector neither copies nor marks them (GC helper threads ~95 -> measured in
 * docs/performance.md). Written field by field rather than JSON.stringify of a record built per row: a 55-key object
 * made by keyed stores is slow to build and to stringify (21 µs a row in a profile under load, ~5 µs now). A column
 * without a value is left out (json_populate_recordset gives it null), unless it has a plain default, which is
 * written instead.
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

/**
 * The rows as one JSON array, as UTF-8 bytes: the INSERT's one parameter, sent as it is (a Buffer goes in the
 * binary format, json's being its text: node-postgres does so itself, the embedded database's thread through its
 * json serializer). As a string, the ~1 MB of a batch with bodies would be decoded here, then measured and encoded
 * again by the driver.
 */
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
 * One multi-row INSERT with a single parameter (`batch`): the rows as one JSON array, expanded by
 * json_populate_recordset. Drizzle's `insert().values(rows)` builds one bind parameter per cell, which cost ~100-200
 * µs of CPU per row (measured with 500 rows); this costs a JSON.stringify. Rows are keyed by column name in the JSON.
 * The same statement adds the batch to the analytics rollups (analytics_hourly, analytics_users_hourly and _daily): they
 * are never behind the log, and a batch that fails leaves neither changed.
 */
function insertStatement(batch: SQL): SQL {
  return sql`with inserted as (
      insert into ${requestLogs} (${COLUMN_LIST}) select ${COLUMN_LIST} from json_populate_recordset(null::${ROW_TYPE}, ${batch}::json)
      returning ${sql.raw(ROLLUP_INPUT)}
    ), hourly as (${ROLLUP_MERGE.hourly}), users as (${ROLLUP_MERGE.users})
    ${ROLLUP_MERGE.usersDaily}`;
}

/**
 * The INSERT as a named prepared statement: the writer's batches run it without PostgreSQL parsing and planning
 * its ~10 KB of SQL each time (~3 ms of the embedded database's thread a batch; ~20% of its CPU a row at 200-row
 * batches: docs/performance.md). The name carries the statement's hash, so a node never runs another build's text
 * under it.
 */
const PREPARED_INSERT = (() => {
  const text = new PgDialect().sqlToQuery(insertStatement(sql.raw('$1'))).sql;
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
  return { name: `gateway_request_logs_insert_${digest}`, text, parameterTypes: [JSON_OID] };
})();

/** The writer's batch insert (the request log's hot statement), prepared. */
export async function insertSerialisedRequestLogs(database: Pick<Database, 'execPrepared'>, rows: readonly SerialisedLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await database.execPrepared(PREPARED_INSERT, [batchJson(rows)]);
}

/** The same INSERT through Drizzle, for occasional writers (custom logs, tests). */
export async function insertRequestLogs(db: Db, rows: readonly NewRequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(insertStatement(sql`${batchJson(rows.map(serialiseRequestLogRow))}`));
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
