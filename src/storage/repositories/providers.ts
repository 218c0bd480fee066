/**
 * Provider rows (workspace handles onto an integration; the legacy virtual keys are the rows with
 * `is_virtual_key`), the reads of integrations a provider needs, and the one integration write this group owns: the
 * workspace integration that holds a virtual key's own credential. Only active rows are found, listed or changed;
 * an archived one is kept for the record.
 */
import { and, asc, count, eq, inArray, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { integrations, integrationWorkspaces, providers } from '../schema.ts';

export type ProviderRow = typeof providers.$inferSelect;
export type NewProviderRow = typeof providers.$inferInsert;
export type IntegrationRow = typeof integrations.$inferSelect;
export type NewIntegrationRow = typeof integrations.$inferInsert;
export type IntegrationWorkspaceRow = typeof integrationWorkspaces.$inferSelect;

const ACTIVE = eq(providers.status, 'active');
const ACTIVE_INTEGRATION = eq(integrations.status, 'active');

/** An active provider of the workspace by id or slug. */
export async function findProvider(db: Db, organisationId: string, workspaceId: string, idOrSlug: string): Promise<ProviderRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(providers.id, idOrSlug.toLowerCase()) : eq(providers.slug, idOrSlug);
  const rows = await db
    .select()
    .from(providers)
    .where(and(eq(providers.organisationId, organisationId), eq(providers.workspaceId, workspaceId), ACTIVE, match))
    .limit(1);
  return rows[0];
}

/** An active provider of the organisation by id, whatever its workspace (ids are unique; slugs are per workspace). */
export async function findProviderById(db: Db, organisationId: string, id: string): Promise<ProviderRow | undefined> {
  const rows = await db
    .select()
    .from(providers)
    .where(and(eq(providers.organisationId, organisationId), ACTIVE, eq(providers.id, id.toLowerCase())))
    .limit(1);
  return rows[0];
}

export async function providerSlugTaken(db: Db, workspaceId: string, slug: string): Promise<boolean> {
  const rows = await db
    .select({ id: providers.id })
    .from(providers)
    .where(and(eq(providers.workspaceId, workspaceId), ACTIVE, eq(providers.slug, slug)))
    .limit(1);
  return rows.length > 0;
}

export async function insertProvider(db: Db, values: NewProviderRow): Promise<ProviderRow> {
  const rows = await db.insert(providers).values(values).returning();
  return rows[0]!;
}

export interface ProviderListFilter {
  organisationId: string;
  /** only this workspace's providers; every workspace's when undefined */
  workspaceId?: string | undefined;
  /** only the rows created as virtual keys */
  virtualKeysOnly?: boolean;
}

export async function listProviders(
  db: Db,
  filter: ProviderListFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: ProviderRow[] }> {
  const conditions: SQL[] = [eq(providers.organisationId, filter.organisationId), ACTIVE];
  if (filter.workspaceId) conditions.push(eq(providers.workspaceId, filter.workspaceId));
  if (filter.virtualKeysOnly) conditions.push(eq(providers.isVirtualKey, true));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(providers).where(where),
    db.select().from(providers).where(where).orderBy(asc(providers.createdAt), asc(providers.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** Locks an active provider until the transaction ends (concurrent updates apply one after the other). */
export async function lockProvider(db: Db, id: string): Promise<ProviderRow | undefined> {
  const rows = await db.select().from(providers).where(and(eq(providers.id, id), ACTIVE)).for('update');
  return rows[0];
}

/** Changes an active provider; undefined when it is gone (archived concurrently). */
export async function updateProviderRow(db: Db, id: string, values: Partial<NewProviderRow>): Promise<ProviderRow | undefined> {
  const rows = await db
    .update(providers)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(providers.id, id), ACTIVE))
    .returning();
  return rows[0];
}

/** An active integration of the organisation by id or slug. */
export async function findIntegration(db: Db, organisationId: string, idOrSlug: string): Promise<IntegrationRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(integrations.id, idOrSlug.toLowerCase()) : eq(integrations.slug, idOrSlug);
  const rows = await db.select().from(integrations).where(and(eq(integrations.organisationId, organisationId), ACTIVE_INTEGRATION, match)).limit(1);
  return rows[0];
}

/** An integration by id, archived or not: what a provider row points at. */
export async function findIntegrationById(db: Db, id: string): Promise<IntegrationRow | undefined> {
  const rows = await db.select().from(integrations).where(eq(integrations.id, id)).limit(1);
  return rows[0];
}

/** The integrations of these ids, in one query (a list of providers shows each one's integration slug). */
export async function findIntegrationsByIds(db: Db, ids: readonly string[]): Promise<IntegrationRow[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return db.select().from(integrations).where(inArray(integrations.id, unique));
}

/** The workspace's access row of an organisation integration, if it has one. */
export async function findIntegrationAccess(db: Db, integrationId: string, workspaceId: string): Promise<IntegrationWorkspaceRow | undefined> {
  const rows = await db
    .select()
    .from(integrationWorkspaces)
    .where(and(eq(integrationWorkspaces.integrationId, integrationId), eq(integrationWorkspaces.workspaceId, workspaceId)))
    .limit(1);
  return rows[0];
}

/** The integration a virtual key creates for its own credential (workspace-scoped, used by that key only). */
export async function insertVirtualKeyIntegration(db: Db, values: NewIntegrationRow): Promise<IntegrationRow> {
  const rows = await db.insert(integrations).values(values).returning();
  return rows[0]!;
}

/** Changes a virtual key's own integration (a rotated key, new settings, archived with its key). */
export async function updateVirtualKeyIntegration(
  db: Db,
  id: string,
  values: Partial<Pick<NewIntegrationRow, 'name' | 'sealedKey' | 'maskedKey' | 'configurations' | 'secretMappings' | 'status'>>,
): Promise<IntegrationRow | undefined> {
  const rows = await db.update(integrations).set({ ...values, updatedAt: new Date() }).where(eq(integrations.id, id)).returning();
  return rows[0];
}

/** What a request needs to use a provider slug: the provider, its integration and the workspace's access row. */
export interface SavedProviderRows {
  provider: ProviderRow;
  integration: IntegrationRow;
  access: IntegrationWorkspaceRow | undefined;
}

/** The active provider `slug` of the workspace with its integration (archived or not: the caller says which). */
export async function loadSavedProviderRows(db: Db, organisationId: string, workspaceId: string, slug: string): Promise<SavedProviderRows | undefined> {
  const rows = await db
    .select({ provider: providers, integration: integrations })
    .from(providers)
    .innerJoin(integrations, eq(integrations.id, providers.integrationId))
    .where(and(eq(providers.organisationId, organisationId), eq(providers.workspaceId, workspaceId), ACTIVE, eq(providers.slug, slug)))
    .limit(1);
  const found = rows[0];
  if (!found) return undefined;
  const access = found.integration.workspaceId === null ? await findIntegrationAccess(db, found.integration.id, workspaceId) : undefined;
  return { ...found, access };
}
