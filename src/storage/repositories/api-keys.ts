import { and, count, eq } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { apiKeys } from '../schema.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type NewApiKeyRow = typeof apiKeys.$inferInsert;

export async function findApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).limit(1);
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
