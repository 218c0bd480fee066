/**
 * A server's connections (§3.16 > Connections): a connection is one user's own OAuth grant to the upstream. The
 * gateway runs no OAuth flow (auth_type oauth_auto is refused), so no server has any: the list is empty and a
 * delete has nothing to remove. Both still check the caller and the user named, so a client's flow works unchanged.
 */
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import type { McpServerRow } from '../../storage/repositories/mcp-servers.ts';
import { managedMcpServer, visibleMcpServer } from './access.ts';

export async function listConnections(db: Db, principal: Principal, idOrSlug: string): Promise<{ row: McpServerRow; total: number; data: never[] }> {
  const row = await visibleMcpServer(db, principal, idOrSlug);
  return { row, total: 0, data: [] };
}

/** A service key must name the user; a user key means its own user. */
export async function deleteConnection(db: Db, principal: Principal, idOrSlug: string, userId: string | undefined): Promise<McpServerRow> {
  if (userId === undefined && (principal.subType !== 'user' || principal.userId === null)) {
    throw invalidParam('user_id', 'user_id is required with a service key: whose connection to delete.');
  }
  if (userId !== undefined && userId !== principal.userId) return managedMcpServer(db, principal, idOrSlug, 'delete other users\' connections to');
  return visibleMcpServer(db, principal, idOrSlug);
}
