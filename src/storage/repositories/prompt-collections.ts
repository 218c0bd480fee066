/**
 * Prompt collection rows. Only active collections are found, listed or changed; an archived one is kept for the
 * record (and for the prompts that still point at it).
 */
import { and, asc, count, eq, ilike, inArray, max, or, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { promptCollections, promptPartials, prompts } from '../schema/prompts.ts';

export type CollectionRow = typeof promptCollections.$inferSelect;
export type NewCollectionRow = typeof promptCollections.$inferInsert;

const ACTIVE = eq(promptCollections.status, 'active');

/** An active collection of the workspace by id or slug. */
export async function findCollectionRow(db: Db, workspaceId: string, idOrSlug: string): Promise<CollectionRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(promptCollections.id, idOrSlug.toLowerCase()) : eq(promptCollections.slug, idOrSlug);
  const rows = await db.select().from(promptCollections).where(and(eq(promptCollections.workspaceId, workspaceId), ACTIVE, match)).limit(1);
  return rows[0];
}

/** An active collection of the organisation by id or slug (a slug is only unique per workspace: the oldest wins). */
export async function findOrganisationCollectionRow(db: Db, organisationId: string, idOrSlug: string): Promise<CollectionRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(promptCollections.id, idOrSlug.toLowerCase()) : eq(promptCollections.slug, idOrSlug);
  const rows = await db
    .select()
    .from(promptCollections)
    .where(and(eq(promptCollections.organisationId, organisationId), ACTIVE, match))
    .orderBy(asc(promptCollections.createdAt), asc(promptCollections.id))
    .limit(1);
  return rows[0];
}

export async function findDefaultCollectionRow(db: Db, workspaceId: string): Promise<CollectionRow | undefined> {
  const rows = await db
    .select()
    .from(promptCollections)
    .where(and(eq(promptCollections.workspaceId, workspaceId), ACTIVE, eq(promptCollections.isDefault, true)))
    .limit(1);
  return rows[0];
}

/** Inserts the row unless a unique index says it exists already (the default collection raced by two requests). */
export async function insertCollectionIfAbsent(db: Db, values: NewCollectionRow): Promise<void> {
  await db.insert(promptCollections).values(values).onConflictDoNothing();
}

export async function insertCollection(db: Db, values: NewCollectionRow): Promise<CollectionRow> {
  const rows = await db.insert(promptCollections).values(values).returning();
  return rows[0]!;
}

export async function collectionSlugTaken(db: Db, workspaceId: string, slug: string): Promise<boolean> {
  const rows = await db
    .select({ id: promptCollections.id })
    .from(promptCollections)
    .where(and(eq(promptCollections.workspaceId, workspaceId), ACTIVE, eq(promptCollections.slug, slug)))
    .limit(1);
  return rows.length > 0;
}

export async function listCollections(
  db: Db,
  filter: { workspaceId: string; search?: string | undefined },
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: CollectionRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(promptCollections.workspaceId, filter.workspaceId), ACTIVE];
  if (filter.search) {
    const pattern = `%${escapeLike(filter.search)}%`;
    conditions.push(or(ilike(promptCollections.name, pattern), ilike(promptCollections.slug, pattern)));
  }
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(promptCollections).where(where),
    db
      .select()
      .from(promptCollections)
      .where(where)
      .orderBy(asc(promptCollections.createdAt), asc(promptCollections.id))
      .offset(page.offset)
      .limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

export async function listChildCollections(db: Db, parentId: string): Promise<CollectionRow[]> {
  return db
    .select()
    .from(promptCollections)
    .where(and(eq(promptCollections.parentCollectionId, parentId), ACTIVE))
    .orderBy(asc(promptCollections.createdAt), asc(promptCollections.id));
}

export interface CollectionCounts {
  childCollections: number;
  childCollectionsLastUpdatedAt: Date | null;
  prompts: number;
  promptsLastUpdatedAt: Date | null;
}

/** Active children and active prompts of each collection, in two grouped queries. */
export async function countCollectionContents(db: Db, ids: readonly string[]): Promise<Map<string, CollectionCounts>> {
  const result = new Map<string, CollectionCounts>();
  if (ids.length === 0) return result;
  for (const id of ids) result.set(id, { childCollections: 0, childCollectionsLastUpdatedAt: null, prompts: 0, promptsLastUpdatedAt: null });
  const [children, contents] = await Promise.all([
    db
      .select({ parent: promptCollections.parentCollectionId, value: count(), last: max(promptCollections.updatedAt) })
      .from(promptCollections)
      .where(and(inArray(promptCollections.parentCollectionId, [...ids]), ACTIVE))
      .groupBy(promptCollections.parentCollectionId),
    db
      .select({ collection: prompts.collectionId, value: count(), last: max(prompts.updatedAt) })
      .from(prompts)
      .where(and(inArray(prompts.collectionId, [...ids]), eq(prompts.status, 'active')))
      .groupBy(prompts.collectionId),
  ]);
  for (const row of children) {
    const entry = row.parent ? result.get(row.parent) : undefined;
    if (entry) {
      entry.childCollections = row.value;
      entry.childCollectionsLastUpdatedAt = toDate(row.last);
    }
  }
  for (const row of contents) {
    const entry = result.get(row.collection);
    if (entry) {
      entry.prompts = row.value;
      entry.promptsLastUpdatedAt = toDate(row.last);
    }
  }
  return result;
}

/** The chain of ancestors' ids, nearest first (bounded: a cycle already in the data cannot loop forever). */
export async function ancestorIds(db: Db, collectionId: string, limit = 100): Promise<string[]> {
  const chain: string[] = [];
  let current: string | null = collectionId;
  while (current && chain.length < limit) {
    const rows: Array<{ parent: string | null }> = await db
      .select({ parent: promptCollections.parentCollectionId })
      .from(promptCollections)
      .where(eq(promptCollections.id, current))
      .limit(1);
    current = rows[0]?.parent ?? null;
    if (current) chain.push(current);
  }
  return chain;
}

/** Whether the collection still holds an active sub-collection, prompt or partial. */
export async function collectionHasContents(db: Db, id: string): Promise<boolean> {
  const [children, contents, partials] = await Promise.all([
    db.select({ id: promptCollections.id }).from(promptCollections).where(and(eq(promptCollections.parentCollectionId, id), ACTIVE)).limit(1),
    db.select({ id: prompts.id }).from(prompts).where(and(eq(prompts.collectionId, id), eq(prompts.status, 'active'))).limit(1),
    db.select({ id: promptPartials.id }).from(promptPartials).where(and(eq(promptPartials.collectionId, id), eq(promptPartials.status, 'active'))).limit(1),
  ]);
  return children.length > 0 || contents.length > 0 || partials.length > 0;
}

/** Changes an active collection; undefined when it is gone (archived concurrently). */
export async function updateCollectionRow(db: Db, id: string, values: Partial<NewCollectionRow>): Promise<CollectionRow | undefined> {
  const rows = await db
    .update(promptCollections)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(promptCollections.id, id), ACTIVE))
    .returning();
  return rows[0];
}

// max() over a timestamp comes back as a string from some drivers
function toDate(value: Date | string | null): Date | null {
  if (value === null) return null;
  return value instanceof Date ? value : new Date(value);
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
