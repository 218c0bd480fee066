/** What the MCP server use cases take, with the admin API's field names (api-surface §3.16). */
export interface CreateMcpServerInput {
  /** a workspace id or slug; a workspace key's own by default, an admin key's default workspace otherwise */
  workspace_id?: string;
  name: string;
  description?: string | null;
  /** the integration's id or slug */
  mcp_integration_id: string;
  slug?: string;
}

export interface UpdateMcpServerInput {
  name?: string;
  description?: string | null;
}

export interface ListMcpServersInput {
  workspace?: string | undefined;
  ids?: readonly string[] | undefined;
  search?: string | undefined;
}

export interface UpdateUserAccessInput {
  user_access?: ReadonlyArray<{ user_id: string; enabled: boolean }>;
  default_user_access?: 'allow' | 'deny';
}
