import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { apiKeys, workspaces } from '../schema.ts';

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type NewWorkspaceRow = typeof workspaces.$inferInsert;

/** A workspace of the organisation by id or slug (the reference accepts either wherever a workspace is named). */
export async function findWorkspace(db: Db, organisationId: string, idOrSlug: string): Promise<WorkspaceRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(workspaces.id, idOrSlug.toLowerCase()) : eq(workspaces.slug, idOrSlug);
  const rows = await db.select().from(workspaces).where(and(eq(workspaces.organisationId, organisationId), match)).limit(1);
  return rows[0];
}

export async function slugTaken(db: Db, organisationId: string, slug: string): Promise<boolean> {
  const rows = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(and(eq(workspaces.organisationId, organisationId), eq(workspaces.slug, slug)))
    .limit(1);
  return rows.length > 0;
}

export async function createWorkspaceRow(db: Db, values: NewWorkspaceRow): Promise<WorkspaceRow> {
  const rows = await db.insert(workspaces).values(values).returning();
  return rows[0]!;
}

export interface WorkspaceListFilter {
  organisationId: string;
  /** a workspace key sees only its own workspace */
  onlyId?: string | undefined;
  /** case-sensitive substring of the name */
  nameContains?: string | undefined;
  exactName?: string | undefined;
  statuses?: readonly string[] | undefined;
}

export async function listWorkspaces(
  db: Db,
  filter: WorkspaceListFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: WorkspaceRow[] }> {
  const conditions: SQL[] = [eq(workspaces.organisationId, filter.organisationId)];
  if (filter.onlyId) conditions.push(eq(workspaces.id, filter.onlyId));
  // strpos, not LIKE: the filter is a literal substring, so `%` and `_` in it match themselves
  if (filter.nameContains !== undefined) conditions.push(sql`strpos(${workspaces.name}, ${filter.nameContains}) > 0`);
  if (filter.exactName !== undefined) conditions.push(eq(workspaces.name, filter.exactName));
  if (filter.statuses && filter.statuses.length > 0) conditions.push(inArray(workspaces.status, [...filter.statuses]));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(workspaces).where(where),
    db.select().from(workspaces).where(where).orderBy(asc(workspaces.createdAt), asc(workspaces.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

export async function updateWorkspaceRow(db: Db, id: string, values: Partial<NewWorkspaceRow>): Promise<WorkspaceRow | undefined> {
  const rows = await db.update(workspaces).set({ ...values, updatedAt: new Date() }).where(eq(workspaces.id, id)).returning();
  return rows[0];
}

/**
 * Locks the workspace row for the rest of the transaction. A key being created in it holds a KEY SHARE lock
 * through its foreign key, so after this lock no key can appear (or be in flight) unseen.
 */
export async function lockWorkspace(db: Db, id: string): Promise<WorkspaceRow | undefined> {
  const rows = await db.select().from(workspaces).where(eq(workspaces.id, id)).for('update');
  return rows[0];
}

export async function countWorkspaceApiKeys(db: Db, workspaceId: string): Promise<number> {
  const rows = await db.select({ value: count() }).from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId));
  return rows[0]?.value ?? 0;
}

/** Members go with the workspace (ON DELETE CASCADE); callers make sure no API key would. */
export async function deleteWorkspaceRow(db: Db, id: string): Promise<void> {
  await db.delete(workspaces).where(eq(workspaces.id, id));
}

/** PostgreSQL unique_violation, whether raw (PGlite, pg) or wrapped by Drizzle (`cause`): a lost race on a unique key. */
export function isUniqueViolation(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 3; depth += 1) {
    if ((current as { code?: unknown }).code === '23505') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
