/**
 * Integration rows (the credential vault), their models and their workspace access; and the one write this group
 * makes to `providers`: the default provider an integration creates. Only active integrations are found, listed or
 * changed; an archived one is kept for the record. Reads for the request path live with the providers group.
 */
import { and, asc, count, eq, inArray, isNotNull, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { integrationModels, integrations, integrationWorkspaces, providers, workspaces } from '../schema.ts';

export type IntegrationRow = typeof integrations.$inferSelect;
export type NewIntegrationRow = typeof integrations.$inferInsert;
export type IntegrationModelRow = typeof integrationModels.$inferSelect;
export type NewIntegrationModelRow = typeof integrationModels.$inferInsert;
export type IntegrationWorkspaceRow = typeof integrationWorkspaces.$inferSelect;
export type NewIntegrationWorkspaceRow = typeof integrationWorkspaces.$inferInsert;
export type NewProviderRow = typeof providers.$inferInsert;

const ACTIVE = eq(integrations.status, 'active');

/** An active integration of the organisation by id or slug. */
export async function findIntegration(db: Db, organisationId: string, idOrSlug: string): Promise<IntegrationRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(integrations.id, idOrSlug.toLowerCase()) : eq(integrations.slug, idOrSlug);
  const rows = await db.select().from(integrations).where(and(eq(integrations.organisationId, organisationId), ACTIVE, match)).limit(1);
  return rows[0];
}

export async function integrationSlugTaken(db: Db, organisationId: string, slug: string): Promise<boolean> {
  const rows = await db
    .select({ id: integrations.id })
    .from(integrations)
    .where(and(eq(integrations.organisationId, organisationId), ACTIVE, eq(integrations.slug, slug)))
    .limit(1);
  return rows.length > 0;
}

export async function insertIntegration(db: Db, values: NewIntegrationRow): Promise<IntegrationRow> {
  const rows = await db.insert(integrations).values(values).returning();
  return rows[0]!;
}

/** Changes an active integration; undefined when it is gone (archived concurrently). */
export async function updateIntegrationRow(db: Db, id: string, values: Partial<NewIntegrationRow>): Promise<IntegrationRow | undefined> {
  const rows = await db
    .update(integrations)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(integrations.id, id), ACTIVE))
    .returning();
  return rows[0];
}

/**
 * An organisation integration is usable by workspace W when W has an enabled access row, or when global access is
 * on and W has no row turning it off. (A workspace integration is usable by its own workspace only.)
 */
function enabledFor(workspaceId: string): SQL {
  const row = (enabled: boolean) => sql`exists (select 1 from ${integrationWorkspaces} where ${integrationWorkspaces.integrationId} = ${integrations.id}
    and ${integrationWorkspaces.workspaceId} = ${workspaceId} and ${integrationWorkspaces.enabled} = ${enabled})`;
  const global = sql`coalesce((${integrations.globalWorkspaceAccess} ->> 'enabled') = 'true', false)`;
  return sql`(${row(true)} or (${global} and not ${row(false)}))`;
}

export interface IntegrationListFilter {
  organisationId: string;
  /** organisation-wide ones only, or workspace ones only */
  kind?: 'organisation' | 'workspace' | undefined;
  /** what this workspace may use: its own integrations and the organisation ones enabled for it */
  usableBy?: string | undefined;
}

