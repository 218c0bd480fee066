/** GET /collections (one workspace's, with counts) and GET /collections/{id} (with its children). */
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import {
  countCollectionContents,
  listChildCollections,
  listCollections,
  type CollectionCounts,
  type CollectionRow,
} from '../../storage/repositories/prompt-collections.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { visibleCollection } from './access.ts';
import type { ListCollectionsInput } from './inputs.ts';

export interface CollectionPage {
  total: number;
  rows: CollectionRow[];
  counts: Map<string, CollectionCounts>;
}

export async function listCollectionsFor(
  db: Db,
  principal: Principal,
  filter: ListCollectionsInput,
  page: { offset: number; limit: number },
): Promise<CollectionPage> {
  let workspaceId: string;
  if (filter.workspace !== undefined) workspaceId = (await visibleWorkspace(db, principal, filter.workspace)).id;
  else if (principal.keyType === 'workspace') workspaceId = principal.workspaceId;
  else throw invalidParam('workspace_id', 'workspace_id is required for an organisation key: collections belong to a workspace.');
  const { total, rows } = await listCollections(db, { workspaceId, search: filter.search }, page);
  const counts = await countCollectionContents(db, rows.map((row) => row.id));
  return { total, rows, counts };
}

export async function collectionWithChildren(
  db: Db,
  principal: Principal,
  idOrSlug: string,
): Promise<{ row: CollectionRow; children: CollectionRow[]; counts: Map<string, CollectionCounts> }> {
  const row = await visibleCollection(db, principal, idOrSlug);
  const children = await listChildCollections(db, row.id);
  const counts = await countCollectionContents(db, [row.id, ...children.map((child) => child.id)]);
  return { row, children, counts };
}
