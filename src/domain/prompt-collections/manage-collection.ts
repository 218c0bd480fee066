/** Renames, moves and deletes (archives) a collection the caller manages. */
import type { Principal } from '../../core/context.ts';
import { conflict } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { collectionHasContents, updateCollectionRow, type CollectionRow } from '../../storage/repositories/prompt-collections.ts';
import { collectionNotFound, managedCollection } from './access.ts';
import type { UpdateCollectionInput } from './inputs.ts';
import { refuseCycle, resolveParent } from './parent.ts';

export async function updateCollection(db: Db, principal: Principal, idOrSlug: string, body: UpdateCollectionInput): Promise<CollectionRow> {
  const row = await managedCollection(db, principal, idOrSlug, 'update');
  const values: Partial<CollectionRow> = {};
  if (body.name !== undefined) values.name = body.name;
  if (body.parent_collection_id !== undefined) {
    const parentId = await resolveParent(db, row.workspaceId, body.parent_collection_id);
    await refuseCycle(db, row.id, parentId);
    values.parentCollectionId = parentId;
  }
  const updated = await updateCollectionRow(db, row.id, values);
  if (!updated) throw collectionNotFound(idOrSlug);
  return updated;
}

/**
 * DELETE archives (api-surface §6.6). The default collection is never deleted: prompts created without a
 * collection land there, so it answers 404 as the surface says. A collection that still holds sub-collections,
 * prompts or partials is refused (409) rather than leaving them in an archived folder.
 */
export async function deleteCollection(db: Db, principal: Principal, idOrSlug: string): Promise<CollectionRow> {
  const row = await managedCollection(db, principal, idOrSlug, 'delete');
  if (row.isDefault) throw collectionNotFound(idOrSlug);
  if (await collectionHasContents(db, row.id)) {
    throw conflict(`Collection "${idOrSlug}" still holds sub-collections, prompts or partials; move or delete them first.`, 'collection_not_empty');
  }
  const archived = await updateCollectionRow(db, row.id, { status: 'archived' });
  if (!archived) throw collectionNotFound(idOrSlug);
  return archived;
}