export async function listIntegrations(
  db: Db,
  filter: IntegrationListFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: IntegrationRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(integrations.organisationId, filter.organisationId), ACTIVE];
  if (filter.kind === 'organisation') conditions.push(isNull(integrations.workspaceId));
  if (filter.kind === 'workspace') conditions.push(isNotNull(integrations.workspaceId));
  if (filter.usableBy) {
    conditions.push(or(eq(integrations.workspaceId, filter.usableBy), and(isNull(integrations.workspaceId), enabledFor(filter.usableBy))));
  }
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(integrations).where(where),
    db.select().from(integrations).where(where).orderBy(asc(integrations.createdAt), asc(integrations.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** Whether the organisation integration `id` is usable by the workspace (see enabledFor). */
export async function integrationEnabledFor(db: Db, id: string, workspaceId: string): Promise<boolean> {
  const rows = await db.select({ id: integrations.id }).from(integrations).where(and(eq(integrations.id, id), enabledFor(workspaceId))).limit(1);
  return rows.length > 0;
}

/** How many workspaces of the organisation may use the organisation integration (see enabledFor). */
export async function countEnabledWorkspaces(db: Db, row: IntegrationRow): Promise<number> {
  if (row.globalWorkspaceAccess?.enabled === true) {
    const disabled = sql`exists (select 1 from ${integrationWorkspaces} where ${integrationWorkspaces.integrationId} = ${row.id}
      and ${integrationWorkspaces.workspaceId} = ${workspaces.id} and ${integrationWorkspaces.enabled} = false)`;
    const rows = await db
      .select({ value: count() })
      .from(workspaces)
      .where(and(eq(workspaces.organisationId, row.organisationId), ne(workspaces.status, 'archived'), sql`not ${disabled}`));
    return rows[0]?.value ?? 0;
  }
  const rows = await db
    .select({ value: count() })
    .from(integrationWorkspaces)
    .where(and(eq(integrationWorkspaces.integrationId, row.id), eq(integrationWorkspaces.enabled, true)));
  return rows[0]?.value ?? 0;
}

// ---- models ----

export async function listIntegrationModels(db: Db, integrationId: string): Promise<IntegrationModelRow[]> {
  return db.select().from(integrationModels).where(eq(integrationModels.integrationId, integrationId)).orderBy(asc(integrationModels.slug));
}

/** Writes each row whole (the caller merged what was stored with what changed). */
export async function upsertIntegrationModels(db: Db, rows: NewIntegrationModelRow[]): Promise<void> {
  for (const row of rows) {
    const { integrationId: _integration, slug: _slug, ...changes } = row;
    await db
      .insert(integrationModels)
      .values(row)
      .onConflictDoUpdate({ target: [integrationModels.integrationId, integrationModels.slug], set: { ...changes, updatedAt: new Date() } });
  }
}

export async function deleteIntegrationModels(db: Db, integrationId: string, slugs: readonly string[]): Promise<void> {
  await db.delete(integrationModels).where(and(eq(integrationModels.integrationId, integrationId), inArray(integrationModels.slug, [...slugs])));
}

// ---- workspace access ----

export async function listIntegrationWorkspaces(db: Db, integrationId: string): Promise<IntegrationWorkspaceRow[]> {
  return db
    .select()
    .from(integrationWorkspaces)
    .where(eq(integrationWorkspaces.integrationId, integrationId))
    .orderBy(asc(integrationWorkspaces.createdAt), asc(integrationWorkspaces.workspaceId));
}

export async function upsertIntegrationWorkspace(db: Db, row: NewIntegrationWorkspaceRow): Promise<void> {
  const { integrationId: _integration, workspaceId: _workspace, ...changes } = row;
  await db
    .insert(integrationWorkspaces)
    .values(row)
    .onConflictDoUpdate({ target: [integrationWorkspaces.integrationId, integrationWorkspaces.workspaceId], set: { ...changes, updatedAt: new Date() } });
}

/** `override_existing_workspace_access`: every per-workspace setting goes, so the global one applies everywhere. */
export async function clearIntegrationWorkspaces(db: Db, integrationId: string): Promise<void> {
  await db.delete(integrationWorkspaces).where(eq(integrationWorkspaces.integrationId, integrationId));
}

// ---- the default provider ----

/** The active provider of the workspace that points at the integration, if any. */
export async function findIntegrationProvider(db: Db, workspaceId: string, integrationId: string): Promise<{ id: string; slug: string } | undefined> {
  const rows = await db
    .select({ id: providers.id, slug: providers.slug })
    .from(providers)
    .where(and(eq(providers.workspaceId, workspaceId), eq(providers.integrationId, integrationId), eq(providers.status, 'active')))
    .limit(1);
  return rows[0];
}

/** Every provider of the workspace counts, archived ones too: the unique index holds them all. */
export async function providerSlugTaken(db: Db, workspaceId: string, slug: string): Promise<boolean> {
  const rows = await db.select({ id: providers.id }).from(providers).where(and(eq(providers.workspaceId, workspaceId), eq(providers.slug, slug))).limit(1);
  return rows.length > 0;
}

export async function insertDefaultProvider(db: Db, values: NewProviderRow): Promise<{ id: string; slug: string }> {
  const rows = await db.insert(providers).values(values).returning({ id: providers.id, slug: providers.slug });
  return rows[0]!;
}
