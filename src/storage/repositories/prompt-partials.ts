/**
 * Prompt partial rows and their immutable versions. Only active partials are found, listed or changed; an archived
 * one is kept for the record.
 */
import { and, asc, desc, eq, inArray, max, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { promptPartials, promptPartialVersions } from '../schema/prompts.ts';

export type PartialRow = typeof promptPartials.$inferSelect;
export type NewPartialRow = typeof promptPartials.$inferInsert;
export type PartialVersionRow = typeof promptPartialVersions.$inferSelect;
export type NewPartialVersionRow = typeof promptPartialVersions.$inferInsert;

const ACTIVE = eq(promptPartials.status, 'active');

function idOrSlugMatch(idOrSlug: string): SQL {
  return isUuid(idOrSlug) ? eq(promptPartials.id, idOrSlug.toLowerCase()) : eq(promptPartials.slug, idOrSlug);
}

/** An active partial of the organisation by id or slug (a slug is only unique per workspace: the oldest wins). */
export async function findPartialRow(db: Db, organisationId: string, idOrSlug: string): Promise<PartialRow | undefined> {
  const rows = await db
    .select()
    .from(promptPartials)
    .where(and(eq(promptPartials.organisationId, organisationId), ACTIVE, idOrSlugMatch(idOrSlug)))
    .orderBy(asc(promptPartials.createdAt), asc(promptPartials.id))
    .limit(1);
  return rows[0];
}

/** An active partial of one workspace by id or slug. */
export async function findWorkspacePartialRow(db: Db, workspaceId: string, idOrSlug: string): Promise<PartialRow | undefined> {
  const rows = await db
    .select()
    .from(promptPartials)
    .where(and(eq(promptPartials.workspaceId, workspaceId), ACTIVE, idOrSlugMatch(idOrSlug)))
    .limit(1);
  return rows[0];
}

export async function partialSlugTaken(db: Db, workspaceId: string, slug: string): Promise<boolean> {
  const rows = await db
    .select({ id: promptPartials.id })
    .from(promptPartials)
    .where(and(eq(promptPartials.workspaceId, workspaceId), ACTIVE, eq(promptPartials.slug, slug)))
    .limit(1);
  return rows.length > 0;
}

export async function insertPartial(db: Db, values: NewPartialRow): Promise<PartialRow> {
  const rows = await db.insert(promptPartials).values(values).returning();
  return rows[0]!;
}

export async function insertPartialVersion(db: Db, values: NewPartialVersionRow): Promise<PartialVersionRow> {
  const rows = await db.insert(promptPartialVersions).values(values).returning();
  return rows[0]!;
}

export interface PartialListFilter {
  organisationId: string;
  /** only this workspace's partials (a workspace key's) */
  workspaceId?: string | undefined;
  collectionId?: string | undefined;
}

export async function listPartials(db: Db, filter: PartialListFilter): Promise<PartialRow[]> {
  const conditions: Array<SQL | undefined> = [eq(promptPartials.organisationId, filter.organisationId), ACTIVE];
  if (filter.workspaceId) conditions.push(eq(promptPartials.workspaceId, filter.workspaceId));
  if (filter.collectionId) conditions.push(eq(promptPartials.collectionId, filter.collectionId));
  return db
    .select()
    .from(promptPartials)
    .where(and(...conditions))
    .orderBy(asc(promptPartials.createdAt), asc(promptPartials.id));
}

export async function findPartialVersion(db: Db, partialId: string, version: number): Promise<PartialVersionRow | undefined> {
  const rows = await db
    .select()
    .from(promptPartialVersions)
    .where(and(eq(promptPartialVersions.partialId, partialId), eq(promptPartialVersions.version, version)))
    .limit(1);
  return rows[0];
}

/** Newest first. */
export async function listPartialVersions(db: Db, partialId: string): Promise<PartialVersionRow[]> {
  return db.select().from(promptPartialVersions).where(eq(promptPartialVersions.partialId, partialId)).orderBy(desc(promptPartialVersions.version));
}

export async function latestPartialVersionNumber(db: Db, partialId: string): Promise<number> {
  const rows = await db
    .select({ value: max(promptPartialVersions.version) })
    .from(promptPartialVersions)
    .where(eq(promptPartialVersions.partialId, partialId));
  return rows[0]?.value ?? 0;
}

/**
 * Locks the partial's row for the rest of the transaction: two updates of one partial then number their versions
 * one after the other instead of both taking `max + 1`.
 */
export async function lockPartial(db: Db, id: string): Promise<PartialRow | undefined> {
  const rows = await db.select().from(promptPartials).where(and(eq(promptPartials.id, id), ACTIVE)).for('update').limit(1);
  return rows[0];
}

/** Changes an active partial; undefined when it is gone (archived concurrently). */
export async function updatePartialRow(db: Db, id: string, values: Partial<NewPartialRow>): Promise<PartialRow | undefined> {
  const rows = await db
    .update(promptPartials)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(promptPartials.id, id), ACTIVE))
    .returning();
  return rows[0];
}

export async function updatePartialVersionDescription(db: Db, versionId: string, description: string | null): Promise<void> {
  await db.update(promptPartialVersions).set({ description }).where(eq(promptPartialVersions.id, versionId));
}

/** slug -> template of the default version, for the active partials of one workspace with these slugs. */
export async function defaultPartialTemplates(db: Db, workspaceId: string, slugs: readonly string[]): Promise<Array<{ slug: string; template: string }>> {
  if (slugs.length === 0) return [];
  return db
    .select({ slug: promptPartials.slug, template: promptPartialVersions.template })
    .from(promptPartials)
    .innerJoin(
      promptPartialVersions,
      and(eq(promptPartialVersions.partialId, promptPartials.id), eq(promptPartialVersions.version, promptPartials.defaultVersion)),
    )
    .where(and(eq(promptPartials.workspaceId, workspaceId), ACTIVE, inArray(promptPartials.slug, [...slugs])));
}
