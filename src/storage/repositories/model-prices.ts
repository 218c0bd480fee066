/**
 * Custom model prices (model_prices): one row per organisation, scope (a workspace, or organisation-wide when
 * workspace_id is null), provider and model. Also the one read of integration_models this feature needs (an
 * integration model's pricing_config); that table belongs to the integrations group, and is only read here.
 */
import { and, asc, count, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { integrationModels, modelPrices } from '../schema.ts';

export type ModelPriceRow = typeof modelPrices.$inferSelect;

export interface PriceScope {
  organisationId: string;
  /** null: organisation-wide */
  workspaceId: string | null;
  provider: string;
  model: string;
}

function inScope(scope: PriceScope): SQL {
  return and(
    eq(modelPrices.organisationId, scope.organisationId),
    scope.workspaceId === null ? isNull(modelPrices.workspaceId) : eq(modelPrices.workspaceId, scope.workspaceId),
    eq(modelPrices.provider, scope.provider),
    eq(modelPrices.model, scope.model),
  )!;
}

/**
 * Serialises the writers of one scope until the transaction ends, so two concurrent PUTs leave one row, not two
 * (the table has no unique index over a nullable workspace_id).
 */
export async function lockPriceScope(db: Db, scope: PriceScope): Promise<void> {
  // JSON keeps the parts apart (PostgreSQL text cannot hold the NUL a join would use)
  const key = JSON.stringify(['model_prices', scope.organisationId, scope.workspaceId, scope.provider, scope.model]);
  await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}

export async function findModelPrice(db: Db, scope: PriceScope): Promise<ModelPriceRow | undefined> {
  const rows = await db.select().from(modelPrices).where(inScope(scope)).limit(1);
  return rows[0];
}

export async function insertModelPrice(db: Db, scope: PriceScope, pricing: Record<string, unknown>): Promise<ModelPriceRow> {
  const rows = await db.insert(modelPrices).values({ ...scope, pricing }).returning();
  return rows[0]!;
}

export async function updateModelPrice(db: Db, id: string, pricing: Record<string, unknown>): Promise<ModelPriceRow> {
  const rows = await db.update(modelPrices).set({ pricing, updatedAt: new Date() }).where(eq(modelPrices.id, id)).returning();
  return rows[0]!;
}

export async function deleteModelPrice(db: Db, id: string): Promise<void> {
  await db.delete(modelPrices).where(eq(modelPrices.id, id));
}

/** The workspace's row and the organisation-wide row of one model, for the price lookup. */
export async function customPriceRows(
  db: Db,
  query: { organisationId: string; workspaceId: string | null; provider: string; model: string },
): Promise<ModelPriceRow[]> {
  const scope = query.workspaceId === null ? isNull(modelPrices.workspaceId) : or(isNull(modelPrices.workspaceId), eq(modelPrices.workspaceId, query.workspaceId));
  return db
    .select()
    .from(modelPrices)
    .where(and(eq(modelPrices.organisationId, query.organisationId), eq(modelPrices.provider, query.provider), eq(modelPrices.model, query.model), scope));
}

export interface ModelPriceFilter {
  organisationId: string;
  /** only this workspace's rows */
  workspaceId?: string | undefined;
  /** a workspace key's view: its workspace's rows and the organisation-wide ones */
  visibleTo?: string | undefined;
  provider?: string | undefined;
  model?: string | undefined;
}

export async function listModelPrices(db: Db, filter: ModelPriceFilter, page: { offset: number; limit: number }): Promise<{ total: number; rows: ModelPriceRow[] }> {
  const conditions: SQL[] = [eq(modelPrices.organisationId, filter.organisationId)];
  if (filter.workspaceId !== undefined) conditions.push(eq(modelPrices.workspaceId, filter.workspaceId));
  if (filter.visibleTo !== undefined) conditions.push(or(isNull(modelPrices.workspaceId), eq(modelPrices.workspaceId, filter.visibleTo))!);
  if (filter.provider !== undefined) conditions.push(eq(modelPrices.provider, filter.provider));
  if (filter.model !== undefined) conditions.push(eq(modelPrices.model, filter.model));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(modelPrices).where(where),
    db.select().from(modelPrices).where(where).orderBy(asc(modelPrices.provider), asc(modelPrices.model), asc(modelPrices.createdAt), asc(modelPrices.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** An integration model's pricing_config (read only: the integrations group owns the table). */
export async function integrationModelPricing(db: Db, integrationId: string, model: string): Promise<unknown> {
  const rows = await db
    .select({ pricing: integrationModels.pricingConfig })
    .from(integrationModels)
    .where(and(eq(integrationModels.integrationId, integrationId), eq(integrationModels.slug, model), eq(integrationModels.enabled, true)))
    .limit(1);
  return rows[0]?.pricing ?? undefined;
}
