/**
 * What the saved-config use cases take, with the admin API's field names (the transport's schemas are checked
 * against these types at compile time, in src/http/admin/configs/schemas.ts). The `config` object itself is the
 * routing config schema's to judge (definition.ts).
 */

export interface CreateConfigInput {
  name: string;
  config: Record<string, unknown>;
  /** the reference's integer flag: 1 makes it its workspace's default */
  isDefault?: number;
  slug?: string;
  /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
  workspace_id?: string;
}

export interface UpdateConfigInput {
  name?: string;
  config?: Record<string, unknown>;
  /** `archived` archives the config, as DELETE does */
  status?: 'active' | 'archived';
  isDefault?: number;
}

export interface ListConfigsInput {
  /** a workspace id or slug: only that workspace's configs */
  workspace?: string | undefined;
}
