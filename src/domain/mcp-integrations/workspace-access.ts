/**
 * Which workspaces may use an organisation MCP integration (§3.15 > Workspaces): a row per workspace, and
 * `global_workspace_access` for every workspace without one. Only admin keys see or change it (the list names other
 * workspaces). A workspace integration belongs to its one workspace: its list is that workspace, and it has
 * nothing to change. A workspace disabled here keeps its MCP servers, which stop answering while it is.
 */
import { requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { GatewayError, invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import {
  clearMcpIntegrationWorkspaces,
  listMcpIntegrationWorkspaces,
  updateMcpIntegrationRow,
  upsertMcpIntegrationWorkspace,
  type McpIntegrationRow,
  type McpIntegrationWorkspaceRow,
} from '../../storage/repositories/mcp-integrations.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
import { managedMcpIntegration, visibleMcpIntegration } from './access.ts';
import type { UpdateMcpWorkspacesInput } from './inputs.ts';

export type McpWorkspaceAccess = Pick<McpIntegrationWorkspaceRow, 'workspaceId' | 'enabled' | 'createdAt' | 'updatedAt'>;

export async function listMcpWorkspaceAccess(db: Db, principal: Principal, idOrSlug: string): Promise<{ row: McpIntegrationRow; access: McpWorkspaceAccess[] }> {
  const row = await visibleMcpIntegration(db, principal, idOrSlug);
  if (row.workspaceId !== null) return { row, access: [{ workspaceId: row.workspaceId, enabled: true, createdAt: row.createdAt, updatedAt: row.updatedAt }] };
  requireAdminKey(principal, 'see which workspaces use an organisation MCP integration');
  return { row, access: await listMcpIntegrationWorkspaces(db, row.id) };
}

export async function updateMcpWorkspaceAccess(db: Db, principal: Principal, idOrSlug: string, body: UpdateMcpWorkspacesInput): Promise<McpIntegrationRow> {
  let row = await managedMcpIntegration(db, principal, idOrSlug, 'change the workspaces of');
  if (row.workspaceId !== null) {
    throw invalidParam('workspaces', 'A workspace MCP integration belongs to its own workspace only: its workspace access cannot be changed.');
  }
  const ids: string[] = [];
  for (const [index, entry] of body.workspaces.entries()) {
    const found = await findWorkspace(db, principal.organisationId, entry.id);
    if (!found) {
      throw new GatewayError(404, 'not_found_error', `Workspace "${entry.id}" not found.`, { code: 'workspace_not_found', param: `workspaces[${index}].id` });
    }
    if (ids.includes(found.id)) throw invalidParam(`workspaces[${index}].id`, `workspaces[${index}].id names a workspace already in the list.`);
    ids.push(found.id);
  }
  if (body.override_existing_workspace_access === true) await clearMcpIntegrationWorkspaces(db, row.id);
  if (body.global_workspace_access !== undefined) {
    const global = body.global_workspace_access === null ? null : { enabled: body.global_workspace_access.enabled };
    row = (await updateMcpIntegrationRow(db, row.id, { globalWorkspaceAccess: global })) ?? row;
  }
  for (const [index, entry] of body.workspaces.entries()) {
    await upsertMcpIntegrationWorkspace(db, { integrationId: row.id, workspaceId: ids[index]!, enabled: entry.enabled });
  }
  return row;
}
