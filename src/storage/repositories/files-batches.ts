/** Rows of provider files, batches and fine-tuning jobs (schema/files-batches.ts), always read within one workspace. */
import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { providerBatches, providerFiles, providerFineTuningJobs } from '../schema/files-batches.ts';

export type FileRow = typeof providerFiles.$inferSelect;
export type NewFileRow = typeof providerFiles.$inferInsert;
export type BatchRow = typeof providerBatches.$inferSelect;
export type NewBatchRow = typeof providerBatches.$inferInsert;
export type FineTuningJobRow = typeof providerFineTuningJobs.$inferSelect;
export type NewFineTuningJobRow = typeof providerFineTuningJobs.$inferInsert;

export type RecordKind = 'file' | 'batch' | 'fine_tuning_job';

const TABLES = { file: providerFiles, batch: providerBatches, fine_tuning_job: providerFineTuningJobs } as const;

/** The fields a later answer of the provider may change; the ownership columns never change. */
type Refreshable<T> = Omit<Partial<T>, 'id' | 'organisationId' | 'workspaceId' | 'apiKeyId' | 'userId' | 'provider' | 'providerObjectId' | 'createdAt'>;

export async function saveFile(db: Db, values: NewFileRow): Promise<void> {
  const { organisationId: _o, workspaceId: _w, provider: _p, providerObjectId: _id, ...changes } = values;
  await db
    .insert(providerFiles)
    .values(values)
    .onConflictDoUpdate({ target: [providerFiles.workspaceId, providerFiles.provider, providerFiles.providerObjectId], set: { ...changes, updatedAt: new Date() } });
}

export async function saveBatch(db: Db, values: NewBatchRow): Promise<void> {
  const { organisationId: _o, workspaceId: _w, provider: _p, providerObjectId: _id, ...changes } = values;
  await db
    .insert(providerBatches)
    .values(values)
    .onConflictDoUpdate({ target: [providerBatches.workspaceId, providerBatches.provider, providerBatches.providerObjectId], set: { ...changes, updatedAt: new Date() } });
}

export async function saveFineTuningJob(db: Db, values: NewFineTuningJobRow): Promise<void> {
  const { organisationId: _o, workspaceId: _w, provider: _p, providerObjectId: _id, ...changes } = values;
  await db
    .insert(providerFineTuningJobs)
    .values(values)
    .onConflictDoUpdate({
      target: [providerFineTuningJobs.workspaceId, providerFineTuningJobs.provider, providerFineTuningJobs.providerObjectId],
      set: { ...changes, updatedAt: new Date() },
    });
}

export async function findFile(db: Db, workspaceId: string, objectId: string): Promise<FileRow | undefined> {
  const rows = await db
    .select()
    .from(providerFiles)
    .where(and(eq(providerFiles.workspaceId, workspaceId), eq(providerFiles.providerObjectId, objectId), isNull(providerFiles.deletedAt)))
    .orderBy(desc(providerFiles.createdAt))
    .limit(1);
  return rows[0];
}

export async function findBatch(db: Db, workspaceId: string, objectId: string): Promise<BatchRow | undefined> {
  const rows = await db
    .select()
    .from(providerBatches)
    .where(and(eq(providerBatches.workspaceId, workspaceId), eq(providerBatches.providerObjectId, objectId)))
    .orderBy(desc(providerBatches.createdAt))
    .limit(1);
  return rows[0];
}

/** The batch whose output file this is, if the workspace created one. */
export async function findBatchByOutputFile(db: Db, workspaceId: string, provider: string, outputFileId: string): Promise<BatchRow | undefined> {
  const rows = await db
    .select()
    .from(providerBatches)
    .where(and(eq(providerBatches.workspaceId, workspaceId), eq(providerBatches.provider, provider), eq(providerBatches.outputFileId, outputFileId)))
    .limit(1);
  return rows[0];
}

export async function findFineTuningJob(db: Db, workspaceId: string, objectId: string): Promise<FineTuningJobRow | undefined> {
  const rows = await db
    .select()
    .from(providerFineTuningJobs)
    .where(and(eq(providerFineTuningJobs.workspaceId, workspaceId), eq(providerFineTuningJobs.providerObjectId, objectId)))
    .orderBy(desc(providerFineTuningJobs.createdAt))
    .limit(1);
  return rows[0];
}

/** Which of these provider ids the workspace created at this provider (a provider's list is cut down to them). */
export async function ownedIds(db: Db, kind: RecordKind, workspaceId: string, provider: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const table = TABLES[kind];
  const conditions = [eq(table.workspaceId, workspaceId), eq(table.provider, provider), inArray(table.providerObjectId, [...ids])];
  if (kind === 'file') conditions.push(isNull(providerFiles.deletedAt));
  const rows = await db.select({ id: table.providerObjectId }).from(table).where(and(...conditions));
  return new Set(rows.map((row) => row.id));
}

export async function updateFile(db: Db, id: string, values: Refreshable<NewFileRow>): Promise<void> {
  await db.update(providerFiles).set({ ...values, updatedAt: new Date() }).where(eq(providerFiles.id, id));
}

export async function updateBatch(db: Db, id: string, values: Refreshable<NewBatchRow>): Promise<void> {
  await db.update(providerBatches).set({ ...values, updatedAt: new Date() }).where(eq(providerBatches.id, id));
}

export async function updateFineTuningJob(db: Db, id: string, values: Refreshable<NewFineTuningJobRow>): Promise<void> {
  await db.update(providerFineTuningJobs).set({ ...values, updatedAt: new Date() }).where(eq(providerFineTuningJobs.id, id));
}

/**
 * Marks the batch's output usage as recorded; true for the one caller that set it. One conditional UPDATE, so two
 * retrievals at once (or two gateway nodes) cannot both count it.
 */
export async function claimBatchUsage(db: Db, id: string, at: Date): Promise<boolean> {
  const rows = await db
    .update(providerBatches)
    .set({ usageRecordedAt: at })
    .where(and(eq(providerBatches.id, id), isNull(providerBatches.usageRecordedAt)))
    .returning({ id: providerBatches.id });
  return rows.length > 0;
}
