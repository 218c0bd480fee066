/**
 * Per-user access to an MCP server (§3.16 > User Access): the workspace's members, each allowed or not by an entry
 * of their own or else by `default_user_access`. The gateway applies it to calls made with user keys (and JWTs);
 * service keys act for the workspace, not a user. `connection_status` is `not_connected` for everyone: a connection
 * is a user's own OAuth grant to the upstream, which the gateway does not hold (it sends the integration's headers).
 */
import type { Principal } from '../../core/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { getMember } from '../../storage/repositories/workspace-members.ts';
import { listMcpServerUsers, updateMcpServerRow, upsertMcpUserAccess, type McpServerRow, type McpUserAccessRow } from '../../storage/repositories/mcp-servers.ts';
import { managedMcpServer, visibleMcpServer } from './access.ts';
import type { UpdateUserAccessInput } from './inputs.ts';

export async function listUserAccess(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  search: string | undefined,
  page: { offset: number; limit: number },
): Promise<{ row: McpServerRow; total: number; users: McpUserAccessRow[] }> {
  const row = await visibleMcpServer(db, principal, idOrSlug);
  const { total, rows } = await listMcpServerUsers(db, row, search, page);
  return { row, total, users: rows };
}

export function userAccessView(server: McpServerRow, user: McpUserAccessRow) {
  return {
    user_id: user.userId,
    first_name: user.firstName,
    last_name: user.lastName,
    enabled: user.override ?? server.defaultUserAccess === 'allow',
    has_override: user.override !== null,
    connection_status: 'not_connected' as const,
  };
}

export async function updateUserAccess(db: Db, principal: Principal, idOrSlug: string, body: UpdateUserAccessInput): Promise<McpServerRow> {
  let row = await managedMcpServer(db, principal, idOrSlug, 'change who may use');
  for (const [index, entry] of (body.user_access ?? []).entries()) {
    if (!(await getMember(db, row.workspaceId, entry.user_id.toLowerCase()))) {
      throw new GatewayError(404, 'not_found_error', `User "${entry.user_id}" is not a member of this MCP server's workspace.`, {
        code: 'user_not_found',
        param: `user_access[${index}].user_id`,
      });
    }
    await upsertMcpUserAccess(db, row.id, entry.user_id.toLowerCase(), entry.enabled);
  }
  if (body.default_user_access !== undefined) row = (await updateMcpServerRow(db, row.id, { defaultUserAccess: body.default_user_access })) ?? row;
  return row;
}
