/** The parent of a collection: an active collection of the same workspace, never the collection itself or below it. */
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { ancestorIds, findCollectionRow } from '../../storage/repositories/prompt-collections.ts';

/** The parent's id, or null; a parent elsewhere (another workspace, archived, unknown) is a 400 naming the field. */
export async function resolveParent(db: Db, workspaceId: string, parent: string | null | undefined): Promise<string | null> {
  if (parent === undefined || parent === null) return null;
  const row = await findCollectionRow(db, workspaceId, parent);
  if (!row) {
    throw invalidParam('parent_collection_id', `parent_collection_id "${parent}" is not a collection of this workspace.`, 'collection_not_found');
  }
  return row.id;
}

/** Moving `collectionId` under `parentId` must not make it its own ancestor. */
export async function refuseCycle(db: Db, collectionId: string, parentId: string | null): Promise<void> {
  if (parentId === null) return;
  if (parentId === collectionId || (await ancestorIds(db, parentId)).includes(collectionId)) {
    throw invalidParam('parent_collection_id', 'parent_collection_id cannot be the collection itself or one of its sub-collections.', 'collection_cycle');
  }
}
