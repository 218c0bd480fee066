import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { organisations, workspaces } from '../schema.ts';

export type OrganisationRow = typeof organisations.$inferSelect;
export type WorkspaceRow = typeof workspaces.$inferSelect;

export async function firstOrganisation(db: Db): Promise<OrganisationRow | undefined> {
  const rows = await db.select().from(organisations).orderBy(asc(organisations.createdAt)).limit(1);
  return rows[0];
}

export async function getOrganisation(db: Db, id: string): Promise<OrganisationRow | undefined> {
  const rows = await db.select().from(organisations).where(eq(organisations.id, id)).limit(1);
  return rows[0];
}

export async function updateOrganisationRow(
  db: Db,
  id: string,
  values: Partial<Pick<OrganisationRow, 'name' | 'settings' | 'updatedAt'>>,
): Promise<OrganisationRow | undefined> {
  const rows = await db.update(organisations).set(values).where(eq(organisations.id, id)).returning();
  return rows[0];
}

export async function insertOrganisation(db: Db, values: { name: string; slug: string }): Promise<OrganisationRow> {
  const rows = await db.insert(organisations).values(values).returning();
  return rows[0]!;
}

export async function defaultWorkspace(db: Db, organisationId: string): Promise<WorkspaceRow | undefined> {
  const rows = await db
    .select()
    .from(workspaces)
    .where(and(eq(workspaces.organisationId, organisationId), eq(workspaces.isDefault, true)))
    .limit(1);
  return rows[0];
}

export async function insertWorkspace(
  db: Db,
  values: { organisationId: string; name: string; slug: string; isDefault?: boolean; description?: string | null },
): Promise<WorkspaceRow> {
  const rows = await db.insert(workspaces).values(values).returning();
  return rows[0]!;
}
