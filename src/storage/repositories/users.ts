import { and, eq } from 'drizzle-orm';
import type { OrgRole, WorkspaceRole } from '../../core/context.ts';
import type { Db } from '../database.ts';
import { users, workspaceMembers } from '../schema.ts';

export type UserRow = typeof users.$inferSelect;

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
