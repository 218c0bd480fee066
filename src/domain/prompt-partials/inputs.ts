/**
 * What the partial use cases take, with the admin API's field names (the transport's schemas are checked against
 * these types at compile time, in src/http/admin/prompt-partials/schemas.ts).
 */

export interface CreatePartialInput {
  name: string;
  /** the template text of version 1 */
  string: string;
  /** how prompts include it (`{{> slug}}`); generated from the name when absent */
  slug?: string;
  /** a workspace id or slug; absent: the caller's workspace (workspace keys; admin keys must name one) */
  workspace_id?: string;
  /** a collection of the same workspace, by id or slug */
  collection_id?: string | null;
  version_description?: string | null;
}

export interface UpdatePartialInput {
  name?: string;
  /** a new template text: a new version, which becomes the default only through makeDefault */
  string?: string;
  /** the new version's description; without `string`, the default version's */
  description?: string | null;
  /** `archived` archives the partial, as DELETE does */
  status?: 'active' | 'archived';
}

export interface ListPartialsInput {
  /** a collection id or slug */
  collection?: string | undefined;
  /** a workspace id or slug */
  workspace?: string | undefined;
}
