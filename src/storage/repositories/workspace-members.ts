import { and, asc, count, eq, inArray, notExists, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { apiKeys, users, workspaceMembers } from '../schema.ts';

/** A membership joined with its user: what the WorkspaceMember view needs. */
export interface MemberRow {
  workspaceId: string;
  userId: string;
  role: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  orgRole: string;
  createdAt: Date;
  updatedAt: Date;
}

const memberColumns = {
  workspaceId: workspaceMembers.workspaceId,
  userId: workspaceMembers.userId,
  role: workspaceMembers.role,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  orgRole: users.role,
  createdAt: workspaceMembers.createdAt,
  updatedAt: workspaceMembers.updatedAt,
};

/** Which of these ids are users of the organisation. */
export async function organisationUserIds(db: Db, organisationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.organisationId, organisationId), inArray(users.id, [...ids])));
  return new Set(rows.map((row) => row.id));
}

/** Which of these users are already members of the workspace. */
export async function existingMemberIds(db: Db, workspaceId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .select({ id: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.userId, [...userIds])));
  return new Set(rows.map((row) => row.id));
}

export async function insertMembers(db: Db, workspaceId: string, members: ReadonlyArray<{ userId: string; role: string }>): Promise<void> {
  if (members.length === 0) return;
  await db.insert(workspaceMembers).values(members.map((member) => ({ workspaceId, userId: member.userId, role: member.role })));
}

export interface MemberListFilter {
  role?: string | undefined;
  /** matched whole, ignoring case */
  email?: string | undefined;
}

export async function listMembers(
  db: Db,
  workspaceId: string,
  filter: MemberListFilter,
  page?: { offset: number; limit: number },
): Promise<{ total: number; rows: MemberRow[] }> {
  const conditions: SQL[] = [eq(workspaceMembers.workspaceId, workspaceId)];
  if (filter.role) conditions.push(eq(workspaceMembers.role, filter.role));
  if (filter.email) conditions.push(sql`lower(${users.email}) = lower(${filter.email})`);
  const where = and(...conditions);
  const base = db.select(memberColumns).from(workspaceMembers).innerJoin(users, eq(users.id, workspaceMembers.userId)).where(where);
  const ordered = base.orderBy(asc(workspaceMembers.createdAt), asc(workspaceMembers.userId));
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(workspaceMembers).innerJoin(users, eq(users.id, workspaceMembers.userId)).where(where),
    page ? ordered.offset(page.offset).limit(page.limit) : ordered,
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

export async function getMember(db: Db, workspaceId: string, userId: string): Promise<MemberRow | undefined> {
  const rows = await db
    .select(memberColumns)
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  return rows[0];
}

export async function updateMemberRole(db: Db, workspaceId: string, userId: string, role: string): Promise<void> {
  await db
    .update(workspaceMembers)
    .set({ role, updatedAt: new Date() })
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
}

export async function deleteMember(db: Db, workspaceId: string, userId: string): Promise<void> {
  await db.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
}

/** Deletes the user's workspace/user keys of this workspace; returns their ids. */
export async function deleteUserKeysOfWorkspace(db: Db, workspaceId: string, userId: string): Promise<string[]> {
  const rows = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.userId, userId), eq(apiKeys.type, 'workspace'), eq(apiKeys.subType, 'user')))
    .returning({ id: apiKeys.id });
  return rows.map((row) => row.id);
}

/**
 * Deletes the user's workspace/user keys of every workspace the user is not a member of (what an organisation
 * owner or admin may hold, and a member may not); returns their secrets' hashes.
 */
export async function deleteUserKeysOutsideMemberships(db: Db, userId: string): Promise<string[]> {
  const membership = db
    .select({ one: sql`1` })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, apiKeys.workspaceId), eq(workspaceMembers.userId, apiKeys.userId)));
  const rows = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.type, 'workspace'), eq(apiKeys.subType, 'user'), notExists(membership)))
    .returning({ keyHash: apiKeys.keyHash, previousKeyHash: apiKeys.previousKeyHash });
  return rows.flatMap((row) => (row.previousKeyHash ? [row.keyHash, row.previousKeyHash] : [row.keyHash]));
}
