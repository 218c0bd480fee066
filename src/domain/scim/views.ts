/** SCIM mappings as the admin API shows them (api-surface §3.8 ScimWorkspaceMapping). */
import type { ScimMappingWithGroup } from '../../storage/repositories/scim.ts';

export function scimMappingView(row: ScimMappingWithGroup) {
  return { id: row.id, workspace_id: row.workspaceId, scim_group: row.groupName, scim_group_id: row.scimGroupId, role: row.role };
}
