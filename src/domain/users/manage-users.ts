/**
 * Organisation users: list, read, change role, remove (admin keys of owners and admins). Users are created by
 * accepting an invite; the owner by the bootstrap. The owner's role cannot be changed nor the owner removed
 * through the API; removing a user also removes their memberships and their user API keys.
 */
import { and, eq } from 'drizzle-orm';
import { requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { getUser, listUsers, setUserRole, workspaceIdsOf, type UserRow } from '../../storage/repositories/users.ts';
import { deleteUserKeysOutsideMemberships } from '../../storage/repositories/workspace-members.ts';
import { apiKeys, users } from '../../storage/schema.ts';
import type { ListUsersInput, UpdateUserInput } from './inputs.ts';

/** A user with the ids of the workspaces they are a member of: what the User view shows. */
export interface UserWithWorkspaces {
  user: UserRow;
  workspaceIds: string[];
}

export async function listUsersFor(db: Db, principal: Principal, filter: ListUsersInput, page: { offset: number; limit: number }) {
  requireAdminKey(principal, 'list users');
  const { total, rows } = await listUsers(db, { organisationId: principal.organisationId, ...filter }, page);
  const workspaces = await workspaceIdsOf(db, rows.map((row) => row.id));
  const users: UserWithWorkspaces[] = rows.map((user) => ({ user, workspaceIds: workspaces.get(user.id) ?? [] }));
  return { total, users };
}

export async function findUserFor(db: Db, principal: Principal, id: string): Promise<UserRow> {
  requireAdminKey(principal, 'manage users');
  const user = await getUser(db, principal.organisationId, id);
  if (!user) throw notFound(`User "${id}" not found.`, 'user_not_found');
  return user;
}

export async function readUser(db: Db, principal: Principal, id: string): Promise<UserWithWorkspaces> {
  const user = await findUserFor(db, principal, id);
  const workspaces = await workspaceIdsOf(db, [user.id]);
  return { user, workspaceIds: workspaces.get(user.id) ?? [] };
}

/**
 * An owner or admin reaches every workspace, and may hold user keys of workspaces they are no member of; made a
 * member, they keep only the keys of their memberships (the others are deleted, as when a member is removed).
 */
export async function changeUserRole(db: Db, principal: Principal, id: string, input: UpdateUserInput, now: Date): Promise<UserRow> {
  const user = await findUserFor(db, principal, id);
  if (user.role === 'owner') throw badRequest('The organisation owner\'s role cannot be changed.', 'owner_role_fixed', 'role');
  await setUserRole(db, user.id, input.role, now);
  if (input.role === 'member') await deleteUserKeysOutsideMemberships(db, user.id);
  return user;
}

/** Returns the hashes of the removed user keys, for cache invalidation. */
export async function removeUser(db: Db, principal: Principal, id: string): Promise<{ user: UserRow; keyHashes: string[] }> {
  const user = await findUserFor(db, principal, id);
  if (user.role === 'owner') throw badRequest('The organisation owner cannot be removed.', 'owner_cannot_be_removed');
  const removedKeys = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.userId, user.id), eq(apiKeys.subType, 'user')))
    .returning({ keyHash: apiKeys.keyHash, previousKeyHash: apiKeys.previousKeyHash });
  await db.delete(users).where(eq(users.id, user.id));
  const keyHashes = removedKeys.flatMap((key) => (key.previousKeyHash ? [key.keyHash, key.previousKeyHash] : [key.keyHash]));
  return { user, keyHashes };
}
