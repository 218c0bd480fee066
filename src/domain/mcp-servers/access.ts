/**
 * Who sees and who changes an MCP server: it belongs to one workspace, so whoever may access that workspace sees it
 * (anyone else gets a 404), and the workspace's managers (service keys, managers, organisation admins) change it.
 */
import { canAccessWorkspace, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findMcpServer, type McpServerRow } from '../../storage/repositories/mcp-servers.ts';

const ID_OR_SLUG = /^[a-zA-Z0-9_-]{1,255}$/;

/** `{mcpServerId}` path parameter: the server's UUID or slug. */
export function mcpServerParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.mcpServerId;
  if (typeof value !== 'string' || !ID_OR_SLUG.test(value)) throw invalidParam('mcpServerId', 'mcpServerId must be an MCP server UUID or slug.');
  return value;
}

export const mcpServerNotFound = (idOrSlug: string) => notFound(`MCP server "${idOrSlug}" not found.`, 'mcp_server_not_found');

export async function visibleMcpServer(db: Db, principal: Principal, idOrSlug: string): Promise<McpServerRow> {
  const row = await findMcpServer(db, principal.organisationId, idOrSlug);
  if (!row || row.status !== 'active' || !canAccessWorkspace(principal, row.workspaceId)) throw mcpServerNotFound(idOrSlug);
  return row;
}

export async function managedMcpServer(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<McpServerRow> {
  const row = await visibleMcpServer(db, principal, idOrSlug);
  requireWorkspaceManager(principal, row.workspaceId, `${what} its MCP servers`);
  return row;
}
