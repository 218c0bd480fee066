/**
 * SCIM groups, their workspace mappings, and the memberships those mappings granted. Only active mappings are
 * found, listed or matched; an archived one is kept for the record.
 */
import { and, asc, count, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { workspaceMembers } from '../schema.ts';
import { scimGroups, scimMembershipGrants, scimWorkspaceGroups } from '../schema/scim.ts';

export type ScimGroupRow = typeof scimGroups.$inferSelect;
export type ScimMappingRow = typeof scimWorkspaceGroups.$inferSelect;

/** A mapping with its group's display name: what the admin API shows. */
export interface ScimMappingWithGroup extends ScimMappingRow {
  groupName: string;
}

const ACTIVE = eq(scimWorkspaceGroups.status, 'active');
const withGroup = { mapping: scimWorkspaceGroups, groupName: scimGroups.displayName };

export async function findScimGroup(db: Db, organisationId: string, id: string): Promise<ScimGroupRow | undefined> {
  const rows = await db.select().from(scimGroups).where(and(eq(scimGroups.organisationId, organisationId), eq(scimGroups.id, id))).limit(1);
  return rows[0];
}

/** The group of this display name, created when there is none (a concurrent create of the same name is reused). */
export async function ensureScimGroup(db: Db, organisationId: string, displayName: string): Promise<ScimGroupRow> {
  const byName = and(eq(scimGroups.organisationId, organisationId), eq(scimGroups.displayName, displayName));
  const inserted = await db.insert(scimGroups).values({ organisationId, displayName }).onConflictDoNothing().returning();
  if (inserted[0]) return inserted[0];
  const rows = await db.select().from(scimGroups).where(byName).limit(1);
  return rows[0]!;
}

export async function activeMappingExists(db: Db, workspaceId: string, scimGroupId: string): Promise<boolean> {
  const rows = await db
    .select({ id: scimWorkspaceGroups.id })
    .from(scimWorkspaceGroups)
    .where(and(eq(scimWorkspaceGroups.workspaceId, workspaceId), eq(scimWorkspaceGroups.scimGroupId, scimGroupId), ACTIVE))
    .limit(1);
  return rows.length > 0;
}

export async function insertMapping(db: Db, values: typeof scimWorkspaceGroups.$inferInsert): Promise<ScimMappingRow> {
  const rows = await db.insert(scimWorkspaceGroups).values(values).returning();
  return rows[0]!;
}

export async function findActiveMapping(db: Db, organisationId: string, id: string): Promise<ScimMappingWithGroup | undefined> {
  const rows = await db
    .select(withGroup)
    .from(scimWorkspaceGroups)
    .innerJoin(scimGroups, eq(scimGroups.id, scimWorkspaceGroups.scimGroupId))
    .where(and(eq(scimWorkspaceGroups.organisationId, organisationId), eq(scimWorkspaceGroups.id, id), ACTIVE))
    .limit(1);
  return rows[0] ? { ...rows[0].mapping, groupName: rows[0].groupName } : undefined;
}

export interface ScimMappingFilter {
  organisationId: string;
  workspaceId?: string | undefined;
  scimGroupId?: string | undefined;
  role?: string | undefined;
}

export async function listMappings(
  db: Db,
  filter: ScimMappingFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: ScimMappingWithGroup[] }> {
  const conditions: SQL[] = [eq(scimWorkspaceGroups.organisationId, filter.organisationId), ACTIVE];
  if (filter.workspaceId) conditions.push(eq(scimWorkspaceGroups.workspaceId, filter.workspaceId));
  if (filter.scimGroupId) conditions.push(eq(scimWorkspaceGroups.scimGroupId, filter.scimGroupId));
  if (filter.role) conditions.push(eq(scimWorkspaceGroups.role, filter.role));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(scimWorkspaceGroups).where(where),
    db
      .select(withGroup)
      .from(scimWorkspaceGroups)
      .innerJoin(scimGroups, eq(scimGroups.id, scimWorkspaceGroups.scimGroupId))
      .where(where)
      .orderBy(asc(scimWorkspaceGroups.createdAt), asc(scimWorkspaceGroups.id))
      .offset(page.offset)
      .limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows: rows.map((row) => ({ ...row.mapping, groupName: row.groupName })) };
}

