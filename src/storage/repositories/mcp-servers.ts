/** MCP server rows (an integration's use in one workspace) and their per-user access. */
import { and, asc, count, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { users, workspaceMembers, workspaces } from '../schema.ts';
import { mcpIntegrations, mcpServers, mcpServerUserAccess } from '../schema/mcp.ts';

export type McpServerRow = typeof mcpServers.$inferSelect;
export type NewMcpServerRow = typeof mcpServers.$inferInsert;

export async function findMcpServer(db: Db, organisationId: string, idOrSlug: string): Promise<McpServerRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(mcpServers.id, idOrSlug.toLowerCase()) : eq(mcpServers.slug, idOrSlug);
  const rows = await db.select().from(mcpServers).where(and(eq(mcpServers.organisationId, organisationId), match)).limit(1);
  return rows[0];
}

export async function mcpServerSlugTaken(db: Db, organisationId: string, slug: string): Promise<boolean> {
  const rows = await db.select({ id: mcpServers.id }).from(mcpServers).where(and(eq(mcpServers.organisationId, organisationId), eq(mcpServers.slug, slug))).limit(1);
  return rows.length > 0;
}

export async function insertMcpServer(db: Db, values: NewMcpServerRow): Promise<McpServerRow> {
  const rows = await db.insert(mcpServers).values(values).returning();
  return rows[0]!;
}

export async function updateMcpServerRow(db: Db, id: string, values: Partial<NewMcpServerRow>): Promise<McpServerRow | undefined> {
  const rows = await db.update(mcpServers).set({ ...values, updatedAt: new Date() }).where(eq(mcpServers.id, id)).returning();
  return rows[0];
}

export async function deleteMcpServerRow(db: Db, id: string): Promise<void> {
  await db.delete(mcpServers).where(eq(mcpServers.id, id));
}

/** A server with what its list item shows of its integration and workspace. */
export interface McpServerListRow {
  server: McpServerRow;
  integrationSlug: string;
  integrationUrl: string;
  authType: string;
  workspaceName: string;
  workspaceSlug: string;
}

export interface McpServerListFilter {
  organisationId: string;
  workspaceId?: string | undefined;
  ids?: readonly string[] | undefined;
  search?: string | undefined;
}

export async function listMcpServers(db: Db, filter: McpServerListFilter, page: { offset: number; limit: number }): Promise<{ total: number; rows: McpServerListRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(mcpServers.organisationId, filter.organisationId)];
  if (filter.workspaceId) conditions.push(eq(mcpServers.workspaceId, filter.workspaceId));
  if (filter.ids) conditions.push(inArray(mcpServers.id, [...filter.ids]));
  if (filter.search) {
    const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(or(ilike(mcpServers.name, pattern), ilike(mcpServers.slug, pattern)));
  }
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(mcpServers).where(where),
    db
      .select({
        server: mcpServers,
        integrationSlug: mcpIntegrations.slug,
        integrationUrl: mcpIntegrations.url,
        authType: mcpIntegrations.authType,
        workspaceName: workspaces.name,
        workspaceSlug: workspaces.slug,
      })
      .from(mcpServers)
      .innerJoin(mcpIntegrations, eq(mcpIntegrations.id, mcpServers.integrationId))
      .innerJoin(workspaces, eq(workspaces.id, mcpServers.workspaceId))
      .where(where)
      .orderBy(asc(mcpServers.createdAt), asc(mcpServers.id))
      .offset(page.offset)
      .limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

// ---- user access ----

export interface McpUserAccessRow {
  userId: string;
  firstName: string | null;
  lastName: string | null;
  /** the server's own entry for the user; null: the default applies */
  override: boolean | null;
}

/** The workspace's members with the server's entry for each, filtered by name or email. */
export async function listMcpServerUsers(
  db: Db,
  server: McpServerRow,
  search: string | undefined,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: McpUserAccessRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(workspaceMembers.workspaceId, server.workspaceId)];
  if (search) {
    const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(or(ilike(users.email, pattern), ilike(users.firstName, pattern), ilike(users.lastName, pattern)));
  }
  const where = and(...conditions);
  const joined = sql`${mcpServerUserAccess.serverId} = ${server.id} and ${mcpServerUserAccess.userId} = ${users.id}`;
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(workspaceMembers).innerJoin(users, eq(users.id, workspaceMembers.userId)).where(where),
    db
      .select({ userId: users.id, firstName: users.firstName, lastName: users.lastName, override: mcpServerUserAccess.enabled })
      .from(workspaceMembers)
      .innerJoin(users, eq(users.id, workspaceMembers.userId))
      .leftJoin(mcpServerUserAccess, joined)
      .where(where)
      .orderBy(asc(workspaceMembers.createdAt), asc(users.id))
      .offset(page.offset)
      .limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

export async function mcpUserOverride(db: Db, serverId: string, userId: string): Promise<boolean | undefined> {
  const rows = await db
    .select({ enabled: mcpServerUserAccess.enabled })
    .from(mcpServerUserAccess)
    .where(and(eq(mcpServerUserAccess.serverId, serverId), eq(mcpServerUserAccess.userId, userId)))
    .limit(1);
  return rows[0]?.enabled;
}

export async function upsertMcpUserAccess(db: Db, serverId: string, userId: string, enabled: boolean): Promise<void> {
  await db
    .insert(mcpServerUserAccess)
    .values({ serverId, userId, enabled })
    .onConflictDoUpdate({ target: [mcpServerUserAccess.serverId, mcpServerUserAccess.userId], set: { enabled, updatedAt: new Date() } });
}
