/**
 * What the user and invite use cases take, with the admin API's field names (the transport's schemas are checked
 * against these types at compile time, in src/http/admin/users/schemas.ts).
 */
import type { OrgRole, WorkspaceRole } from '../../core/context.ts';
import type { InviteStatus } from '../../storage/repositories/invites.ts';

/** The owner is made by the bootstrap only: invites and role changes give admin or member. */
export type GrantableRole = Exclude<OrgRole, 'owner'>;

export interface CreateInviteInput {
  email: string;
  role: GrantableRole;
  /** workspace ids or slugs */
  workspaces: ReadonlyArray<{ id: string; role: WorkspaceRole }>;
  /** when given, accepting makes one workspace user key per workspace with these scopes */
  workspace_api_key_details?: { scopes: readonly string[] };
}

export interface AcceptInviteInput {
  token: string;
  first_name?: string | undefined;
  last_name?: string | undefined;
}

export interface UpdateUserInput {
  role: GrantableRole;
}

export interface ListUsersInput {
  role?: OrgRole | undefined;
  email?: string | undefined;
}

export interface ListInvitesInput {
  role?: GrantableRole | undefined;
  email?: string | undefined;
  status?: InviteStatus | undefined;
}