/** Archives an active mapping; undefined when it is gone (archived concurrently). */
export async function archiveMappingRow(db: Db, id: string): Promise<ScimMappingRow | undefined> {
  const rows = await db
    .update(scimWorkspaceGroups)
    .set({ status: 'archived', updatedAt: new Date() })
    .where(and(eq(scimWorkspaceGroups.id, id), ACTIVE))
    .returning();
  return rows[0];
}

/** A mapping as sign-in applies it. */
export interface MappingGrant {
  mappingId: string;
  workspaceId: string;
  role: string;
}

/** The active mappings of the groups named (each by the gateway's id, the identity provider's id or the display name). */
export async function mappingsOfGroups(db: Db, organisationId: string, groups: readonly string[]): Promise<MappingGrant[]> {
  if (groups.length === 0) return [];
  const ids = groups.filter(isUuid).map((id) => id.toLowerCase());
  const names = [...groups];
  const matches: SQL[] = [inArray(scimGroups.displayName, names), inArray(scimGroups.externalId, names)];
  if (ids.length > 0) matches.push(inArray(scimGroups.id, ids));
  return db
    .selectDistinct({ mappingId: scimWorkspaceGroups.id, workspaceId: scimWorkspaceGroups.workspaceId, role: scimWorkspaceGroups.role })
    .from(scimWorkspaceGroups)
    .innerJoin(scimGroups, eq(scimGroups.id, scimWorkspaceGroups.scimGroupId))
    .where(and(eq(scimWorkspaceGroups.organisationId, organisationId), ACTIVE, or(...matches)));
}

/** The user's grants, optionally of one workspace only, each with its mapping's role. */
export async function grantsOfUser(db: Db, userId: string, workspaceId?: string): Promise<MappingGrant[]> {
  const conditions: SQL[] = [eq(scimMembershipGrants.userId, userId)];
  if (workspaceId) conditions.push(eq(scimMembershipGrants.workspaceId, workspaceId));
  return db
    .select({ mappingId: scimMembershipGrants.scimWorkspaceGroupId, workspaceId: scimMembershipGrants.workspaceId, role: scimWorkspaceGroups.role })
    .from(scimMembershipGrants)
    .innerJoin(scimWorkspaceGroups, eq(scimWorkspaceGroups.id, scimMembershipGrants.scimWorkspaceGroupId))
    .where(and(...conditions));
}

export async function insertGrants(db: Db, userId: string, grants: readonly MappingGrant[]): Promise<void> {
  if (grants.length === 0) return;
  const values = grants.map((grant) => ({ scimWorkspaceGroupId: grant.mappingId, userId, workspaceId: grant.workspaceId }));
  await db.insert(scimMembershipGrants).values(values).onConflictDoNothing();
}

export async function deleteGrantsOfUser(db: Db, userId: string, mappingIds: readonly string[]): Promise<void> {
  if (mappingIds.length === 0) return;
  await db
    .delete(scimMembershipGrants)
    .where(and(eq(scimMembershipGrants.userId, userId), inArray(scimMembershipGrants.scimWorkspaceGroupId, [...mappingIds])));
}

/** Deletes every grant of the mapping; returns the users who held one. */
export async function deleteGrantsOfMapping(db: Db, mappingId: string): Promise<string[]> {
  const rows = await db
    .delete(scimMembershipGrants)
    .where(eq(scimMembershipGrants.scimWorkspaceGroupId, mappingId))
    .returning({ userId: scimMembershipGrants.userId });
  return rows.map((row) => row.userId);
}

export async function membershipRole(db: Db, workspaceId: string, userId: string): Promise<string | undefined> {
  const rows = await db
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  return rows[0]?.role;
}

/** Inserts the membership, or sets its role when a concurrent sign-in inserted it first. */
export async function upsertMembership(db: Db, workspaceId: string, userId: string, role: string): Promise<void> {
  await db
    .insert(workspaceMembers)
    .values({ workspaceId, userId, role })
    .onConflictDoUpdate({ target: [workspaceMembers.workspaceId, workspaceMembers.userId], set: { role, updatedAt: sql`now()` } });
}
