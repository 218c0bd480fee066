/** GET /scim/workspaces: the organisation's active mappings, filtered by workspace, group and role. */
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { listMappings, type ScimMappingWithGroup } from '../../storage/repositories/scim.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
import { requireScimAdmin } from './access.ts';
import type { ListScimMappingsInput } from './inputs.ts';

export async function listScimMappings(
  db: Db,
  principal: Principal,
  filter: ListScimMappingsInput,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: ScimMappingWithGroup[] }> {
  requireScimAdmin(principal, 'list');
  let workspaceId: string | undefined;
  if (filter.workspace !== undefined) {
    const workspace = await findWorkspace(db, principal.organisationId, filter.workspace);
    if (!workspace) throw notFound(`Workspace "${filter.workspace}" not found.`, 'workspace_not_found');
    workspaceId = workspace.id;
  }
  return listMappings(db, { organisationId: principal.organisationId, workspaceId, scimGroupId: filter.scimGroupId, role: filter.role }, page);
}
