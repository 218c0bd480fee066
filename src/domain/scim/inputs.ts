/**
 * What the SCIM mapping use cases take, with the admin API's field names (the transport's schema is checked
 * against these types at compile time, in src/http/admin/scim/schemas.ts).
 */
import type { WorkspaceRole } from '../../core/context.ts';

export interface CreateScimMappingInput {
  /** a workspace id or slug */
  workspace_id: string;
  role: WorkspaceRole;
  /** an existing group's id; exactly one of this and scim_group_name (the schema's rule) */
  scim_group_id?: string;
  /** a group's display name: the group is created when the organisation has none of that name */
  scim_group_name?: string;
}

export interface ListScimMappingsInput {
  /** a workspace id or slug */
  workspace?: string | undefined;
  scimGroupId?: string | undefined;
  role?: WorkspaceRole | undefined;
}
