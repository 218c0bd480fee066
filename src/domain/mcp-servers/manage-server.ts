/** Updates and deletes an MCP server the caller manages; reads one or a page of them. */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { findMcpIntegration, type McpIntegrationRow } from '../../storage/repositories/mcp-integrations.ts';
import { deleteMcpServerRow, listMcpServers, updateMcpServerRow, type McpServerListRow, type McpServerRow } from '../../storage/repositories/mcp-servers.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { managedMcpServer, mcpServerNotFound, visibleMcpServer } from './access.ts';
import type { ListMcpServersInput, UpdateMcpServerInput } from './inputs.ts';

export async function updateMcpServer(db: Db, principal: Principal, idOrSlug: string, body: UpdateMcpServerInput): Promise<McpServerRow> {
  const row = await managedMcpServer(db, principal, idOrSlug, 'update');
  const updated = await updateMcpServerRow(db, row.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
  });
  if (!updated) throw mcpServerNotFound(idOrSlug);
  return updated;
}

/** Deletes the server with its capability switches and user access entries. */
export async function deleteMcpServer(db: Db, principal: Principal, idOrSlug: string): Promise<McpServerRow> {
  const row = await managedMcpServer(db, principal, idOrSlug, 'delete');
  await deleteMcpServerRow(db, row.id);
  return row;
}

export async function readMcpServer(db: Db, principal: Principal, idOrSlug: string): Promise<{ row: McpServerRow; integration: McpIntegrationRow | undefined }> {
  const row = await visibleMcpServer(db, principal, idOrSlug);
  return { row, integration: await findMcpIntegration(db, principal.organisationId, row.integrationId) };
}

/** A workspace key sees its workspace's servers; an organisation admin every workspace's, or the one it names. */
export async function listMcpServersFor(
  db: Db,
  principal: Principal,
  filter: ListMcpServersInput,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: McpServerListRow[] }> {
  const named = filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return { total: 0, rows: [] };
  const workspaceId = principal.keyType === 'workspace' ? principal.workspaceId : named;
  return listMcpServers(db, { organisationId: principal.organisationId, workspaceId, ids: filter.ids, search: filter.search }, page);
}
