/**
 * Organisation users: list, read, change role, remove. Users are created by accepting an invite. The owner's
 * role cannot be changed nor the owner removed through the API; removing a user also removes their memberships
 * and their user API keys.
 */
import { and, eq } from 'drizzle-orm';
import { requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { getUser, type UserRow } from '../../storage/repositories/users.ts';
import { apiKeys, users } from '../../storage/schema.ts';

export async function findUserFor(db: Db, principal: Principal, id: string): Promise<UserRow> {
  requireAdminKey(principal, 'manage users');
  const user = await getUser(db, principal.organisationId, id);
  if (!user) throw notFound(`User "${id}" not found.`, 'user_not_found');
  return user;
}

export async function changeUserRole(db: Db, principal: Principal, id: string, role: 'admin' | 'member', now: Date): Promise<UserRow> {
  const user = await findUserFor(db, principal, id);
  if (user.role === 'owner') throw badRequest('The organisation owner\'s role cannot be changed.', 'owner_role_fixed', 'role');
  await db.update(users).set({ role, updatedAt: now }).where(eq(users.id, user.id));
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
