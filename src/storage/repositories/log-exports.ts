/**
 * Log export jobs and their result chunks. A job's status moves only through conditional updates (`where status
 * = ...`), so a cancel on one node and the job's own progress on another never overwrite each other.
 */
import { and, asc, count, desc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { logExportChunks, logExports } from '../schema.ts';

export type LogExportRow = typeof logExports.$inferSelect;
export type NewLogExportRow = typeof logExports.$inferInsert;
export type LogExportStatus = 'draft' | 'in_progress' | 'success' | 'failed' | 'stopped';

export async function insertLogExport(db: Db, row: NewLogExportRow): Promise<LogExportRow> {
  const [created] = await db.insert(logExports).values(row).returning();
  return created!;
}

export async function findLogExport(db: Db, organisationId: string, id: string): Promise<LogExportRow | undefined> {
  const [row] = await db.select().from(logExports).where(and(eq(logExports.id, id), eq(logExports.organisationId, organisationId))).limit(1);
  return row;
}

/** The row locked until the transaction ends: two changes of one export apply one after the other. */
export async function lockLogExport(db: Db, id: string): Promise<LogExportRow | undefined> {
  const [row] = await db.select().from(logExports).where(eq(logExports.id, id)).for('update');
  return row;
}

export interface LogExportListFilter {
  organisationId: string;
  /** only this workspace's exports */
  workspaceId?: string | undefined;
  /** a workspace key: its workspace's exports only (organisation-wide ones are an admin's) */
  visibleToWorkspace?: string | undefined;
}

export async function listLogExports(db: Db, filter: LogExportListFilter, page: { offset: number; limit: number }): Promise<{ total: number; rows: LogExportRow[] }> {
  const conditions = [eq(logExports.organisationId, filter.organisationId)];
  if (filter.workspaceId !== undefined) conditions.push(eq(logExports.workspaceId, filter.workspaceId));
  if (filter.visibleToWorkspace !== undefined) conditions.push(eq(logExports.workspaceId, filter.visibleToWorkspace));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(logExports).where(where),
    db.select().from(logExports).where(where).orderBy(desc(logExports.createdAt), desc(logExports.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

export async function updateLogExport(db: Db, id: string, changes: Partial<NewLogExportRow>): Promise<LogExportRow> {
  const [row] = await db.update(logExports).set(changes).where(eq(logExports.id, id)).returning();
  return row!;
}

/**
 * A run of a job is known by the `last_updated_at` it last wrote (the start's, then each of its own updates): an
 * update from a run that is no longer the job's current one (stopped, or started again, on any node) matches no
 * row, which tells that run to stop.
 */
function currentRun(id: string, lastUpdatedAt: Date) {
  return and(eq(logExports.id, id), eq(logExports.status, 'in_progress'), eq(logExports.lastUpdatedAt, lastUpdatedAt));
}

/** A running job's progress: the rows written so far. False when this run is no longer the job's. */
export async function recordExportProgress(db: Db, id: string, run: Date, exportedRows: number, at: Date): Promise<boolean> {
  const rows = await db.update(logExports).set({ exportedRows, lastUpdatedAt: at }).where(currentRun(id, run)).returning({ id: logExports.id });
  return rows.length > 0;
}

/** The job's end (success or failed), unless this run is no longer the job's. */
export async function finishLogExport(db: Db, id: string, run: Date, status: 'success' | 'failed', at: Date, error: string | null): Promise<boolean> {
  const rows = await db.update(logExports).set({ status, error, lastUpdatedAt: at }).where(currentRun(id, run)).returning({ id: logExports.id });
  return rows.length > 0;
}

/** A chunk of a run that is still the job's (see currentRun); false, and nothing written, otherwise. */
export async function insertExportChunk(db: Db, chunk: typeof logExportChunks.$inferInsert, run: Date): Promise<boolean> {
  const rows = await db.execute(sql`
    insert into ${logExportChunks} (export_id, seq, rows, data)
    select ${chunk.exportId}::uuid, ${chunk.seq}::int, ${chunk.rows}::int, ${chunk.data}::text
    where exists (select 1 from ${logExports} where ${currentRun(chunk.exportId, run)})
    returning export_id`);
  return ((rows as unknown as { rows?: unknown[] }).rows ?? (rows as unknown as unknown[])).length > 0;
}

export async function deleteExportChunks(db: Db, exportId: string): Promise<void> {
  await db.delete(logExportChunks).where(eq(logExportChunks.exportId, exportId));
}

/** The chunk after `seq` (the first when `seq` is -1): a download reads one chunk at a time. */
export async function nextExportChunk(db: Db, exportId: string, seq: number): Promise<{ seq: number; data: string } | undefined> {
  const [row] = await db
    .select({ seq: logExportChunks.seq, data: logExportChunks.data })
    .from(logExportChunks)
    .where(and(eq(logExportChunks.exportId, exportId), gt(logExportChunks.seq, seq)))
    .orderBy(asc(logExportChunks.seq))
    .limit(1);
  return row;
}

/** By id alone: a signed download URL carries no organisation (its signature is the credential). */
export async function findLogExportById(db: Db, id: string): Promise<LogExportRow | undefined> {
  const [row] = await db.select().from(logExports).where(eq(logExports.id, id)).limit(1);
  return row;
}
