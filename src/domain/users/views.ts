import type { InviteRow, InviteStatus } from '../../storage/repositories/invites.ts';
import type { UserRow } from '../../storage/repositories/users.ts';

export function userView(row: UserRow, workspaceIds: readonly string[]) {
  return {
    object: 'user' as const,
    id: row.id,
    first_name: row.firstName,
    last_name: row.lastName,
    role: row.role,
    email: row.email,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    workspace_ids: workspaceIds,
  };
}

export function inviteView(row: InviteRow, status: InviteStatus) {
  return {
    object: 'invite' as const,
    id: row.id,
    email: row.email,
    role: row.role,
    workspaces: row.workspaces,
    workspace_api_key_details: row.workspaceApiKeyDetails,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    accepted_at: row.acceptedAt?.toISOString() ?? null,
    status,
    invited_by: row.invitedBy,
  };
}
