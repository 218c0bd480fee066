import { and, eq } from 'drizzle-orm';
import { isUuid } from '../../http/admin/params.ts';
import type { Db } from '../database.ts';
import { workspaces } from '../schema.ts';

export type WorkspaceRow = typeof workspaces.$inferSelect;

/** A workspace of the organisation by id or slug (the reference accepts either wherever a workspace is named). */
export async function findWorkspace(db: Db, organisationId: string, idOrSlug: string): Promise<WorkspaceRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(workspaces.id, idOrSlug.toLowerCase()) : eq(workspaces.slug, idOrSlug);
  const rows = await db.select().from(workspaces).where(and(eq(workspaces.organisationId, organisationId), match)).limit(1);
  return rows[0];
}
