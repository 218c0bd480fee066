/**
 * The workspace's default collection, which prompts land in when none is named. It is made on first use rather than
 * with the workspace, so workspaces made before prompts existed get one too.
 */
import type { Db } from '../../storage/database.ts';
import { findCollectionRow, findDefaultCollectionRow, insertCollectionIfAbsent } from '../../storage/repositories/prompt-collections.ts';

/** the default collection's fixed slug: generated slugs always end in `-<6 hex>`, so no other collection takes it */
export const DEFAULT_COLLECTION_SLUG = 'default';

export async function defaultCollection(
  db: Db,
  scope: { organisationId: string; workspaceId: string; createdBy: string },
): Promise<{ id: string; slug: string }> {
  const existing = await findDefaultCollectionRow(db, scope.workspaceId);
  if (existing) return { id: existing.id, slug: existing.slug };
  // Two first requests may race: the partial unique index keeps one default; the loser's insert does nothing and
  // its select then reads the winner's row.
  await insertCollectionIfAbsent(db, {
    organisationId: scope.organisationId,
    workspaceId: scope.workspaceId,
    slug: DEFAULT_COLLECTION_SLUG,
    name: 'Default',
    isDefault: true,
    createdBy: scope.createdBy,
  });
  const row = await findDefaultCollectionRow(db, scope.workspaceId);
  if (!row) throw new Error(`the default collection of workspace ${scope.workspaceId} could not be created`);
  return { id: row.id, slug: row.slug };
}

/** An active collection of the workspace by id or slug. */
export async function findCollection(db: Db, workspaceId: string, idOrSlug: string): Promise<{ id: string; slug: string; workspaceId: string } | null> {
  const row = await findCollectionRow(db, workspaceId, idOrSlug);
  return row ? { id: row.id, slug: row.slug, workspaceId: row.workspaceId } : null;
}
