/**
 * What the collection use cases take, with the admin API's field names (the transport's schemas are checked
 * against these types at compile time, in src/http/admin/prompt-collections/schemas.ts).
 */

export interface CreateCollectionInput {
  name: string;
  /** a workspace id or slug; absent: the caller's workspace (workspace keys; admin keys must name one) */
  workspace_id?: string;
  /** a collection of the same workspace, by id or slug */
  parent_collection_id?: string | null;
}

export interface UpdateCollectionInput {
  name?: string;
  /** moves the collection under another of its workspace, or to the top (null); a cycle is refused */
  parent_collection_id?: string | null;
}

export interface ListCollectionsInput {
  /** a workspace id or slug: required for admin keys, a workspace key's own by default */
  workspace?: string | undefined;
  search?: string | undefined;
}
