/**
 * Removes a member from a workspace (organisation owners/admins and the workspace's managers). The user's
 * workspace/user API keys of that workspace are deleted with the membership: a user key acts with its user's
 * role in the workspace, and a key of a non-member would otherwise linger with no role at all.
 */
import type { Principal } from '../../core/context.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { deleteMember, deleteUserKeysOfWorkspace, getMember } from '../../storage/repositories/workspace-members.ts';
import type { WorkspaceRow } from '../../storage/repositories/workspaces.ts';
import { managedWorkspace } from './access.ts';

export interface RemovedMember {
  workspace: WorkspaceRow;
  /** ids of the user's API keys deleted with the membership */
  deletedKeyIds: string[];
}

export async function removeMember(db: Db, principal: Principal, idOrSlug: string, userId: string): Promise<RemovedMember> {
  const workspace = await managedWorkspace(db, principal, idOrSlug, 'remove members');
  const member = await getMember(db, workspace.id, userId);
  if (!member) throw notFound(`User "${userId}" is not a member of this workspace.`, 'member_not_found');
  // the calling key would be among the deleted ones; like an API key deleting itself, that takes someone else
  const callerKeyGoes = principal.kind === 'api_key' && principal.subType === 'user' && principal.userId === userId && principal.workspaceId === workspace.id;
  if (callerKeyGoes) throw badRequest('A user cannot remove themselves from a workspace; ask another manager or an organisation admin.', 'cannot_remove_self');
  const deletedKeyIds = await deleteUserKeysOfWorkspace(db, workspace.id, userId);
  await deleteMember(db, workspace.id, userId);
  return { workspace, deletedKeyIds };
}
