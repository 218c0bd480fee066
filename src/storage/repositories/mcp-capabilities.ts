/**
 * The capabilities an MCP integration's upstream listed at its last sync (each with the integration's enabled flag),
 * and each server's own switches over them. A sync replaces the list: new ones come in enabled, known ones keep
 * their flag, vanished ones go (with the servers' switches on them).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { mcpCapabilities, mcpServerCapabilities } from '../schema/mcp.ts';

export type McpCapabilityRow = typeof mcpCapabilities.$inferSelect;
export type McpCapabilityType = 'tool' | 'prompt' | 'resource' | 'resource_template';

export interface DiscoveredCapability {
  type: McpCapabilityType;
  name: string;
  title: string | null;
  description: string | null;
  definition: Record<string, unknown>;
}

export async function listMcpCapabilities(db: Db, integrationId: string, type?: McpCapabilityType): Promise<McpCapabilityRow[]> {
  const where = type === undefined ? eq(mcpCapabilities.integrationId, integrationId) : and(eq(mcpCapabilities.integrationId, integrationId), eq(mcpCapabilities.type, type));
  return db.select().from(mcpCapabilities).where(where).orderBy(asc(mcpCapabilities.type), asc(mcpCapabilities.name));
}

export async function replaceMcpCapabilities(db: Db, integrationId: string, found: readonly DiscoveredCapability[]): Promise<void> {
  const stored = await listMcpCapabilities(db, integrationId);
  const key = (type: string, name: string) => `${type}\u0000${name}`;
  const seen = new Set(found.map((capability) => key(capability.type, capability.name)));
  for (const gone of stored.filter((row) => !seen.has(key(row.type, row.name)))) {
    await db.delete(mcpCapabilities).where(and(eq(mcpCapabilities.integrationId, integrationId), eq(mcpCapabilities.type, gone.type), eq(mcpCapabilities.name, gone.name)));
    await db.execute(sql`delete from ${mcpServerCapabilities} where ${mcpServerCapabilities.type} = ${gone.type} and ${mcpServerCapabilities.name} = ${gone.name}
      and ${mcpServerCapabilities.serverId} in (select id from mcp_servers where mcp_integration_id = ${integrationId})`);
  }
  for (const capability of found) {
    const values = { integrationId, ...capability };
    await db
      .insert(mcpCapabilities)
      .values(values)
      .onConflictDoUpdate({
        target: [mcpCapabilities.integrationId, mcpCapabilities.type, mcpCapabilities.name],
        set: { title: capability.title, description: capability.description, definition: capability.definition, updatedAt: new Date() },
      });
  }
}

/** Sets the integration's flag on each named capability (the caller checked that each exists). */
export async function setMcpCapabilitiesEnabled(
  db: Db,
  integrationId: string,
  changes: ReadonlyArray<{ type: string; name: string; enabled: boolean }>,
): Promise<void> {
  for (const change of changes) {
    await db
      .update(mcpCapabilities)
      .set({ enabled: change.enabled, updatedAt: new Date() })
      .where(and(eq(mcpCapabilities.integrationId, integrationId), eq(mcpCapabilities.type, change.type), eq(mcpCapabilities.name, change.name)));
  }
}

// ---- a server's switches ----

export type McpServerCapabilityRow = typeof mcpServerCapabilities.$inferSelect;

export async function listServerCapabilitySwitches(db: Db, serverId: string): Promise<McpServerCapabilityRow[]> {
  return db.select().from(mcpServerCapabilities).where(eq(mcpServerCapabilities.serverId, serverId));
}

export async function upsertServerCapabilitySwitches(
  db: Db,
  serverId: string,
  changes: ReadonlyArray<{ type: string; name: string; enabled: boolean }>,
): Promise<void> {
  for (const change of changes) {
    await db
      .insert(mcpServerCapabilities)
      .values({ serverId, ...change })
      .onConflictDoUpdate({
        target: [mcpServerCapabilities.serverId, mcpServerCapabilities.type, mcpServerCapabilities.name],
        set: { enabled: change.enabled, updatedAt: new Date() },
      });
  }
}
