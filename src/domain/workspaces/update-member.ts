/** Changes a member's role in a workspace (organisation owners/admins and the workspace's managers). */
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { getMember, updateMemberRole, type MemberRow } from '../../storage/repositories/workspace-members.ts';
import type { WorkspaceRow } from '../../storage/repositories/workspaces.ts';
import { managedWorkspace } from './access.ts';
import type { UpdateMemberInput } from './inputs.ts';

export async function updateMember(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  userId: string,
  body: UpdateMemberInput,
): Promise<{ workspace: WorkspaceRow; member: MemberRow }> {
  const workspace = await managedWorkspace(db, principal, idOrSlug, 'change member roles');
  const member = await getMember(db, workspace.id, userId);
  if (!member) throw notFound(`User "${userId}" is not a member of this workspace.`, 'member_not_found');
  await updateMemberRole(db, workspace.id, userId, body.role);
  return { workspace, member };
}
