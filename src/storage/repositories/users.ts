import { and, asc, count, eq, ilike, inArray } from 'drizzle-orm';
import type { OrgRole, WorkspaceRole } from '../../core/context.ts';
import type { Db } from '../database.ts';
import { users, workspaceMembers } from '../schema.ts';

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;

/** A user's organisation role and role in one workspace (null when not a member); undefined when no such user. */
export async function userRoles(
  db: Db,
  userId: string,
  workspaceId: string,
): Promise<{ orgRole: OrgRole; workspaceRole: WorkspaceRole | null } | undefined> {
  const rows = await db
    .select({ orgRole: users.role, workspaceRole: workspaceMembers.role })
    .from(users)
    .leftJoin(workspaceMembers, and(eq(workspaceMembers.userId, users.id), eq(workspaceMembers.workspaceId, workspaceId)))
    .where(eq(users.id, userId))
    .limit(1);
  const row = rows[0];
  if (!row) return undefined;
  return { orgRole: row.orgRole as OrgRole, workspaceRole: (row.workspaceRole as WorkspaceRole | null) ?? null };
}

export interface UserListFilter {
  organisationId: string;
  role?: string | undefined;
  email?: string | undefined;
}

export async function listUsers(db: Db, filter: UserListFilter, page: { offset: number; limit: number }): Promise<{ total: number; rows: UserRow[] }> {
  const where = and(
    eq(users.organisationId, filter.organisationId),
    filter.role ? eq(users.role, filter.role) : undefined,
    filter.email ? ilike(users.email, `%${filter.email.replace(/[\\%_]/g, (char) => `\\${char}`)}%`) : undefined,
  );
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(users).where(where),
    db.select().from(users).where(where).orderBy(asc(users.createdAt), asc(users.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

export async function getUser(db: Db, organisationId: string, id: string): Promise<UserRow | undefined> {
  const rows = await db.select().from(users).where(and(eq(users.organisationId, organisationId), eq(users.id, id))).limit(1);
  return rows[0];
}

export async function findUserByEmail(db: Db, organisationId: string, email: string): Promise<UserRow | undefined> {
  const rows = await db.select().from(users).where(and(eq(users.organisationId, organisationId), eq(users.email, email))).limit(1);
  return rows[0];
}

/** The organisation's owner (at most one: the bootstrap creates it and the API can neither add nor remove one). */
export async function findOwner(db: Db, organisationId: string): Promise<UserRow | undefined> {
  const rows = await db
    .select()
    .from(users)
    .where(and(eq(users.organisationId, organisationId), eq(users.role, 'owner')))
    .orderBy(asc(users.createdAt), asc(users.id))
    .limit(1);
  return rows[0];
}

export async function insertUser(db: Db, values: NewUserRow): Promise<UserRow> {
  const rows = await db.insert(users).values(values).returning();
  return rows[0]!;
}

export async function setUserRole(db: Db, id: string, role: string, now: Date = new Date()): Promise<UserRow | undefined> {
  const rows = await db.update(users).set({ role, updatedAt: now }).where(eq(users.id, id)).returning();
  return rows[0];
}

export async function workspaceIdsOf(db: Db, userIds: readonly string[]): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return map;
  const rows = await db.select({ userId: workspaceMembers.userId, workspaceId: workspaceMembers.workspaceId }).from(workspaceMembers).where(inArray(workspaceMembers.userId, [...userIds]));
  for (const row of rows) map.get(row.userId)?.push(row.workspaceId);
  return map;
}
