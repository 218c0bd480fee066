/**
 * POST /scim/workspaces: members of a group get a role in a workspace. The group is named by its id (it must
 * exist) or by its display name (created when the organisation has none of that name, so a mapping can be made
 * before the identity provider first sends the group). One active mapping per group and workspace: another is a
 * 409. A mapping takes effect at each member's next sign-in (apply-scim-groups.ts).
 */
import type { Principal } from '../../core/context.ts';
import { conflict, GatewayError } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { activeMappingExists, ensureScimGroup, findScimGroup, insertMapping, type ScimMappingWithGroup } from '../../storage/repositories/scim.ts';
import { findWorkspace, isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { requireScimAdmin } from './access.ts';
import type { CreateScimMappingInput } from './inputs.ts';

const notFoundParam = (param: string, message: string, code: string) => new GatewayError(404, 'not_found_error', message, { code, param });
const taken = () => conflict('This SCIM group is already mapped to this workspace; archive that mapping first.', 'scim_mapping_exists');

export async function createScimMapping(db: Db, principal: Principal, body: CreateScimMappingInput): Promise<ScimMappingWithGroup> {
  requireScimAdmin(principal, 'create');
  const workspace = await findWorkspace(db, principal.organisationId, body.workspace_id);
  if (!workspace || workspace.status !== 'active') {
    throw notFoundParam('workspace_id', `Workspace "${body.workspace_id}" not found.`, 'workspace_not_found');
  }
  const group = body.scim_group_id !== undefined
    ? await findScimGroup(db, principal.organisationId, body.scim_group_id.toLowerCase())
    : await ensureScimGroup(db, principal.organisationId, body.scim_group_name!);
  if (!group) throw notFoundParam('scim_group_id', `SCIM group "${body.scim_group_id}" not found.`, 'scim_group_not_found');
  if (await activeMappingExists(db, workspace.id, group.id)) throw taken();
  try {
    const row = await insertMapping(db, { organisationId: principal.organisationId, workspaceId: workspace.id, scimGroupId: group.id, role: body.role });
    return { ...row, groupName: group.displayName };
  } catch (error) {
    // a concurrent create mapped the same group between the check and the insert
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}
