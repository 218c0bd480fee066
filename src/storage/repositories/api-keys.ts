import { and, asc, count, desc, eq, isNull, or } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { apiKeys } from '../schema.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type NewApiKeyRow = typeof apiKeys.$inferInsert;

/** `created_by` of the keys the bootstrap makes */
export const BOOTSTRAP_CREATOR = 'bootstrap';

/** The key whose current secret has this hash, or whose previous secret (after a rotation) still does. */
export async function findApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(or(eq(apiKeys.keyHash, keyHash), eq(apiKeys.previousKeyHash, keyHash)))
    .limit(1);
  return rows[0];
}

export async function insertApiKey(db: Db, values: NewApiKeyRow): Promise<ApiKeyRow> {
  const rows = await db.insert(apiKeys).values(values).returning();
  return rows[0]!;
}

export async function countOrganisationKeys(db: Db, organisationId: string): Promise<number> {
  const rows = await db
    .select({ value: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.organisationId, organisationId), eq(apiKeys.type, 'organisation')));
  return rows[0]?.value ?? 0;
}

/** Admin keys the bootstrap made before owners were users: they now act for the owner user. */
export async function linkBootstrapKeys(db: Db, organisationId: string, ownerId: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ userId: ownerId })
    .where(and(eq(apiKeys.organisationId, organisationId), eq(apiKeys.createdBy, BOOTSTRAP_CREATOR), eq(apiKeys.type, 'organisation'), isNull(apiKeys.userId)));
}

export async function getApiKey(db: Db, organisationId: string, id: string): Promise<ApiKeyRow | undefined> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.organisationId, organisationId), eq(apiKeys.id, id)))
    .limit(1);
  return rows[0];
}

export interface ApiKeyListFilter {
  organisationId: string;
  workspaceId?: string | undefined;
  /** `${type}-${subType}` values the caller may list */
  kinds: ReadonlyArray<{ type: string; subType: string }>;
}

export async function listApiKeys(
  db: Db,
  filter: ApiKeyListFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: ApiKeyRow[] }> {
  if (filter.kinds.length === 0) return { total: 0, rows: [] };
  const kinds = or(...filter.kinds.map((kind) => and(eq(apiKeys.type, kind.type), eq(apiKeys.subType, kind.subType))));
  const where = and(
    eq(apiKeys.organisationId, filter.organisationId),
    kinds,
    filter.workspaceId ? eq(apiKeys.workspaceId, filter.workspaceId) : undefined,
  );
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(apiKeys).where(where),
    db.select().from(apiKeys).where(where).orderBy(desc(apiKeys.createdAt), asc(apiKeys.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

export async function updateApiKey(db: Db, id: string, values: Partial<NewApiKeyRow>): Promise<ApiKeyRow | undefined> {
  const rows = await db.update(apiKeys).set({ ...values, updatedAt: new Date() }).where(eq(apiKeys.id, id)).returning();
  return rows[0];
}

export async function deleteApiKey(db: Db, id: string): Promise<void> {
  await db.delete(apiKeys).where(eq(apiKeys.id, id));
}
