/**
 * What the prompt use cases take, with the admin API's field names (api-surface §3.10). The transport's schemas
 * are checked against these types at compile time (src/http/admin/prompts/schemas.ts).
 */

/** The fields a version holds: changing any of them makes a new version. */
export interface PromptVersionInput {
  /** the template: a JSON array of chat messages, or plain text (template.ts) */
  string?: string;
  parameters?: Record<string, unknown>;
  model?: string | null;
  functions?: unknown[] | null;
  tools?: unknown[] | null;
  tool_choice?: string | Record<string, unknown> | null;
  template_metadata?: Record<string, unknown> | null;
  /** update's name for template_metadata */
  prompt_metadata?: Record<string, unknown> | null;
  is_raw_template?: 0 | 1 | boolean;
}

export interface CreatePromptInput extends PromptVersionInput {
  name: string;
  string: string;
  slug?: string;
  /** a collection id or slug; absent: the workspace's default collection */
  collection_id?: string;
  /** a workspace id or slug; absent: the collection's workspace, else the caller's */
  workspace_id?: string;
  /** the provider the prompt runs on: `@slug`, a provider slug or a virtual key */
  virtual_key?: string | null;
  version_description?: string | null;
}

export interface UpdatePromptInput extends PromptVersionInput {
  /** true: version fields left out are copied from the latest version; otherwise `string` must be sent with them */
  patch?: boolean;
  name?: string;
  collection_id?: string;
  virtual_key?: string | null;
  version_description?: string | null;
}

export interface ListPromptsInput {
  collectionId?: string | undefined;
  workspace?: string | undefined;
  search?: string | undefined;
}

/** The body of render and completions (api-surface §2.6). */
export interface RunPromptInput {
  variables: Record<string, unknown>;
  stream?: boolean;
  hyperparameters?: Record<string, unknown>;
}
