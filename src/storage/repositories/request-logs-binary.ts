/**
 * The request-log writer's batch INSERT, its rows in PostgreSQL's binary format (src/storage/pg-binary.ts): each row
 * is encoded once, when it is queued, as a record of a composite type made for this build's columns, and a batch
 * goes to the database as one array of them, which it reads without parsing any text. The JSON batch it replaced
 * cost the embedded database ~22% more a row and PostgreSQL ~45% more (docs/performance.md).
 *
 * The composite type is named after a digest of its columns (`request_log_row_<digest>`), made when the node starts
 * if it is not there: a node keeps its own layout while a newer node's migration adds a column to the table (the
 * added column takes its default), as the JSON batch did.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from '../database.ts';
import { rowsOf } from '../migrate.ts';
import { arrayElementRecord, BinaryWriter, recordArray, type BinaryType } from '../pg-binary.ts';
import { insertFrom, LOG_COLUMNS, type NewRequestLogRow } from './request-logs.ts';

/** A queued row: its record, ready to be one element of a batch's array. */
export type EncodedLogRow = Buffer & { readonly encodedLogRow: true };

export interface BinaryLogInsert {
  /** the row's record (synchronous: the writer calls it when the request ends) */
  encode(row: NewRequestLogRow): EncodedLogRow;
  /** one batch, one statement; the rows' bytes are copied into the statement before it is sent */
  insert(rows: readonly EncodedLogRow[]): Promise<void>;
  /** the rows will not be read again (written or dropped): their space is reused (storage/record-slabs.ts) */
  release(rows: readonly EncodedLogRow[]): void;
}

/** The binary type each of the log's SQL types is written as. */
export function binaryTypeOf(sqlType: string): BinaryType {
  if (sqlType === 'uuid' || sqlType === 'text' || sqlType === 'jsonb') return sqlType;
  if (sqlType === 'timestamp with time zone') return 'timestamptz';
  if (sqlType === 'integer') return 'int4';
  if (sqlType === 'boolean') return 'bool';
  if (sqlType.startsWith('numeric')) return 'numeric';
  throw new Error(`request_logs: no binary encoder for the column type "${sqlType}" (src/storage/pg-binary.ts)`);
}

const FIELDS = LOG_COLUMNS.map((column) => ({ ...column, type: binaryTypeOf(column.sqlType) }));
const ATTRIBUTES = FIELDS.map((field) => `"${field.name}" ${field.sqlType}`).join(', ');
/** the composite type of this build's columns */
export const LOG_ROW_TYPE = `request_log_row_${createHash('sha256').update(ATTRIBUTES).digest('hex').slice(0, 12)}`;

/** Makes the type unless it is there; two nodes starting together may both try (the loser's error is ignored). */
const CREATE_TYPE = sql.raw(`do $$ begin
    create type "${LOG_ROW_TYPE}" as (${ATTRIBUTES});
  exception when duplicate_object or unique_violation then null;
  end $$`);

/** The statement: named after a digest of its text, so a node never runs another build's text under its name. */
const STATEMENT = (() => {
  const text = new PgDialect().sqlToQuery(insertFrom(sql.raw(`unnest($1::"${LOG_ROW_TYPE}"[])`))).sql;
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
  return { name: `gateway_request_logs_insert_${digest}`, text };
})();

/** The encoder's scratch space, reused from row to row (rows are encoded one at a time, on the main thread). */
const writer = new BinaryWriter();

export function encodeLogRow(row: NewRequestLogRow): EncodedLogRow {
  return arrayElementRecord(writer, FIELDS, row) as EncodedLogRow;
}

/** Encoded rows that will not be read again: their slab space is reused (record-slabs.ts). */
export function releaseEncodedLogRows(rows: readonly EncodedLogRow[]): void {
  writer.slabs.release(rows);
}

/** Makes the row type if needed and reads its OIDs: once, when the node starts (after the migrations). */
export async function openBinaryLogInsert(database: Pick<Database, 'db' | 'execPrepared'>): Promise<BinaryLogInsert> {
  await database.db.execute(CREATE_TYPE);
  const [oids] = rowsOf<{ element: number; array: number }>(
    await database.db.execute(sql.raw(`select t.oid::int as element, t.typarray::int as array from pg_type t where t.oid = to_regtype('"${LOG_ROW_TYPE}"')`)),
  );
  if (!oids) throw new Error(`request_logs: the type ${LOG_ROW_TYPE} could not be made`);
  const statement = { ...STATEMENT, parameterTypes: [oids.array] };
  return {
    encode: encodeLogRow,
    release: releaseEncodedLogRows,
    async insert(rows) {
      if (rows.length === 0) return;
      await database.execPrepared(statement, [recordArray(oids.element, rows)]);
    },
  };
}
