/**
 * Adds users of the organisation to a workspace, all or nothing: an unknown user is a 404 and an existing member
 * a 409, both naming the entry, and then nobody is added. No cache to drop: a user's keys of this workspace
 * can only exist while the user is a member, so no cached credential depends on a membership that is new.
 */
import type { Principal } from '../../core/context.ts';
import { conflict, GatewayError } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { existingMemberIds, insertMembers, organisationUserIds } from '../../storage/repositories/workspace-members.ts';
import { isUniqueViolation, type WorkspaceRow } from '../../storage/repositories/workspaces.ts';
import { managedWorkspace } from './access.ts';
import type { AddMembersInput } from './inputs.ts';

export async function addMembers(db: Db, principal: Principal, idOrSlug: string, body: AddMembersInput): Promise<WorkspaceRow> {
  const workspace = await managedWorkspace(db, principal, idOrSlug, 'add members');
  const entries = body.users.map((user) => ({ userId: user.id.toLowerCase(), role: user.role }));
  const ids = entries.map((entry) => entry.userId);
  const known = await organisationUserIds(db, principal.organisationId, ids);
  const unknown = ids.findIndex((id) => !known.has(id));
  if (unknown >= 0) {
    throw new GatewayError(404, 'not_found_error', `User "${ids[unknown]}" not found.`, { code: 'user_not_found', param: `users[${unknown}].id` });
  }
  const members = await existingMemberIds(db, workspace.id, ids);
  const already = ids.findIndex((id) => members.has(id));
  if (already >= 0) {
    const message = `User "${ids[already]}" is already a member of this workspace.`;
    throw new GatewayError(409, 'conflict_error', message, { code: 'already_a_member', param: `users[${already}].id` });
  }
  try {
    await insertMembers(db, workspace.id, entries);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('One of these users became a member concurrently; retry.', 'already_a_member');
    throw error;
  }
  return workspace;
}
