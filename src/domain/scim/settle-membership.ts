/**
 * A SCIM membership follows its grants: the highest role among the user's remaining grants in the workspace, and
 * no membership once none is left. Its user keys of the workspace go with it, as when an admin removes a member
 * (src/domain/workspaces/remove-member.ts): a user key acts with its user's role there.
 */
import type { WorkspaceRole } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { grantsOfUser, membershipRole, upsertMembership } from '../../storage/repositories/scim.ts';
import { deleteMember, deleteUserKeysOfWorkspace } from '../../storage/repositories/workspace-members.ts';
import { highestRole } from './roles.ts';

export interface MembershipChange {
  workspaceId: string;
  /** the role now held; null: the membership was removed */
  role: WorkspaceRole | null;
  /** ids of the user's API keys deleted with a removed membership */
  deletedKeyIds: string[];
}

export async function settleScimMembership(db: Db, workspaceId: string, userId: string): Promise<MembershipChange> {
  const role = highestRole((await grantsOfUser(db, userId, workspaceId)).map((grant) => grant.role));
  const current = await membershipRole(db, workspaceId, userId);
  if (role === undefined) {
    if (current === undefined) return { workspaceId, role: null, deletedKeyIds: [] };
    const deletedKeyIds = await deleteUserKeysOfWorkspace(db, workspaceId, userId);
    await deleteMember(db, workspaceId, userId);
    return { workspaceId, role: null, deletedKeyIds };
  }
  if (current !== role) await upsertMembership(db, workspaceId, userId, role);
  return { workspaceId, role, deletedKeyIds: [] };
}
