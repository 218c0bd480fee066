/**
 * Prompt label rows: organisation-wide (workspace_id null) or of one workspace. Only active labels are found,
 * listed or changed; an archived one is kept for the record.
 */
import { and, asc, count, eq, ilike, isNull, ne, or, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { promptLabels, promptVersions } from '../schema/prompts.ts';
import { escapeLike } from './prompt-collections.ts';

export type LabelRow = typeof promptLabels.$inferSelect;
export type NewLabelRow = typeof promptLabels.$inferInsert;

const ACTIVE = eq(promptLabels.status, 'active');

export async function findLabelRow(db: Db, organisationId: string, id: string): Promise<LabelRow | undefined> {
  const rows = await db.select().from(promptLabels).where(and(eq(promptLabels.organisationId, organisationId), ACTIVE, eq(promptLabels.id, id))).limit(1);
  return rows[0];
}

/**
 * An active label whose name would be ambiguous next to `name` in `workspaceId`: an organisation-wide label of that
 * name, or one of the workspace. For an organisation-wide name (`workspaceId` null), a label of that name anywhere in
 * the organisation. `exceptId` leaves out the label being renamed.
 */
export async function clashingLabel(
  db: Db,
  organisationId: string,
  workspaceId: string | null,
  name: string,
  exceptId?: string,
): Promise<LabelRow | undefined> {
  const conditions: Array<SQL | undefined> = [eq(promptLabels.organisationId, organisationId), ACTIVE, eq(promptLabels.name, name)];
  if (workspaceId !== null) conditions.push(or(isNull(promptLabels.workspaceId), eq(promptLabels.workspaceId, workspaceId)));
  if (exceptId) conditions.push(ne(promptLabels.id, exceptId));
  const rows = await db.select().from(promptLabels).where(and(...conditions)).limit(1);
  return rows[0];
}

export async function insertLabel(db: Db, values: NewLabelRow): Promise<LabelRow> {
  const rows = await db.insert(promptLabels).values(values).returning();
  return rows[0]!;
}

/** Inserts organisation-wide labels, skipping a name already taken (two first lists racing). */
export async function insertLabelsIfAbsent(db: Db, values: NewLabelRow[]): Promise<void> {
  if (values.length > 0) await db.insert(promptLabels).values(values).onConflictDoNothing();
}

/** Whether the organisation ever had a label, archived ones included. */
export async function organisationHasLabels(db: Db, organisationId: string): Promise<boolean> {
  const rows = await db.select({ id: promptLabels.id }).from(promptLabels).where(eq(promptLabels.organisationId, organisationId)).limit(1);
  return rows.length > 0;
}

export interface LabelListFilter {
  organisationId: string;
  /** this workspace's labels and the organisation-wide ones; every label of the organisation when absent */
  workspaceId?: string | undefined;
  search?: string | undefined;
}

export async function listLabels(db: Db, filter: LabelListFilter, page: { offset: number; limit: number }): Promise<{ total: number; rows: LabelRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(promptLabels.organisationId, filter.organisationId), ACTIVE];
  if (filter.workspaceId) conditions.push(or(isNull(promptLabels.workspaceId), eq(promptLabels.workspaceId, filter.workspaceId)));
  if (filter.search) conditions.push(ilike(promptLabels.name, `%${escapeLike(filter.search)}%`));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(promptLabels).where(where),
    db.select().from(promptLabels).where(where).orderBy(asc(promptLabels.createdAt), asc(promptLabels.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** Changes an active label; undefined when it is gone (archived concurrently). */
export async function updateLabelRow(db: Db, id: string, values: Partial<NewLabelRow>): Promise<LabelRow | undefined> {
  const rows = await db
    .update(promptLabels)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(promptLabels.id, id), ACTIVE))
    .returning();
  return rows[0];
}

/** An archived label points at no version any more: the versions it marked lose it. */
export async function detachLabelFromVersions(db: Db, labelId: string): Promise<void> {
  await db.update(promptVersions).set({ labelId: null }).where(eq(promptVersions.labelId, labelId));
}
