/**
 * The request log's day partitions (migration 0006): one table per UTC day, made ahead of time by
 * gateway_ensure_log_partition, and dropped whole once past retention. Rows of a day without a partition land in
 * request_logs_default, which retention trims by DELETE.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { rowsOf } from '../migrate.ts';

const PARTITION = /^request_logs_p(\d{4})(\d{2})(\d{2})$/;

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Makes the partitions of `days` UTC days from `from`; returns the days the default partition held rows of. */
export async function ensureLogPartitions(db: Db, from: Date, days: number): Promise<string[]> {
  const skipped: string[] = [];
  for (let offset = 0; offset < days; offset += 1) {
    const day = isoDay(new Date(from.getTime() + offset * 86_400_000));
    const result = rowsOf<{ made: boolean }>(await db.execute(sql`select gateway_ensure_log_partition(${day}::date) as made`));
    if (result[0]?.made === false) skipped.push(day);
  }
  return skipped;
}

/** The day partitions that exist, as UTC day strings, oldest first. */
export async function listLogPartitions(db: Db): Promise<string[]> {
  const result = rowsOf<{ name: string }>(
    await db.execute(sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'request_logs'::regclass`),
  );
  return result
    .map((row) => PARTITION.exec(row.name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => `${match[1]}-${match[2]}-${match[3]}`)
    .sort();
}

/**
 * Drops every day partition wholly before `cutoff` (a UTC midnight), trims the default partition, and trims the
 * analytics rollups to the same horizon (they summarise rows that are gone: analytics and logs agree on what is kept).
 */
export async function dropLogPartitionsBefore(db: Db, cutoff: Date): Promise<string[]> {
  const limit = isoDay(cutoff);
  const dropped: string[] = [];
  for (const day of await listLogPartitions(db)) {
    if (day >= limit) break;
    await db.execute(sql.raw(`drop table if exists "request_logs_p${day.replaceAll('-', '')}"`));
    dropped.push(day);
  }
  await db.execute(sql`delete from request_logs_default where created_at < ${cutoff}`);
  await db.execute(sql`delete from analytics_hourly where hour < ${cutoff}`);
  await db.execute(sql`delete from analytics_users_hourly where hour < ${cutoff}`);
  await db.execute(sql`delete from analytics_users_daily where day < ${cutoff}`);
  return dropped;
}

/** The tables the rollups' merge writes: small, updated in place as the log grows. */
const ROLLUPS = ['analytics_hourly', 'analytics_users_hourly', 'analytics_users_daily'];

/**
 * Refreshes the planner's statistics of what is being written: the day partitions of `today` and the day before
 * (the rows of its last hours), the default partition and the rollups. For a database without autovacuum: the
 * embedded PGlite runs none, so its tables were never analysed and the planner guessed a few rows for any filter;
 * a list of an organisation's logs below a cursor then collected and sorted every older row (50k rows: 254 ms a page,
 * 3.6 ms once analysed; docs/performance.md, eleventh session). ANALYZE reads a sample of at most 30,000 rows a
 * table. Returns the days analysed.
 */
export async function analyzeRecentLogPartitions(db: Db, today: Date): Promise<string[]> {
  const wanted = new Set([isoDay(new Date(today.getTime() - 86_400_000)), isoDay(today)]);
  const days = (await listLogPartitions(db)).filter((day) => wanted.has(day));
  const tables = [...days.map((day) => `request_logs_p${day.replaceAll('-', '')}`), 'request_logs_default', ...ROLLUPS];
  await db.execute(sql.raw(`analyze ${tables.map((table) => `"${table}"`).join(', ')}`));
  return days;
}
