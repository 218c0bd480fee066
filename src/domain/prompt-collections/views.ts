/** Collections as the admin API shows them (api-surface §3.12 Collection, CollectionWithDetails, CollectionWithChildCollections). */
import type { CollectionCounts, CollectionRow } from '../../storage/repositories/prompt-collections.ts';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function collectionView(row: CollectionRow) {
  return {
    id: row.id,
    name: row.name,
    workspace_id: row.workspaceId,
    slug: row.slug,
    parent_collection_id: row.parentCollectionId,
    is_default: row.isDefault,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
  };
}

const NO_CONTENTS: CollectionCounts = { childCollections: 0, childCollectionsLastUpdatedAt: null, prompts: 0, promptsLastUpdatedAt: null };

export function collectionDetailsView(counts: CollectionCounts | undefined) {
  const value = counts ?? NO_CONTENTS;
  return {
    child_collections_count: value.childCollections,
    prompts_count: value.prompts,
    child_collections_last_updated_at: iso(value.childCollectionsLastUpdatedAt),
    prompts_last_updated_at: iso(value.promptsLastUpdatedAt),
  };
}

export function collectionWithDetailsView(row: CollectionRow, counts: CollectionCounts | undefined) {
  return { ...collectionView(row), collection_details: collectionDetailsView(counts) };
}

/** GET /collections/{id}: the collection, its own counts, and its direct children with theirs. */
export function collectionWithChildrenView(row: CollectionRow, children: readonly CollectionRow[], counts: Map<string, CollectionCounts>) {
  return {
    ...collectionWithDetailsView(row, counts.get(row.id)),
    child_collections: children.map((child) => ({
      id: child.id,
      name: child.name,
      slug: child.slug,
      last_updated_at: child.updatedAt.toISOString(),
      collection_details: collectionDetailsView(counts.get(child.id)),
    })),
  };
}

/** What create answers. */
export function collectionRefView(row: CollectionRow) {
  return { id: row.id, slug: row.slug };
}
