/**
 * MCP integration rows, the workspaces that may use them, and what the last sync learnt of the upstream. An
 * organisation integration is usable by workspace W when W has an enabled access row, or global access is on and W
 * has no row turning it off; a workspace integration by its own workspace only.
 */
import { and, asc, count, eq, ilike, inArray, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { mcpIntegrations, mcpIntegrationWorkspaces, mcpServers } from '../schema/mcp.ts';

export type McpIntegrationRow = typeof mcpIntegrations.$inferSelect;
export type NewMcpIntegrationRow = typeof mcpIntegrations.$inferInsert;
export type McpIntegrationWorkspaceRow = typeof mcpIntegrationWorkspaces.$inferSelect;

const ACTIVE = eq(mcpIntegrations.status, 'active');

export async function findMcpIntegration(db: Db, organisationId: string, idOrSlug: string): Promise<McpIntegrationRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(mcpIntegrations.id, idOrSlug.toLowerCase()) : eq(mcpIntegrations.slug, idOrSlug);
  const rows = await db.select().from(mcpIntegrations).where(and(eq(mcpIntegrations.organisationId, organisationId), ACTIVE, match)).limit(1);
  return rows[0];
}

export async function mcpIntegrationSlugTaken(db: Db, organisationId: string, slug: string): Promise<boolean> {
  const rows = await db
    .select({ id: mcpIntegrations.id })
    .from(mcpIntegrations)
    .where(and(eq(mcpIntegrations.organisationId, organisationId), eq(mcpIntegrations.slug, slug)))
    .limit(1);
  return rows.length > 0;
}

export async function insertMcpIntegration(db: Db, values: NewMcpIntegrationRow): Promise<McpIntegrationRow> {
  const rows = await db.insert(mcpIntegrations).values(values).returning();
  return rows[0]!;
}

export async function updateMcpIntegrationRow(db: Db, id: string, values: Partial<NewMcpIntegrationRow>): Promise<McpIntegrationRow | undefined> {
  const rows = await db.update(mcpIntegrations).set({ ...values, updatedAt: new Date() }).where(eq(mcpIntegrations.id, id)).returning();
  return rows[0];
}

/** Its servers, capabilities and workspace rows go with it (foreign keys cascade). */
export async function deleteMcpIntegrationRow(db: Db, id: string): Promise<void> {
  await db.delete(mcpIntegrations).where(eq(mcpIntegrations.id, id));
}

function enabledFor(workspaceId: string): SQL {
  const row = (enabled: boolean) => sql`exists (select 1 from ${mcpIntegrationWorkspaces} where ${mcpIntegrationWorkspaces.integrationId} = ${mcpIntegrations.id}
    and ${mcpIntegrationWorkspaces.workspaceId} = ${workspaceId} and ${mcpIntegrationWorkspaces.enabled} = ${enabled})`;
  const global = sql`coalesce((${mcpIntegrations.globalWorkspaceAccess} ->> 'enabled') = 'true', false)`;
  return sql`(${row(true)} or (${global} and not ${row(false)}))`;
}

/** Whether the integration may be used by the workspace (its own, or an organisation one enabled for it). */
export async function mcpIntegrationUsableBy(db: Db, id: string, workspaceId: string): Promise<boolean> {
  const usable = or(eq(mcpIntegrations.workspaceId, workspaceId), and(isNull(mcpIntegrations.workspaceId), enabledFor(workspaceId)));
  const rows = await db.select({ id: mcpIntegrations.id }).from(mcpIntegrations).where(and(eq(mcpIntegrations.id, id), usable)).limit(1);
  return rows.length > 0;
}

export interface McpIntegrationListFilter {
  organisationId: string;
  kind?: 'organisation' | 'workspace' | undefined;
  usableBy?: string | undefined;
  /** part of the name or slug, any case */
  search?: string | undefined;
}

export async function listMcpIntegrations(
  db: Db,
  filter: McpIntegrationListFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: McpIntegrationRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(mcpIntegrations.organisationId, filter.organisationId), ACTIVE];
  if (filter.kind === 'organisation') conditions.push(isNull(mcpIntegrations.workspaceId));
  if (filter.kind === 'workspace') conditions.push(isNotNull(mcpIntegrations.workspaceId));
  if (filter.usableBy) {
    conditions.push(or(eq(mcpIntegrations.workspaceId, filter.usableBy), and(isNull(mcpIntegrations.workspaceId), enabledFor(filter.usableBy))));
  }
  if (filter.search) {
    const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(or(ilike(mcpIntegrations.name, pattern), ilike(mcpIntegrations.slug, pattern)));
  }
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(mcpIntegrations).where(where),
    db.select().from(mcpIntegrations).where(where).orderBy(asc(mcpIntegrations.createdAt), asc(mcpIntegrations.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** How many servers each integration has (the list's `workspaces_count` counts workspaces using it through a server). */
export async function serverWorkspaceCounts(db: Db, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: mcpServers.integrationId, value: sql<number>`count(distinct ${mcpServers.workspaceId})::int` })
    .from(mcpServers)
    .where(inArray(mcpServers.integrationId, [...ids]))
    .groupBy(mcpServers.integrationId);
  return new Map(rows.map((row) => [row.id, Number(row.value)]));
}

// ---- workspace access ----

export async function listMcpIntegrationWorkspaces(db: Db, integrationId: string): Promise<McpIntegrationWorkspaceRow[]> {
  return db
    .select()
    .from(mcpIntegrationWorkspaces)
    .where(eq(mcpIntegrationWorkspaces.integrationId, integrationId))
    .orderBy(asc(mcpIntegrationWorkspaces.createdAt), asc(mcpIntegrationWorkspaces.workspaceId));
}

export async function upsertMcpIntegrationWorkspace(db: Db, row: { integrationId: string; workspaceId: string; enabled: boolean }): Promise<void> {
  await db
    .insert(mcpIntegrationWorkspaces)
    .values(row)
    .onConflictDoUpdate({ target: [mcpIntegrationWorkspaces.integrationId, mcpIntegrationWorkspaces.workspaceId], set: { enabled: row.enabled, updatedAt: new Date() } });
}

export async function clearMcpIntegrationWorkspaces(db: Db, integrationId: string): Promise<void> {
  await db.delete(mcpIntegrationWorkspaces).where(eq(mcpIntegrationWorkspaces.integrationId, integrationId));
}
