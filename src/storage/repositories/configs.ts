/**
 * Saved config rows and their versions. Only active configs are found, listed or changed; an archived one is kept
 * for the record. A config's current version is the row `current_version_id` points at.
 */
import { and, asc, count, desc, eq, isNull, ne, or, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { configs, configVersions, workspaces } from '../schema.ts';

export type ConfigRow = typeof configs.$inferSelect;
export type NewConfigRow = typeof configs.$inferInsert;
export type ConfigVersionRow = typeof configVersions.$inferSelect;
export type NewConfigVersionRow = typeof configVersions.$inferInsert;

const ACTIVE = eq(configs.status, 'active');

function matchIdOrSlug(idOrSlug: string): SQL {
  return isUuid(idOrSlug) ? eq(configs.id, idOrSlug.toLowerCase()) : eq(configs.slug, idOrSlug);
}

/** An active config of the organisation by id or slug. */
export async function findConfig(db: Db, organisationId: string, idOrSlug: string): Promise<ConfigRow | undefined> {
  const rows = await db.select().from(configs).where(and(eq(configs.organisationId, organisationId), ACTIVE, matchIdOrSlug(idOrSlug))).limit(1);
  return rows[0];
}

/** The same, locked for the rest of the transaction: concurrent updates of one config apply one after the other. */
export async function lockConfig(db: Db, id: string): Promise<ConfigRow | undefined> {
  const rows = await db.select().from(configs).where(and(eq(configs.id, id), ACTIVE)).for('update');
  return rows[0];
}

export async function configSlugTaken(db: Db, organisationId: string, slug: string): Promise<boolean> {
  const rows = await db
    .select({ id: configs.id })
    .from(configs)
    .where(and(eq(configs.organisationId, organisationId), ACTIVE, eq(configs.slug, slug)))
    .limit(1);
  return rows.length > 0;
}

export async function insertConfig(db: Db, values: NewConfigRow): Promise<ConfigRow> {
  const rows = await db.insert(configs).values(values).returning();
  return rows[0]!;
}

export async function insertConfigVersion(db: Db, values: NewConfigVersionRow): Promise<ConfigVersionRow> {
  const rows = await db.insert(configVersions).values(values).returning();
  return rows[0]!;
}

export async function findConfigVersion(db: Db, id: string): Promise<ConfigVersionRow | undefined> {
  const rows = await db.select().from(configVersions).where(eq(configVersions.id, id)).limit(1);
  return rows[0];
}

/** Changes an active config; undefined when it is gone (archived concurrently). */
export async function updateConfigRow(db: Db, id: string, values: Partial<NewConfigRow>): Promise<ConfigRow | undefined> {
  const rows = await db
    .update(configs)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(configs.id, id), ACTIVE))
    .returning();
  return rows[0];
}

/**
 * Locks the workspace row (NO KEY UPDATE, which does not hold up keys being created in it) so that two configs
 * made default at once end with exactly one default. Taken before any config row lock, in every use case, so two
 * such transactions never wait on each other in opposite orders.
 */
export async function lockWorkspaceDefault(db: Db, workspaceId: string): Promise<void> {
  await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).for('no key update');
}

/** Unsets the workspace's default config, except `keep`; the caller holds lockWorkspaceDefault. */
export async function clearWorkspaceDefault(db: Db, workspaceId: string, keep?: string): Promise<void> {
  await db
    .update(configs)
    .set({ isDefault: false, updatedAt: new Date() })
    .where(and(eq(configs.workspaceId, workspaceId), ACTIVE, eq(configs.isDefault, true), keep ? ne(configs.id, keep) : undefined));
}

export interface ConfigListFilter {
  organisationId: string;
  /** only this workspace's configs */
  workspaceId?: string | undefined;
  /** this workspace's configs and the organisation-wide ones (what a workspace key sees) */
  visibleToWorkspace?: string | undefined;
}

export async function listConfigs(
  db: Db,
  filter: ConfigListFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: ConfigRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(configs.organisationId, filter.organisationId), ACTIVE];
  if (filter.workspaceId) conditions.push(eq(configs.workspaceId, filter.workspaceId));
  if (filter.visibleToWorkspace) conditions.push(or(eq(configs.workspaceId, filter.visibleToWorkspace), isNull(configs.workspaceId)));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(configs).where(where),
    db.select().from(configs).where(where).orderBy(asc(configs.createdAt), asc(configs.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** A config's versions, newest first. */
export async function listConfigVersions(
  db: Db,
  configId: string,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: ConfigVersionRow[] }> {
  const where = eq(configVersions.configId, configId);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(configVersions).where(where),
    db
      .select()
      .from(configVersions)
      .where(where)
      .orderBy(desc(configVersions.createdAt), desc(configVersions.id))
      .offset(page.offset)
      .limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** What a request resolves: the config and its current version, in one query. */
export interface CurrentConfig {
  id: string;
  workspaceId: string | null;
  versionId: string;
  config: Record<string, unknown>;
}

function currentConfigQuery(db: Db, where: SQL | undefined) {
  return db
    .select({ id: configs.id, workspaceId: configs.workspaceId, versionId: configVersions.id, config: configVersions.config })
    .from(configs)
    .innerJoin(configVersions, eq(configVersions.id, configs.currentVersionId))
    .where(where)
    .limit(1);
}

/** An active config of the organisation by id or slug, with its current version. */
export async function findCurrentConfig(db: Db, organisationId: string, idOrSlug: string): Promise<CurrentConfig | undefined> {
  const rows = await currentConfigQuery(db, and(eq(configs.organisationId, organisationId), ACTIVE, matchIdOrSlug(idOrSlug)));
  return rows[0];
}

/** The workspace's default config (`isDefault`), with its current version. */
export async function findDefaultConfig(db: Db, organisationId: string, workspaceId: string): Promise<CurrentConfig | undefined> {
  const rows = await currentConfigQuery(
    db,
    and(eq(configs.organisationId, organisationId), ACTIVE, eq(configs.workspaceId, workspaceId), eq(configs.isDefault, true)),
  );
  return rows[0];
}
